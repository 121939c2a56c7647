package dev.richter.common.model;

/**
 * What a worker of a leg is handed by the state machine: where to find its step, never the traffic.
 *
 * @param runId       run id
 * @param teamId      team
 * @param stage       stage
 * @param stepIndex   step within the stage
 * @param legIndex    leg within the step
 * @param workerIndex worker within the leg, {@code [0, workerCount)}
 */
public record WorkerRef(String runId, String teamId, String stage, int stepIndex, int legIndex, int workerIndex) {}
