package dev.richter.decider;

import dev.richter.common.model.Verdict;

/**
 * One module's outcome of a decision.
 *
 * @param verdict  the verdict now
 * @param previous the verdict before this round
 * @param next     state to store for the next round
 * @param evidence why
 */
public record ModuleDecision(Verdict verdict, Verdict.State previous, ModuleState next, VerdictEvidence evidence) {
    /** True when the verdict differs from the previous one ({@code Verdict Changed} is emitted). */
    public boolean changed() {
        return verdict.state() != previous;
    }
}
