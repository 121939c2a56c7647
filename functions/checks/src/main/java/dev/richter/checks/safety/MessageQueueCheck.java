package dev.richter.checks.safety;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;

/**
 * Static check {@value #NAME}: for every topic or queue a scope service produces to or consumes
 * from, the service's shadow switch is on and the topic is mapped to a distinct shadow topic.
 *
 * <p>Per usage (subject {@code service produce|consume topic}): FAIL when no configuration exists for
 * (service, topic), the switch is off, the shadow topic is unmapped, or the shadow topic is the
 * production topic; PASS otherwise. No usage at all gives one PASS saying so.
 */
public final class MessageQueueCheck {
    /** Check name in {@link CheckResult#name()}. */
    public static final String NAME = "mq-shadow-switch";

    private MessageQueueCheck() {}

    /**
     * @param usages topics the scope uses ({@link QueueUsage#fromRegistry}, {@link QueueUsage#fromSpans}, or
     *     both concatenated; duplicates are checked once)
     * @param configs the services' shadow configurations
     * @return one result per distinct usage
     */
    public static List<CheckResult> check(List<QueueUsage> usages, List<QueueShadowConfig> configs) {
        List<CheckResult> out = new ArrayList<>();
        if (usages.isEmpty()) {
            out.add(new CheckResult(NAME, Outcome.PASS, "topics", "the scope uses no topic or queue"));
            return out;
        }
        for (QueueUsage u : new LinkedHashSet<>(usages)) {
            String subject = u.service() + " " + u.direction().name().toLowerCase(Locale.ROOT) + " " + u.topic();
            QueueShadowConfig c = configs.stream()
                    .filter(x -> x.service().equals(u.service()) && x.topic().equals(u.topic()))
                    .findFirst().orElse(null);
            if (c == null) {
                out.add(new CheckResult(NAME, Outcome.FAIL, subject, "no shadow switch configured for topic '"
                        + u.topic() + "': marked messages would go to the production topic"));
            } else if (!c.shadowSwitchOn()) {
                out.add(new CheckResult(NAME, Outcome.FAIL, subject, "shadow switch is off for topic '" + u.topic()
                        + "'" + (c.shadowTopic().isEmpty() ? "" : " (mapped to '" + c.shadowTopic() + "')")));
            } else if (c.shadowTopic().isEmpty()) {
                out.add(new CheckResult(NAME, Outcome.FAIL, subject, "shadow switch is on but topic '" + u.topic()
                        + "' is not mapped to a shadow topic"));
            } else if (c.shadowTopic().equals(u.topic())) {
                out.add(new CheckResult(NAME, Outcome.FAIL, subject, "shadow topic is the production topic '"
                        + u.topic() + "'"));
            } else {
                out.add(new CheckResult(NAME, Outcome.PASS, subject, "shadow switch on, '" + u.topic() + "' -> '"
                        + c.shadowTopic() + "'"));
            }
        }
        return out;
    }
}
