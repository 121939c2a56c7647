package dev.richter.agent.isolation;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.ShadowDecision;
import java.util.Optional;

/**
 * The isolation's rule for a marked record sent to a topic ({@code kind: topic}, production topic → shadow topic):
 * a shadow topic is sent to as it is; a mapped topic is replaced by its shadow; any other is refused (every send
 * writes), or in {@link IsolationMode#REPORT} sent and recorded.
 */
public final class TopicPolicy {
    private TopicPolicy() {}

    public static ShadowDecision decide(String topic, Shadows shadows, IsolationMode mode) {
        if (shadows.topics().containsValue(topic)) {
            return new ShadowDecision(Optional.empty(), topic, ExitDecision.PASS);
        }
        String shadow = shadows.topics().get(topic);
        if (shadow != null) {
            return ShadowDecision.shadow(shadow, shadow);
        }
        String reason = "a marked record to topic '" + topic + "', which has no shadow topic (kind topic)";
        return mode == IsolationMode.ENFORCE ? ShadowDecision.refuse("topic " + topic, reason)
                : new ShadowDecision(Optional.empty(), "", new ExitDecision.WouldRefuse("topic " + topic, reason));
    }
}
