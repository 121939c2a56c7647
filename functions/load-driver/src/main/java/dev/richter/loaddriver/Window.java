package dev.richter.loaddriver;

/**
 * One second of one worker's results: passive evidence for the fault decider, stored in the
 * run-metrics table as {@code {runId, sk = }{@link #sortKey()}{@code , count, errors, hist}}.
 *
 * <p>A request belongs to the second in which its outcome was observed (response, timeout or
 * connection failure), by epoch time.
 *
 * @param runId       run id
 * @param stage       {@code pre-test} or {@code formal}
 * @param stepIndex   step within the stage
 * @param workerIndex worker, 0-based
 * @param epochSecond the second, epoch seconds
 * @param count       outcomes observed in the second (ok + HTTP errors + timeouts + connect errors)
 * @param errors      of which failed (HTTP status ≥ 400, timeouts, connect errors)
 * @param hist        HdrHistogram of latency from the due time in that second, microseconds,
 *                    {@link dev.richter.common.model.HistogramCodec} encoding
 * @param legIndex    the leg of the step the worker ran
 */
public record Window(String runId, String stage, int stepIndex, int workerIndex, long epochSecond, long count,
                     long errors, String hist, int legIndex) {

    /** {@code window#<stage>#<stepIndex %03d>#<epochSecond>#<workerIndex %04d>#<legIndex %04d>} ({@link dev.richter.common.model.WindowKey}). */
    public String sortKey() {
        return dev.richter.common.model.WindowKey.sortKey(stage, stepIndex, epochSecond, workerIndex, legIndex);
    }
}
