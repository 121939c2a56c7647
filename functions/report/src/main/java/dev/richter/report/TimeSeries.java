package dev.richter.report;

import dev.richter.common.model.HistogramCodec;
import dev.richter.common.model.WindowAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.HdrHistogram.Histogram;

/**
 * The run over time, from the load driver's per-second windows (run-metrics items {@code window#...}, attributes in
 * {@link WindowAttributes}), in columns as the page's charts take them: one row per bucket of {@link #bucketS()}
 * seconds, a {@code null} row where no window was stored (between steps), so lines break instead of bridging gaps.
 *
 * <p>Percentiles of a bucket come from the merged histograms of every window in it (never from averaged
 * percentiles); rates are the bucket's sum divided by the seconds that had a window. A long run gets buckets of
 * several seconds so that the page stays under {@link #MAX_POINTS} rows (the report item must fit DynamoDB's 400 KB).
 *
 * @param bucketS        seconds per row, ≥ 1
 * @param epochS         bucket start, epoch seconds, ascending
 * @param targetQps      the step's planned rate, requests per second
 * @param achievedQps    sent requests per second when every window of the bucket recorded {@code sent}, else
 *                       completed requests (outcomes observed) per second: see {@link #achievedCounts()}
 * @param p50Ms          median latency from the due time, milliseconds ({@code null}: nothing answered)
 * @param p90Ms          90th percentile, milliseconds
 * @param p99Ms          99th percentile, milliseconds
 * @param errorsPerS     failed outcomes per second (all kinds)
 * @param errorsByKindPerS per kind of {@link WindowAttributes#ERROR_KINDS} that some window recorded: per second;
 *                       empty when the load driver recorded no kinds (the page then charts {@link #errorsPerS()} only)
 * @param achievedCounts {@code sent} or {@code completed}: what {@link #achievedQps()} counts
 * @param marks          step boundaries and verdict changes, in time order
 * @param note           what the series lacks or how it was cut, for the page; {@code ""} when nothing
 */
public record TimeSeries(int bucketS, List<Long> epochS, List<Double> targetQps, List<Double> achievedQps,
                         List<Double> p50Ms, List<Double> p90Ms, List<Double> p99Ms, List<Double> errorsPerS,
                         Map<String, List<Double>> errorsByKindPerS, String achievedCounts, List<Mark> marks,
                         String note) {
    /** Most rows a series has; a longer run gets wider buckets. 900 = 15 minutes at one second. */
    public static final int MAX_POINTS = 900;
    /** A series with no row. */
    public static final TimeSeries EMPTY = new TimeSeries(1, List.of(), List.of(), List.of(), List.of(), List.of(),
            List.of(), List.of(), Map.of(), "completed", List.of(), "no per-second window was stored");

    public TimeSeries {
        marks = marks == null ? List.of() : List.copyOf(marks);
        errorsByKindPerS = errorsByKindPerS == null ? Map.of() : errorsByKindPerS;
        note = note == null ? "" : note;
    }

    /** True when the series has no row. */
    public boolean isEmpty() {
        return epochS.isEmpty();
    }

    /** The same series with these marks. */
    public TimeSeries withMarks(List<Mark> newMarks) {
        return new TimeSeries(bucketS, epochS, targetQps, achievedQps, p50Ms, p90Ms, p99Ms, errorsPerS, errorsByKindPerS,
                achievedCounts, newMarks, note);
    }

    /** The same series with this note. */
    public TimeSeries withNote(String newNote) {
        return new TimeSeries(bucketS, epochS, targetQps, achievedQps, p50Ms, p90Ms, p99Ms, errorsPerS, errorsByKindPerS,
                achievedCounts, marks, newNote);
    }

    /**
     * A vertical mark on the time axis.
     *
     * @param atMs  epoch ms
     * @param kind  {@code step} (a step's first due time) or {@code verdict} (a module's verdict changed)
     * @param label e.g. {@code "step 2 · 40 QPS"} or {@code "inventory DAMAGED"}
     * @param state for verdicts HEALTHY, SUSPECT or DAMAGED; {@code ""} for steps
     */
    public record Mark(long atMs, String kind, String label, String state) {}

    /**
     * One window item as stored.
     *
     * @param stage       {@code pre-test} or {@code formal}
     * @param stepIndex   step within the stage, 0-based
     * @param epochSecond the window's second
     * @param count       outcomes observed in it
     * @param errors      of which failed
     * @param hist        latency-from-due histogram, {@link HistogramCodec} encoding; {@code ""} when absent
     * @param optional    the optional counts present on the item ({@link WindowAttributes#SENT} and error kinds)
     */
    public record StoredWindow(String stage, int stepIndex, long epochSecond, long count, long errors, String hist,
                         Map<String, Long> optional) {
        public StoredWindow {
            hist = hist == null ? "" : hist;
            optional = optional == null ? Map.of() : Map.copyOf(optional);
        }
    }

    /**
     * Bucket width for a run of {@code runS} seconds: 1 s up to {@link #MAX_POINTS} seconds, else the smallest width
     * that keeps the rows at most {@link #MAX_POINTS}.
     */
    public static int bucketSFor(long runS) {
        return (int) Math.max(1, (runS + MAX_POINTS - 1) / MAX_POINTS);
    }

    /**
     * Builds a series from windows arriving in sort-key order (stage, step, second): one histogram is open at a
     * time, so a run of any length is read in constant memory. Windows out of that order still work, at the cost of
     * keeping a few buckets open.
     */
    public static final class Builder {
        private final int bucketS;
        private final Map<String, Double> targetByStep;
        private final LinkedHashMap<String, OpenBucket> open = new LinkedHashMap<>();
        private final TreeMap<Long, BucketRow> rows = new TreeMap<>();
        private final Set<String> kindsSeen = new TreeSet<>();
        private int overlapping;

        /**
         * @param bucketS      seconds per row ({@link #bucketSFor})
         * @param targetByStep each step's planned QPS by {@code <stage>#<stepIndex>}
         */
        public Builder(int bucketS, Map<String, Double> targetByStep) {
            this.bucketS = Math.max(1, bucketS);
            this.targetByStep = Map.copyOf(targetByStep);
        }

        /** Adds one window. */
        public Builder add(StoredWindow w) {
            long start = Math.floorDiv(w.epochSecond(), bucketS) * bucketS;
            String key = w.stage() + "#" + w.stepIndex() + "#" + start;
            OpenBucket acc = open.get(key);
            if (acc == null) {
                while (open.size() >= 2) {
                    Iterator<OpenBucket> oldest = open.values().iterator();
                    close(oldest.next());
                    oldest.remove();
                }
                acc = new OpenBucket(w.stage(), w.stepIndex(), start);
                open.put(key, acc);
            }
            acc.add(w);
            w.optional().keySet().stream().filter(WindowAttributes.ERROR_KINDS::contains).forEach(kindsSeen::add);
            return this;
        }

        /** The series (without marks: {@link #withMarks} adds them). */
        public TimeSeries build() {
            open.values().forEach(this::close);
            open.clear();
            if (rows.isEmpty()) {
                return EMPTY;
            }
            List<Long> t = new ArrayList<>();
            List<Double> target = new ArrayList<>();
            List<Double> achieved = new ArrayList<>();
            List<Double> p50 = new ArrayList<>();
            List<Double> p90 = new ArrayList<>();
            List<Double> p99 = new ArrayList<>();
            List<Double> errors = new ArrayList<>();
            Map<String, List<Double>> kinds = new LinkedHashMap<>();
            WindowAttributes.ERROR_KINDS.stream().filter(kindsSeen::contains).forEach(k -> kinds.put(k, new ArrayList<>()));
            boolean allSent = rows.values().stream().allMatch(r -> r.sentPerS != null);
            Long previous = null;
            for (BucketRow r : rows.values()) {
                if (previous != null && r.epochS > previous + bucketS) {
                    t.add(previous + bucketS);
                    for (List<Double> col : List.of(target, achieved, p50, p90, p99, errors)) {
                        col.add(null);
                    }
                    kinds.values().forEach(col -> col.add(null));
                }
                t.add(r.epochS);
                target.add(r.targetQps);
                achieved.add(allSent ? r.sentPerS : r.completedPerS);
                p50.add(r.p50);
                p90.add(r.p90);
                p99.add(r.p99);
                errors.add(r.errorsPerS);
                kinds.forEach((k, col) -> col.add(r.kindsPerS.get(k)));
                previous = r.epochS;
            }
            List<String> notes = new ArrayList<>();
            if (kinds.isEmpty()) {
                notes.add("errors by kind per second were not recorded by the load driver: the chart shows all errors;"
                        + " each step's errors by kind are in the steps table");
            }
            if (!allSent) {
                notes.add("achieved QPS counts completed requests per second (the load driver did not record sends per second)");
            }
            if (overlapping > 0) {
                notes.add(overlapping + " buckets had windows of two steps; the one with more requests is shown");
            }
            if (bucketS > 1) {
                notes.add("one row per " + bucketS + " s (the run is longer than " + MAX_POINTS + " s)");
            }
            return new TimeSeries(bucketS, t, target, achieved, p50, p90, p99, errors, kinds, allSent ? "sent" : "completed",
                    List.of(), String.join("; ", notes));
        }

        private void close(OpenBucket acc) {
            BucketRow row = acc.row(bucketS, targetByStep.getOrDefault(acc.stage + "#" + acc.stepIndex, null));
            BucketRow there = rows.get(acc.start);
            if (there != null) {
                overlapping++;
                if (there.count >= row.count) {
                    return;
                }
            }
            rows.put(acc.start, row);
        }
    }

    private record BucketRow(long epochS, long count, Double targetQps, Double sentPerS, double completedPerS, Double p50,
                       Double p90, Double p99, double errorsPerS, Map<String, Double> kindsPerS) {}

    /** One open bucket of one step. */
    private static final class OpenBucket {
        final String stage;
        final int stepIndex;
        final long start;
        final Histogram hist = HistogramCodec.newLatencyHistogramUs();
        final Set<Long> seconds = new HashSet<>();
        final Map<String, long[]> kinds = new TreeMap<>();
        long count;
        long errors;
        long sent;
        boolean sentEverywhere = true;
        int windows;

        OpenBucket(String stage, int stepIndex, long start) {
            this.stage = stage;
            this.stepIndex = stepIndex;
            this.start = start;
        }

        void add(StoredWindow w) {
            windows++;
            seconds.add(w.epochSecond());
            count += w.count();
            errors += w.errors();
            if (!w.hist().isEmpty()) {
                hist.add(HistogramCodec.decode(w.hist()));
            }
            Long s = w.optional().get(WindowAttributes.SENT);
            if (s == null) {
                sentEverywhere = false;
            } else {
                sent += s;
            }
            for (String k : WindowAttributes.ERROR_KINDS) {
                Long v = w.optional().get(k);
                long[] acc = kinds.computeIfAbsent(k, x -> new long[2]);
                if (v != null) {
                    acc[0] += v;
                    acc[1]++;
                }
            }
        }

        BucketRow row(int bucketS, Double target) {
            double span = Math.max(1, seconds.size());
            Map<String, Double> perS = new LinkedHashMap<>();
            kinds.forEach((k, acc) -> {
                if (acc[1] == windows) {
                    perS.put(k, acc[0] / span);
                }
            });
            boolean any = hist.getTotalCount() > 0;
            return new BucketRow(start, count, target, sentEverywhere ? sent / span : null, count / span,
                    any ? hist.getValueAtPercentile(50) / 1000.0 : null, any ? hist.getValueAtPercentile(90) / 1000.0 : null,
                    any ? hist.getValueAtPercentile(99) / 1000.0 : null, errors / span, perS);
        }
    }
}
