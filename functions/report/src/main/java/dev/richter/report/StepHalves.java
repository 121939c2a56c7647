package dev.richter.report;

import dev.richter.common.model.HistogramCodec;
import dev.richter.common.model.Stages;
import dev.richter.common.model.StepPlan;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Each formal step's two halves in time, from the load driver's per-second windows: two measurements of the same rate in
 * the same run, so a knee can be confirmed against the variance of its own steps ({@link ReportBuilder#withInterval}).
 * A window belongs to the first half when its second starts before the step's start plus half its planned duration.
 * Histograms are merged, never percentiles averaged.
 */
public final class StepHalves {
    /**
     * One half of a step.
     *
     * @param requests requests answered or failed in the half (the windows' {@code count})
     * @param errors   failed among them (the windows' {@code errors}: HTTP errors, timeouts, connect errors, check
     *                 failures)
     * @param p99Ms    p99 latency from the intended send time, milliseconds; NaN when the half has no latency
     */
    public record Half(long requests, long errors, double p99Ms) {
        /** Success rate in percent, NaN without requests. */
        public double successPct() {
            return requests == 0 ? Double.NaN : 100.0 * (requests - errors) / requests;
        }
    }

    private final Map<String, Long> splitS = new HashMap<>();
    private final Map<String, long[]> counts = new HashMap<>();
    private final Map<String, Histogram[]> hists = new HashMap<>();

    /** @param started the started steps (their start and planned duration place the split) */
    public StepHalves(List<StepPlan> started) {
        for (StepPlan s : started) {
            if (Stages.FORMAL.equals(s.stage()) || Stages.CONFIRM.equals(s.stage())) {
                splitS.put(key(s.stage(), s.stepIndex()), Math.floorDiv(s.stepStartMs(), 1000) + s.durationS() / 2);
            }
        }
    }

    /** Adds one stored window (windows of other stages, or of a step that did not start, are ignored). */
    public void add(TimeSeries.StoredWindow w) {
        String k = key(w.stage(), w.stepIndex());
        Long split = splitS.get(k);
        if (split == null) {
            return;
        }
        int half = w.epochSecond() < split ? 0 : 1;
        long[] c = counts.computeIfAbsent(k, x -> new long[4]);
        c[2 * half] += w.count();
        c[2 * half + 1] += w.errors();
        if (!w.hist().isEmpty()) {
            Histogram[] h = hists.computeIfAbsent(k, x -> new Histogram[] {HistogramCodec.newMergeHistogram(), HistogramCodec.newMergeHistogram()});
            h[half].add(HistogramCodec.decode(w.hist()));
        }
    }

    private boolean cutShort;

    /** The windows were not all read (the report ran out of time): {@link #halves()} is then empty. */
    public void cutShort() {
        cutShort = true;
    }

    /**
     * The halves of every formal step that had windows, keyed {@code formal#<stepIndex>}; empty when the windows were
     * cut short (a half read in part would be judged on what happened to be read).
     */
    public Map<String, Half[]> halves() {
        Map<String, Half[]> out = new HashMap<>();
        if (cutShort) {
            return Map.of();
        }
        counts.forEach((k, c) -> {
            Histogram[] h = hists.get(k);
            out.put(k, new Half[] {half(c[0], c[1], h == null ? null : h[0]), half(c[2], c[3], h == null ? null : h[1])});
        });
        return Map.copyOf(out);
    }

    /** The key of a step in {@link #halves()}. */
    public static String key(String stage, int stepIndex) {
        return stage + "#" + stepIndex;
    }

    private static Half half(long requests, long errors, Histogram h) {
        return new Half(requests, errors, h == null || h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(99.0) / 1000.0);
    }
}
