package dev.richter.decider;

/**
 * One load worker's results for one second (run-metrics item
 * {@code sk = window#<stage>#<stepIndex %03d>#<epochSecond>#<workerIndex %04d>#<legIndex %04d>}): two legs can both hold a worker's second, readers sum them.
 *
 * @param epochSecond   the second the requests were due in
 * @param workerIndex   load worker index
 * @param count         requests completed (ok + errors)
 * @param errors        requests that failed (error status, timeout, connection error)
 * @param histBase64    latency HdrHistogram in microseconds, compressed base64 ({@code HistogramCodec}); may be empty
 */
public record LoadWindow(long epochSecond, int workerIndex, long count, long errors, String histBase64) {
    public LoadWindow {
        histBase64 = histBase64 == null ? "" : histBase64;
    }
}
