package dev.richter.common.model;

import java.util.List;

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
 * @param legIndex                  the leg of the step the worker ran
 * @param startLagMs                how late the worker was ready to send, milliseconds after its first due time
 *                                  (0 when it was waiting before it); a late worker's requests count as late, and
 *                                  the report names it
 * @param unsentAtTimeLimit         requests of the leg not sent because the invocation's time ran out (counted
 *                                  dropped too); 0 when the leg fitted its Lambda timeout
 * @param unstoredWindowSeconds     epoch seconds of this worker's per-second windows that could not be stored after
 *                                  every retry (ascending); the counters above still count their requests, the time
 *                                  series and the EMF lines miss them, and the report names them
 * @param lastSentAtMs              epoch ms of the worker's last send (its sending window ends there; the drain of the
 *                                  requests still in flight runs on to {@code endedAtMs}); 0 when it sent nothing or
 *                                  the result predates this field
 * @param inFlightCap               the worker's in-flight cap, requests: its task's {@code maxInFlight}, lowered to what
 *                                  its connections can carry at once ({@code LoadDriver}); a request due while this many
 *                                  were in flight was counted {@code dropped}. 0 when the result predates this field
 * @param peakInFlight              the most requests the worker had in flight at once during the step (sent, not yet
 *                                  answered or timed out), requests; equal to {@code inFlightCap} when the cap bound.
 *                                  0 when it sent nothing or the result predates this field
 */
public record WorkerResult(String runId, String stage, int stepIndex, int workerIndex, int workerCount,
                           double targetQps, long startedAtMs, long endedAtMs, Counters counters,
                           String latencyFromIntendedHist, String latencyFromSendHist, boolean aborted,
                           int legIndex, long startLagMs, long unsentAtTimeLimit, List<Long> unstoredWindowSeconds,
                           long lastSentAtMs, int inFlightCap, int peakInFlight) {

    public WorkerResult {
        unstoredWindowSeconds = unstoredWindowSeconds == null ? List.of() : List.copyOf(unstoredWindowSeconds);
    }

    /** A result whose in-flight cap and peak are not known (0). */
    public WorkerResult(String runId, String stage, int stepIndex, int workerIndex, int workerCount,
                        double targetQps, long startedAtMs, long endedAtMs, Counters counters,
                        String latencyFromIntendedHist, String latencyFromSendHist, boolean aborted,
                        int legIndex, long startLagMs, long unsentAtTimeLimit, List<Long> unstoredWindowSeconds,
                        long lastSentAtMs) {
        this(runId, stage, stepIndex, workerIndex, workerCount, targetQps, startedAtMs, endedAtMs, counters,
                latencyFromIntendedHist, latencyFromSendHist, aborted, legIndex, startLagMs, unsentAtTimeLimit,
                unstoredWindowSeconds, lastSentAtMs, 0, 0);
    }

    /** A result whose last send time is unknown (0). */
    public WorkerResult(String runId, String stage, int stepIndex, int workerIndex, int workerCount,
                        double targetQps, long startedAtMs, long endedAtMs, Counters counters,
                        String latencyFromIntendedHist, String latencyFromSendHist, boolean aborted,
                        int legIndex, long startLagMs, long unsentAtTimeLimit, List<Long> unstoredWindowSeconds) {
        this(runId, stage, stepIndex, workerIndex, workerCount, targetQps, startedAtMs, endedAtMs, counters,
                latencyFromIntendedHist, latencyFromSendHist, aborted, legIndex, startLagMs, unsentAtTimeLimit,
                unstoredWindowSeconds, 0);
    }

    /** A result whose windows were all stored. */
    public WorkerResult(String runId, String stage, int stepIndex, int workerIndex, int workerCount,
                        double targetQps, long startedAtMs, long endedAtMs, Counters counters,
                        String latencyFromIntendedHist, String latencyFromSendHist, boolean aborted,
                        int legIndex, long startLagMs, long unsentAtTimeLimit) {
        this(runId, stage, stepIndex, workerIndex, workerCount, targetQps, startedAtMs, endedAtMs, counters,
                latencyFromIntendedHist, latencyFromSendHist, aborted, legIndex, startLagMs, unsentAtTimeLimit, List.of());
    }

    /** A result of a one-leg step that started on time. */
    public WorkerResult(String runId, String stage, int stepIndex, int workerIndex, int workerCount,
                        double targetQps, long startedAtMs, long endedAtMs, Counters counters,
                        String latencyFromIntendedHist, String latencyFromSendHist, boolean aborted) {
        this(runId, stage, stepIndex, workerIndex, workerCount, targetQps, startedAtMs, endedAtMs, counters,
                latencyFromIntendedHist, latencyFromSendHist, aborted, 0, 0, 0);
    }

    /** The run-metrics sort key: {@code result#<stage>#<stepIndex %03d>#<legIndex %04d>#<workerIndex %05d>}. */
    public String sortKey() {
        return sortKey(stage, stepIndex, legIndex, workerIndex);
    }

    /** The run-metrics sort key for a worker's result in a leg. */
    public static String sortKey(String stage, int stepIndex, int legIndex, int workerIndex) {
        return String.format("result#%s#%03d#%04d#%05d", stage, stepIndex, legIndex, workerIndex);
    }

    /** Which worker this is: stage, step, leg and index. */
    public WorkerKey key() {
        return new WorkerKey(stage, stepIndex, legIndex, workerIndex);
    }

    /** This worker's name in logs and reports ({@link WorkerKey#name}). */
    public String workerName() {
        return key().name();
    }
}
