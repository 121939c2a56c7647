package dev.richter.common.model;

/**
 * A step as the state machine carries it before it starts.
 *
 * @param runId     run id
 * @param teamId    team
 * @param stage     {@link #PRE_TEST} or {@link #FORMAL}
 * @param stepIndex index within the stage
 * @param qps       target rate, requests per second
 * @param durationS duration, seconds
 */
public record StepRef(String runId, String teamId, String stage, int stepIndex, double qps, int durationS) {}
