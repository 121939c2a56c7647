package dev.richter.common.model;

/**
 * The running step's load as the fault decider last read it: the figures of its last complete seconds of load
 * windows, merged over every worker (histograms merged, never percentiles averaged). Written on the run item with the
 * monitor's heartbeat at every decision ({@code RunFlags#beat}), so {@code GET /runs/{runId}} shows the live step by
 * reading one item, whatever the number of workers and windows.
 *
 * @param stage      {@code pre-test} or {@code formal}
 * @param stepIndex  the step, 0-based within its stage
 * @param atMs       when the decision read them, epoch ms
 * @param seconds    complete seconds with requests among the last {@link #SECONDS} before {@code atMs}
 * @param completed  requests completed (answered, timed out or failed to connect) in those seconds
 * @param errors     of them, failed (error status, timeout, connection error)
 * @param p99Ms      their p99 latency, milliseconds (0 without latencies)
 */
public record LiveLoad(String stage, int stepIndex, long atMs, int seconds, long completed, long errors, double p99Ms) {
    /** The span of seconds the live figures cover, before the decision's second. */
    public static final int SECONDS = 5;

    /** Requests completed per second over the span, 0 without seconds. */
    public double qps() {
        return seconds == 0 ? 0 : (double) completed / seconds;
    }

    /** errors / completed as a percentage, 0 without requests. */
    public double errorRatePct() {
        return completed == 0 ? 0 : 100.0 * errors / completed;
    }
}
