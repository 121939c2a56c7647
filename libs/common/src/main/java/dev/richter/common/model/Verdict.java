package dev.richter.common.model;

/**
 * The fault decider's judgement of one module at one time (DESIGN.md §4).
 *
 * @param module   module (service) name
 * @param state    HEALTHY, SUSPECT or DAMAGED
 * @param reason   the rule that fired and its evidence, e.g. {@code "10 consecutive failed probes; heap 0.95 > 0.90"}
 * @param atMs     epoch milliseconds of the decision
 */
public record Verdict(String module, State state, String reason, long atMs) {
    /** The closed set of verdict states. */
    public enum State { HEALTHY, SUSPECT, DAMAGED }
}
