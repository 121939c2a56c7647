package dev.richter.decider;

import java.util.Map;

/** Where {@code Verdict Changed} events go (EventBridge in production, a recording fake in tests). */
@FunctionalInterface
public interface VerdictEvents {
    /** Detail-type of the event. */
    String VERDICT_CHANGED = "Verdict Changed";

    /**
     * Publishes one {@code Verdict Changed} event.
     *
     * @param detail {@code runId, teamId, stage, stepIndex, module, from, to, reason, atMs}
     */
    void verdictChanged(Map<String, Object> detail);
}
