package dev.richter.checks.safety;

/**
 * A service's message-queue shadow configuration for one topic: whether marked messages are routed
 * to a shadow topic (producer side) and read from it (consumer side).
 *
 * @param service service name
 * @param topic production topic / queue name
 * @param shadowSwitchOn the service's shadow switch for this topic is on
 * @param shadowTopic the shadow topic marked messages go to / come from; {@code ""} when unmapped
 */
public record QueueShadowConfig(String service, String topic, boolean shadowSwitchOn, String shadowTopic) {
    public QueueShadowConfig {
        shadowTopic = shadowTopic == null ? "" : shadowTopic.trim();
    }
}
