package dev.richter.decider;

import dev.richter.common.model.HistogramCodec;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * The load driver's per-second windows of the current step, merged across workers per second
 * (histograms are merged, never percentiles averaged). Only complete seconds (before the decision's
 * second) count.
 *
 * @param seconds epoch second to that second's merged figures, ascending
 */
public record PassiveEvidence(TreeMap<Long, Second> seconds) {
    /** One second's figures over all workers; {@code latencyUs} may be empty. */
    public record Second(long epochSecond, long count, long errors, Histogram latencyUs) {}

    /**
     * Summary over a span of seconds.
     *
     * @param seconds  seconds that had at least one request
     * @param requests requests in the span
     * @param errors   failed requests in the span
     * @param p99Ms    p99 latency of the span, milliseconds (0 without latencies)
     */
    public record Summary(int seconds, long requests, long errors, double p99Ms) {
        /** errors / requests, 0 without requests. */
        public double errorRate() {
            return requests == 0 ? 0 : (double) errors / requests;
        }
    }

    public PassiveEvidence {
        seconds = seconds == null ? new TreeMap<>() : new TreeMap<>(seconds);
    }

    /** No windows. */
    public static PassiveEvidence none() {
        return new PassiveEvidence(new TreeMap<>());
    }

    /**
     * Merges raw windows per second.
     *
     * @throws IllegalArgumentException when a histogram does not decode
     */
    public static PassiveEvidence fromWindows(List<LoadWindow> windows) {
        Map<Long, long[]> counts = new TreeMap<>();
        Map<Long, Histogram> hists = new TreeMap<>();
        for (LoadWindow w : windows) {
            long[] c = counts.computeIfAbsent(w.epochSecond(), k -> new long[2]);
            c[0] += w.count();
            c[1] += w.errors();
            Histogram h = hists.computeIfAbsent(w.epochSecond(), k -> HistogramCodec.newMergeHistogram());
            if (!w.histBase64().isEmpty()) h.add(HistogramCodec.decode(w.histBase64()));
        }
        TreeMap<Long, Second> out = new TreeMap<>();
        counts.forEach((s, c) -> out.put(s, new Second(s, c[0], c[1], hists.get(s))));
        return new PassiveEvidence(out);
    }

    /** True when no second has any request. */
    public boolean isEmpty() {
        return seconds.values().stream().allMatch(s -> s.count() == 0);
    }

    /** Summary of the last {@code n} complete seconds before {@code nowMs}. */
    public Summary lastSeconds(long nowMs, int n) {
        long nowSec = Math.floorDiv(nowMs, 1000);
        Histogram merged = HistogramCodec.newMergeHistogram();
        int secs = 0;
        long req = 0;
        long err = 0;
        for (Second s : seconds.subMap(nowSec - n, true, nowSec - 1, true).values()) {
            if (s.count() == 0) continue;
            secs++;
            req += s.count();
            err += s.errors();
            merged.add(s.latencyUs());
        }
        double p99Ms = merged.getTotalCount() == 0 ? 0 : merged.getValueAtPercentile(99.0) / 1000.0;
        return new Summary(secs, req, err, p99Ms);
    }

    /**
     * How many of the newest seconds may still be missing because the load driver has not flushed
     * them yet (it writes each second's window about a second after the second ends).
     */
    public static final int MAX_FLUSH_LAG_S = 2;

    /**
     * True when each of the last {@code n} flushed seconds had requests and an error rate above
     * {@code rate}. The span ends at the newest second present among the last
     * {@link #MAX_FLUSH_LAG_S} + 1 complete seconds before {@code nowMs}, so a window that is not
     * written yet does not hide a sustained error rate; a gap inside the span breaks it.
     */
    public boolean everySecondErrorRateAbove(long nowMs, int n, double rate) {
        long nowSec = Math.floorDiv(nowMs, 1000);
        long last = nowSec - 1;
        while (last > nowSec - 1 - MAX_FLUSH_LAG_S && !seconds.containsKey(last)) {
            last--;
        }
        for (long s = last - n + 1; s <= last; s++) {
            Second sec = seconds.get(s);
            if (sec == null || sec.count() == 0 || (double) sec.errors() / sec.count() <= rate) return false;
        }
        return true;
    }

    /**
     * These windows with each second's errors raised to at least the fallbacks attributed to it (rounded, at most the
     * second's requests): a fallback may already be among the errors (a plan check that failed it), so the two are not
     * added.
     *
     * @param fallbacks fallbacks per epoch second ({@link BreakerFallbacks#at})
     */
    public PassiveEvidence withFallbacks(java.util.function.LongToDoubleFunction fallbacks) {
        TreeMap<Long, Second> out = new TreeMap<>();
        seconds.forEach((s, sec) -> out.put(s, new Second(s, sec.count(),
                Math.max(sec.errors(), Math.min(sec.count(), Math.round(fallbacks.applyAsDouble(s)))), sec.latencyUs())));
        return new PassiveEvidence(out);
    }
}
