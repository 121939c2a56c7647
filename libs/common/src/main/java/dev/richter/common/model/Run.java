package dev.richter.common.model;

/**
 * One execution of a plan (one Step Functions execution named by {@code runId}).
 *
 * @param runId          run id, {@code run-<epochMs>-<random>}
 * @param planId         plan run
 * @param teamId         owning team
 * @param status         {@code STARTING}, {@code RUNNING}, {@code COMPLETED} (reported), {@code FAILED} (ended with no
 *                       report: the run item's {@code failureReason} says why), {@code FAILED_TO_START}
 * @param outcome        once reported: {@code PASSED}, {@code STATIC_CHECKS_FAILED}, {@code PRE_TEST_FAILED},
 *                       {@code ABORTED}, {@code ERROR}; empty before
 * @param stage          current stage ({@code pre-test}, {@code formal}) or empty
 * @param stepIndex      current step within the stage, -1 before the first
 * @param createdAtMs    epoch ms of creation
 * @param abortRequested the abort flag
 * @param abortReason    why the flag was set, or empty
 * @param executionArn   Step Functions execution ARN, or empty before start
 */
public record Run(String runId, String planId, String teamId, String status, String outcome, String stage,
                  int stepIndex, long createdAtMs, boolean abortRequested, String abortReason, String executionArn) {}
