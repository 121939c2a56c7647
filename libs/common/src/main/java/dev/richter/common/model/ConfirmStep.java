package dev.richter.common.model;

/**
 * A run's confirm step (DESIGN.md §5 "Confirm step"), as the step completion called for it: the formal slot after step
 * {@code afterStepIndex} runs {@code qps} for {@code durationS} under the stage {@link Stages#CONFIRM}, and each later
 * formal step takes the slot after its own ({@link Plan#formalSlots()}).
 *
 * @param afterStepIndex 0-based index of F, the first formal step that failed the capacity criteria
 * @param qps            the confirm step's rate, requests per second: midway between G (the step before F) and F
 * @param durationS      its duration, seconds: F's
 * @param why            the judgement in words, e.g. {@code step 2 at 40 QPS held, step 3 at 60 QPS failed}
 */
public record ConfirmStep(int afterStepIndex, double qps, int durationS, String why) {
    /**
     * The step a formal slot runs: {@code slot} itself before the confirm step, the confirm step in the slot after F,
     * and formal step {@code slot - 1} after that.
     *
     * @param slot the formal slot's 0-based index, as laid out ({@link Plan#formalSlots()})
     * @param plan the run's plan
     */
    public StepRef stepFor(StepRef slot, Plan plan) {
        int i = slot.stepIndex();
        if (i <= afterStepIndex) {
            return slot;
        }
        if (i == afterStepIndex + 1) {
            return new StepRef(slot.runId(), slot.teamId(), Stages.CONFIRM, 0, qps, durationS);
        }
        Plan.StepSpec moved = plan.formal().get(i - 1);
        return new StepRef(slot.runId(), slot.teamId(), Stages.FORMAL, i - 1, moved.qps(), moved.durationS());
    }
}
