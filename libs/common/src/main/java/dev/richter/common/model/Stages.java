package dev.richter.common.model;

import java.util.List;

/**
 * The run's steps per stage. The run sends them in this order (the state machine's, DESIGN.md §3): {@code preTest}
 * (one step, the only load before the dynamic gate), {@code warmUp} (the rungs of its ramp, or none when the plan
 * turns it off; its figures are kept apart from the pre-test gate and the capacity) and {@code formal} (the plan's
 * steps in order, then the confirm slot of {@link Plan#formalSlots()}). A confirm step runs in a formal slot under the
 * stage name {@link #CONFIRM}, index 0.
 */
public record Stages(String runId, String planId, String teamId, List<StepRef> warmUp, List<StepRef> preTest,
                     List<StepRef> formal) {
    /** The stage names, in run order. */
    public static final String WARM_UP = "warm-up";
    public static final String PRE_TEST = "pre-test";
    public static final String FORMAL = "formal";
    /** The confirm step's stage: one step between the last formal step that held and the first that failed. */
    public static final String CONFIRM = "confirm";
}
