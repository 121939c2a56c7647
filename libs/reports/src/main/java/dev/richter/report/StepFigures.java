package dev.richter.report;

import dev.richter.common.model.Counters;
import dev.richter.common.model.HistogramCodec;
import dev.richter.common.model.WorkerResult;
import dev.richter.sizing.RunLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * The figures of one step, merged over its workers.
 *
 * <p>Histograms are merged ({@link Histogram#add}) and the quantiles taken from the merged
 * histogram; percentiles are never averaged (corpus {@code bugs/19-percentile-merge.json}).
 * Achieved QPS is requests sent divided by the step's sending window ({@link #sendingWindowS}): the planned duration
 * for a step that ran to its end; for an aborted step, from its first due time to its last send across the workers
 * plus one send interval (1 / target), at most the planned duration. The drain (requests in flight answering or
 * timing out after the last send) is not in the window.
 *
 * @param stage              {@code pre-test} or {@code formal}
 * @param stepIndex          step within the stage
 * @param targetQps          planned rate, requests per second
 * @param durationS          planned duration, seconds
 * @param workersExpected    worker invocations the step started: workers per leg × legs
 * @param workersReported    worker invocations whose results were stored
 * @param missingWorkers     names ({@code leg <l+1>/worker <k>}) of worker invocations with no stored result (died,
 *                           timed out)
 * @param achievedQps        sent requests per second
 * @param rateErrorPct       |achieved − target| / target × 100
 * @param counters           summed counters
 * @param successRatePct     ok / sent × 100 (0 when nothing was sent)
 * @param latencyMs          quantiles of latency from the intended (due) time, milliseconds
 * @param latencyFromSendMs  quantiles of latency from the actual send time, milliseconds
 * @param aborted            true when any worker stopped on the abort flag
 * @param startedAtMs        epoch ms of the step's first due time
 * @param endedAtMs          epoch ms when the last worker finished accounting
 * @param mergedHistogram    merged latency-from-due histogram, compressed base64 (for re-merging)
 * @param legs               legs the step ran in (one Lambda invocation per worker per leg)
 * @param lateWorkers        workers that were ready after their first due time, by name, with how late they were
 *                           and how many requests they sent late ({@link WorkerResult#startLagMs()} over the
 *                           lateness tolerance)
 * @param unsentAtTimeLimit  requests not sent because a worker's invocation ran out of time (also in dropped)
 * @param inFlightCap        the highest in-flight cap of the step's workers, requests per worker
 *                           ({@link WorkerResult#inFlightCap()}); 0 when no result said it
 * @param peakInFlight       the most requests one of the step's workers had in flight at once, requests
 *                           ({@link WorkerResult#peakInFlight()}): equal to {@code inFlightCap} when the cap bound (the
 *                           requests due meanwhile are in {@code dropped}); 0 when no result said it
 */
public record StepFigures(String stage, int stepIndex, double targetQps, int durationS, int workersExpected,
                          int workersReported, List<String> missingWorkers, double achievedQps, double rateErrorPct,
                          Counters counters, double successRatePct, Map<String, Double> latencyMs,
                          Map<String, Double> latencyFromSendMs, boolean aborted, long startedAtMs, long endedAtMs,
                          String mergedHistogram, int legs, List<LateWorker> lateWorkers, long unsentAtTimeLimit,
                          int inFlightCap, int peakInFlight) {

    /** Figures whose in-flight cap and peak are not known (0). */
    public StepFigures(String stage, int stepIndex, double targetQps, int durationS, int workersExpected,
                       int workersReported, List<String> missingWorkers, double achievedQps, double rateErrorPct,
                       Counters counters, double successRatePct, Map<String, Double> latencyMs,
                       Map<String, Double> latencyFromSendMs, boolean aborted, long startedAtMs, long endedAtMs,
                       String mergedHistogram, int legs, List<LateWorker> lateWorkers, long unsentAtTimeLimit) {
        this(stage, stepIndex, targetQps, durationS, workersExpected, workersReported, missingWorkers, achievedQps,
                rateErrorPct, counters, successRatePct, latencyMs, latencyFromSendMs, aborted, startedAtMs, endedAtMs,
                mergedHistogram, legs, lateWorkers, unsentAtTimeLimit, 0, 0);
    }

    /** Whether a worker of this step had as many requests in flight as its cap allowed, so that the cap bound. */
    public boolean inFlightCapBound() {
        return inFlightCap > 0 && peakInFlight >= inFlightCap;
    }

    /** A worker ready later than this after its first due time is late, milliseconds (the load driver's tolerance). */
    public static final long LATE_START_TOLERANCE_MS = RunLayout.LATENESS_TOLERANCE_MS;

    /**
     * A worker that was not ready when its first request was due.
     *
     * @param worker       its name, {@code <stage>/step <i+1>/leg <l+1>/worker <k>}
     * @param startLagMs   how late it was ready, milliseconds after its first due time
     * @param lateRequests requests it sent late
     */
    public record LateWorker(String worker, long startLagMs, long lateRequests) {}

    /** Quantiles reported for every step, as percentiles. */
    public static final double[] PERCENTILES = {50, 90, 95, 99, 99.9};

    /**
     * Merges the results of one step over all its legs and workers. The leg count is the highest leg seen + 1: a leg
     * none of whose workers stored anything shows as the step's missing requests (rate error), not as missing workers.
     *
     * @param durationS planned duration of the step, seconds
     * @param results   the step's stored worker results (all with the same stage and step index), non-empty
     */
    public static StepFigures merge(int durationS, List<WorkerResult> results) {
        return merge(durationS, results, 0);
    }

    /**
     * As {@link #merge(int, List)}, for a step whose stored plan says how many legs it started: a leg none of whose
     * workers stored anything then shows as missing workers too, unless the step was aborted (the legs still waiting
     * to launch were stopped on purpose).
     *
     * @param legCount legs the step started ({@code StepPlan.legCount}); 0 when unknown
     */
    public static StepFigures merge(int durationS, List<WorkerResult> results, int legCount) {
        WorkerResult first = results.get(0);
        Histogram intended = HistogramCodec.newLatencyHistogramUs();
        Histogram fromSend = HistogramCodec.newLatencyHistogramUs();
        Counters sum = Counters.ZERO;
        boolean aborted = false;
        long startedAtMs = Long.MAX_VALUE;
        long endedAtMs = 0;
        long lastSentAtMs = 0;
        int legsSeen = results.stream().mapToInt(WorkerResult::legIndex).max().orElse(0) + 1;
        // After an abort the legs still waiting to launch were stopped on purpose: they are not missing.
        boolean abortedStep = results.stream().anyMatch(WorkerResult::aborted);
        int legs = abortedStep ? legsSeen : Math.max(legCount, legsSeen);
        boolean[] seen = new boolean[first.workerCount() * legs];
        List<LateWorker> late = new ArrayList<>();
        long unsent = 0;
        int inFlightCap = 0;
        int peakInFlight = 0;
        for (WorkerResult r : results) {
            inFlightCap = Math.max(inFlightCap, r.inFlightCap());
            peakInFlight = Math.max(peakInFlight, r.peakInFlight());
            if (r.startLagMs() > LATE_START_TOLERANCE_MS) {
                late.add(new LateWorker(r.workerName(), r.startLagMs(), r.counters().late()));
            }
            unsent += r.unsentAtTimeLimit();
            if (r.latencyFromIntendedHist() != null) {
                intended.add(HistogramCodec.decode(r.latencyFromIntendedHist()));
            }
            if (r.latencyFromSendHist() != null) {
                fromSend.add(HistogramCodec.decode(r.latencyFromSendHist()));
            }
            sum = sum.plus(r.counters());
            aborted |= r.aborted();
            startedAtMs = Math.min(startedAtMs, r.startedAtMs());
            endedAtMs = Math.max(endedAtMs, r.endedAtMs());
            lastSentAtMs = Math.max(lastSentAtMs, r.lastSentAtMs());
            int slot = r.legIndex() * first.workerCount() + r.workerIndex();
            if (r.workerIndex() >= 0 && r.workerIndex() < first.workerCount() && r.legIndex() >= 0) {
                seen[slot] = true;
            }
        }
        List<String> missing = new ArrayList<>();
        for (int slot = 0; slot < seen.length; slot++) {
            if (!seen[slot]) {
                missing.add("leg " + (slot / first.workerCount() + 1) + "/worker " + slot % first.workerCount());
            }
        }
        double target = first.targetQps();
        double ranS = sendingWindowS(durationS, target, aborted, startedAtMs, lastSentAtMs, endedAtMs);
        double achieved = ranS <= 0 ? 0 : sum.sent() / ranS;
        return new StepFigures(first.stage(), first.stepIndex(), target, durationS, seen.length,
                seen.length - missing.size(), missing, achieved,
                target == 0 ? 0 : 100.0 * Math.abs(achieved - target) / target, sum,
                sum.sent() == 0 ? 0 : 100.0 * sum.ok() / sum.sent(), quantilesMs(intended), quantilesMs(fromSend),
                aborted, startedAtMs, endedAtMs, HistogramCodec.encode(intended), legs, late, unsent, inFlightCap,
                peakInFlight);
    }

    /**
     * This step with {@code n} more of its ok answers found served by a fallback ({@link Counters#withFallbacks}): out
     * of the success rate, so out of the capacity criteria too, as check failures are.
     */
    /**
     * The same step judged on a part of its send window: its success rate (percent) and latency quantiles
     * (milliseconds) replaced, its counters kept. The report judges a confirm step on its second half, the first being
     * its settle after the overload of the step before it ({@code ReportBuilder.settled}).
     */
    public StepFigures judgedOn(double successRatePct, Map<String, Double> latencyMs) {
        return new StepFigures(stage, stepIndex, targetQps, durationS, workersExpected, workersReported, missingWorkers,
                achievedQps, rateErrorPct, counters, successRatePct, latencyMs, latencyFromSendMs, aborted, startedAtMs,
                endedAtMs, mergedHistogram, legs, lateWorkers, unsentAtTimeLimit, inFlightCap, peakInFlight);
    }

    public StepFigures withFallbacks(long n) {
        Counters c = counters.withFallbacks(n);
        return new StepFigures(stage, stepIndex, targetQps, durationS, workersExpected, workersReported, missingWorkers,
                achievedQps, rateErrorPct, c, c.sent() == 0 ? 0 : 100.0 * c.ok() / c.sent(), latencyMs, latencyFromSendMs,
                aborted, startedAtMs, endedAtMs, mergedHistogram, legs, lateWorkers, unsentAtTimeLimit, inFlightCap,
                peakInFlight);
    }

    /**
     * The window a step sent in, seconds: the planned duration when it ran to its end; when aborted, from its first
     * due time to its last send plus one send interval ({@code 1 / targetQps}, the last request's own share of the
     * window), at most the planned duration. Without a last send time (results stored before workers reported it) the
     * aborted window ends at the last worker's end, drain included.
     *
     * @param durationS    planned duration, seconds
     * @param targetQps    the step's target rate, requests per second
     * @param aborted      whether any worker stopped on the abort flag
     * @param startedAtMs  epoch ms of the step's first due time
     * @param lastSentAtMs epoch ms of the last send across the workers; 0 when unknown
     * @param endedAtMs    epoch ms when the last worker finished accounting
     */
    static double sendingWindowS(int durationS, double targetQps, boolean aborted, long startedAtMs, long lastSentAtMs,
                                 long endedAtMs) {
        if (!aborted) {
            return durationS;
        }
        if (lastSentAtMs > 0 && lastSentAtMs >= startedAtMs) {
            double interval = targetQps > 0 ? 1.0 / targetQps : 0;
            return Math.min(durationS, (lastSentAtMs - startedAtMs) / 1000.0 + interval);
        }
        return endedAtMs > startedAtMs ? Math.min(durationS, (endedAtMs - startedAtMs) / 1000.0) : durationS;
    }

    /**
     * The figures of a step that started (its plan was stored) but none of whose workers stored a result: every worker
     * missing, nothing sent, no latency.
     *
     * @param stage           stage
     * @param stepIndex       step within the stage
     * @param targetQps       planned rate
     * @param durationS       planned duration, seconds
     * @param workerCount     workers per leg
     * @param legCount        legs
     * @param stepStartMs     epoch ms of the step's first due time
     */
    public static StepFigures noResults(String stage, int stepIndex, double targetQps, int durationS, int workerCount,
                                        int legCount, long stepStartMs) {
        List<String> missing = new ArrayList<>();
        for (int slot = 0; slot < workerCount * legCount; slot++) {
            missing.add("leg " + (slot / workerCount + 1) + "/worker " + slot % workerCount);
        }
        return new StepFigures(stage, stepIndex, targetQps, durationS, workerCount * legCount, 0, missing, 0,
                targetQps == 0 ? 0 : 100, Counters.ZERO, 0, Map.of(), Map.of(), false, stepStartMs,
                stepStartMs + durationS * 1000L, "", legCount, List.of(), 0);
    }

    /** p50…p99.9 and max of a microsecond histogram, in milliseconds (keys {@code p50}, {@code p99.9}, {@code max}). */
    public static Map<String, Double> quantilesMs(Histogram h) {
        Map<String, Double> out = new TreeMap<>();
        if (h.getTotalCount() == 0) {
            return out;
        }
        for (double p : PERCENTILES) {
            String key = "p" + (p == Math.rint(p) ? String.valueOf((int) p) : String.valueOf(p));
            out.put(key, h.getValueAtPercentile(p) / 1000.0);
        }
        out.put("max", h.getMaxValue() / 1000.0);
        return out;
    }
}
