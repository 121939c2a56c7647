package dev.richter.common.model;

import java.util.List;

/** The run's steps per stage: {@code preTest} (one step) and {@code formal} (the plan's steps in order). */
public record Stages(String runId, String planId, String teamId, List<StepRef> preTest, List<StepRef> formal) {
    /** The stage names, in run order. */
    public static final String PRE_TEST = "pre-test";
    public static final String FORMAL = "formal";
}
