package dev.richter.common.model;

/**
 * What one load-driver worker measured in one step; stored in the run-metrics table
 * (pk {@code runId}, sk {@link #sortKey()}) and merged by the report.
 *
 * @param runId                     run id
 * @param stage                     {@code pre-test} or {@code formal}
 * @param stepIndex                 step within the stage
 * @param workerIndex               worker, 0-based
 * @param workerCount               workers in the step
 * @param targetQps                 the whole step's target rate
 * @param startedAtMs               epoch ms of the first due time
 * @param endedAtMs                 epoch ms when the last response (or deadline) was accounted
 * @param counters                  request counters
 * @param latencyFromIntendedHist   HdrHistogram of latency from the due time, microseconds,
 *                                  compressed + base64 ({@link HistogramCodec})
 * @param latencyFromSendHist       HdrHistogram of latency from the actual send time, same encoding
 * @param aborted                   true when the worker stopped on the run's abort flag
 */
public record WorkerResult(String runId, String stage, int stepIndex, int workerIndex, int workerCount,
                           double targetQps, long startedAtMs, long endedAtMs, Counters counters,
                           String latencyFromIntendedHist, String latencyFromSendHist, boolean aborted) {

    /** The run-metrics sort key: {@code result#<stage>#<stepIndex 3 digits>#<workerIndex 4 digits>}. */
    public String sortKey() {
        return sortKey(stage, stepIndex, workerIndex);
    }

    /** The run-metrics sort key for a worker's result. */
    public static String sortKey(String stage, int stepIndex, int workerIndex) {
        return String.format("result#%s#%03d#%04d", stage, stepIndex, workerIndex);
    }
}
