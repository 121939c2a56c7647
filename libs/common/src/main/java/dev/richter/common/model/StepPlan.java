package dev.richter.common.model;

/**
 * A started step as stored for its workers (run-metrics table, sk {@link #sortKey()}).
 *
 * @param runId               run id
 * @param teamId              team
 * @param planId              the plan whose scenarios the workers replay
 * @param stage               stage
 * @param stepIndex           step within the stage
 * @param qps                 the whole step's rate, requests per second
 * @param durationS           step duration, seconds
 * @param perWorkerQps        rate of one worker (kept so a reader can recompute the layout)
 * @param workerCount         workers in every leg
 * @param stepStartMs         epoch ms when request 0 is due
 * @param legMs               length of every leg but the last, milliseconds
 * @param legCount            legs of the step
 * @param requestTimeoutMs    deadline of each request, milliseconds
 * @param maxInFlight         in-flight cap per worker
 * @param latenessToleranceMs a request sent later than this after its due time is late
 */
public record StepPlan(String runId, String teamId, String planId, String stage, int stepIndex, double qps,
                       int durationS, double perWorkerQps, int workerCount, long stepStartMs, long legMs,
                       int legCount, int requestTimeoutMs, int maxInFlight, int latenessToleranceMs) {
    /** {@code step#<stage>#<stepIndex %03d>}. */
    public String sortKey() {
        return sortKey(stage, stepIndex);
    }

    /** The run-metrics sort key of a stage's step. */
    public static String sortKey(String stage, int stepIndex) {
        return String.format("step#%s#%03d", stage, stepIndex);
    }
}
