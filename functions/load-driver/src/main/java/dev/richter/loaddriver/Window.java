package dev.richter.loaddriver;

import dev.richter.common.model.WindowAttributes;
import dev.richter.common.model.WindowKey;

/**
 * One second of one worker's results: passive evidence for the fault decider and the report's time series, stored in
 * the run-metrics table as {@code {runId, sk = }{@link #sortKey()}{@code , count, errors, hist, sent, http4xx, http5xx,
 * timeouts, connectErrors, dropped, late, checkFailed}} (attribute names: {@link WindowAttributes}).
 *
 * <p>An outcome (response, timeout or connection failure) belongs to the second in which it was observed; a send, a
 * drop and a late send to the second in which the request was due. Both by epoch time.
 *
 * @param runId         run id
 * @param stage         {@code pre-test} or {@code formal}
 * @param stepIndex     step within the stage
 * @param workerIndex   worker, 0-based
 * @param epochSecond   the second, epoch seconds
 * @param count         outcomes observed in the second (ok + HTTP errors + timeouts + connect errors)
 * @param errors        of which failed (a final status other than 2xx and 304, redirects not followed, timeouts,
 *                      connect errors)
 * @param hist          HdrHistogram of latency from the due time in that second, microseconds,
 *                      {@link dev.richter.common.model.HistogramCodec} encoding
 * @param legIndex      the leg of the step the worker ran
 * @param sent          requests due in the second and sent
 * @param http4xx       responses with a 4xx status observed in the second
 * @param http5xx       responses with a 5xx status observed in the second
 * @param timeouts      requests whose deadline passed in the second
 * @param connectErrors connection failures observed in the second
 * @param dropped       requests due in the second and not sent because the in-flight cap was reached
 * @param late          requests due in the second and sent later than the lateness tolerance
 * @param checkFailed   answers observed in the second that missed their request's expectation ({@code check-failed};
 *                      counted in {@code errors} too)
 */
public record Window(String runId, String stage, int stepIndex, int workerIndex, long epochSecond, long count,
                     long errors, String hist, int legIndex, long sent, long http4xx, long http5xx, long timeouts,
                     long connectErrors, long dropped, long late, long checkFailed) {

    /** A window without check failures. */
    public Window(String runId, String stage, int stepIndex, int workerIndex, long epochSecond, long count, long errors,
                  String hist, int legIndex, long sent, long http4xx, long http5xx, long timeouts, long connectErrors,
                  long dropped, long late) {
        this(runId, stage, stepIndex, workerIndex, epochSecond, count, errors, hist, legIndex, sent, http4xx, http5xx,
                timeouts, connectErrors, dropped, late, 0);
    }

    /** {@code window#<stage>#<stepIndex %03d>#<epochSecond>#<workerIndex %04d>#<legIndex %04d>} ({@link WindowKey}). */
    public String sortKey() {
        return WindowKey.sortKey(stage, stepIndex, epochSecond, workerIndex, legIndex);
    }
}
