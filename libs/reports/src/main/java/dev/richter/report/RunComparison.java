package dev.richter.report;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * One run's report compared with a baseline run's (DESIGN.md §1 "Run comparison"): {@code GET /runs/{runId}/compare},
 * the report's "since the last run" section and {@code ./richter run}'s exit code 2.
 *
 * <p>Both sides are stored report documents (the report function's {@code Report} as JSON, {@link ReportRepository#get}),
 * so a comparison reads only what the reports hold. Steps are matched by stage and target rate: the pre-test, warm-up
 * and formal steps of equal {@code targetQps} are compared pairwise in run order; a step of one run with no step of
 * that rate in the other is listed as unmatched. A step that sent nothing on either side is compared but never
 * flagged, and neither is a warm-up step: the warm-up is kept apart from the figures (DESIGN.md, "warm-up"), its
 * first seconds meet cold caches and connection pools, so its changes are shown but never a regression.
 *
 * <p>A regression ({@link RegressionThresholds}) is flagged when, beyond the thresholds: the capacity falls (only when this run
 * measured a reached capacity, since a lower bound "≥ N QPS" cannot be said to fall); or, for a matched step that sent
 * requests in both runs, p99 latency rises (by more than both the relative and the absolute bound, so that a 2 ms p99
 * doubling to 4 ms is no regression) or the error rate rises.
 *
 * @param runId          the run compared
 * @param baselineRunId  the run it is compared with
 * @param planId         this run's plan
 * @param baselinePlanId the baseline's plan (the same plan when the baseline is {@code previous})
 * @param thresholds     the bounds applied
 * @param steps          every matched step, in this run's order
 * @param unmatched      steps of either run with no step of equal rate in the other, as text ({@code formal at 80 QPS
 *                       (only in run-…)})
 * @param whole          the whole run side by side
 * @param regressions    each regression, one sentence with both figures and its threshold; empty: none
 * @param regressed      true when {@code regressions} is not empty
 */
public record RunComparison(String runId, String baselineRunId, String planId, String baselinePlanId,
                            RegressionThresholds thresholds, List<StepComparison> steps, List<String> unmatched, Whole whole,
                            List<String> regressions, boolean regressed) {
    public RunComparison {
        steps = List.copyOf(steps);
        unmatched = List.copyOf(unmatched);
        regressions = List.copyOf(regressions);
    }

    /**
     * The bounds beyond which a change is a regression; {@link #DEFAULT} holds the defaults.
     *
     * @param capacityDropPct     the capacity falls by more than this share of the baseline's, percent (default 10)
     * @param p99RisePct          a step's p99 rises by more than this share of the baseline's, percent (default 20)...
     * @param p99RiseMs           ...and by more than this, milliseconds (default 20)
     * @param errorRateRisePoints a step's error rate (100 − success rate) rises by more than this, percentage points
     *                            (default 1)
     */
    public record RegressionThresholds(double capacityDropPct, double p99RisePct, double p99RiseMs, double errorRateRisePoints) {
        /** 10 % capacity, p99 +20 % and +20 ms, error rate +1 point. */
        public static final RegressionThresholds DEFAULT = new RegressionThresholds(10, 20, 20, 1);
    }

    /**
     * A figure of this run and of the baseline; either may be null when its side did not record it.
     *
     * @param run      this run's value
     * @param baseline the baseline's value
     */
    public record Pair<T>(T run, T baseline) {}

    /**
     * One step of equal rate in both runs.
     *
     * @param stage        {@code warm-up}, {@code pre-test} or {@code formal}
     * @param stepIndex    this run's {@code stepIndex} (0-based in its stage)
     * @param targetQps    the rate both planned, requests per second
     * @param achievedQps  requests sent per second of the sending window
     * @param p50Ms        median latency from the due time, milliseconds (null when nothing answered)
     * @param p99Ms        99th percentile latency from the due time, milliseconds (null when nothing answered)
     * @param errorRatePct 100 − success rate, percent (null when nothing was sent)
     * @param verdicts     each module's worst verdict while the step ran ({@code HEALTHY}, {@code SUSPECT},
     *                     {@code DAMAGED}), by module
     * @param regressions  this step's regressions, as in {@link RunComparison#regressions()}
     */
    public record StepComparison(String stage, int stepIndex, double targetQps, Pair<Double> achievedQps, Pair<Double> p50Ms,
                                 Pair<Double> p99Ms, Pair<Double> errorRatePct, Pair<Map<String, String>> verdicts,
                                 List<String> regressions) {}

    /**
     * The whole run side by side.
     *
     * @param outcome              the run's outcome ({@code PASSED}, {@code ABORTED}, ...)
     * @param capacityQps          max sustainable rate, requests per second (null when not measured)
     * @param capacity             the capacity as the report states it ({@code 60 QPS}, {@code ≥ 80 QPS},
     *                             {@code not measured})
     * @param failureMode          the failure mode's kind
     * @param resilience           each defence's status ({@code HOLDS}, {@code WEAK}, {@code FAILS},
     *                             {@code NOT_OBSERVED}), by defence
     * @param confidence           the confidence score, 0..1
     */
    public record Whole(Pair<String> outcome, Pair<Double> capacityQps, Pair<String> capacity, Pair<String> failureMode,
                        Pair<Map<String, String>> resilience, Pair<Double> confidence) {}

    /**
     * Compares two stored reports.
     *
     * @param run        this run's report document
     * @param baseline   the baseline run's report document
     * @param thresholds the regression bounds
     * @return the comparison; never null
     */
    public static RunComparison of(JsonNode run, JsonNode baseline, RegressionThresholds thresholds) {
        List<StepComparison> steps = new ArrayList<>();
        List<String> unmatched = new ArrayList<>();
        List<String> regressions = new ArrayList<>();
        String runId = run.path("runId").asText();
        String baselineRunId = baseline.path("runId").asText();
        for (String stage : List.of("preTest", "warmUp", "formal", "confirm")) {
            Map<Double, List<JsonNode>> baselineByRate = byRate(baseline.path(stage));
            for (JsonNode step : run.path(stage)) {
                List<JsonNode> peers = baselineByRate.getOrDefault(step.path("targetQps").asDouble(), new ArrayList<>());
                if (peers.isEmpty()) {
                    unmatched.add(label(step) + " (only in " + runId + ")");
                    continue;
                }
                StepComparison c = step(step, peers.remove(0), run.path("verdicts"), baseline.path("verdicts"), thresholds,
                        !stage.equals("warmUp"));
                steps.add(c);
                regressions.addAll(c.regressions());
            }
            baselineByRate.values().forEach(rest -> rest.forEach(s -> unmatched.add(label(s) + " (only in " + baselineRunId + ")")));
        }
        Whole whole = whole(run, baseline);
        JsonNode cap = run.path("capacity");
        JsonNode baseCap = baseline.path("capacity");
        if (cap.path("measured").asBoolean() && cap.path("reached").asBoolean() && baseCap.path("measured").asBoolean()) {
            double now = cap.path("maxSustainableQps").asDouble();
            double before = baseCap.path("maxSustainableQps").asDouble();
            if (before > 0 && now < before * (1 - thresholds.capacityDropPct() / 100)) {
                regressions.add(0, String.format(Locale.ROOT, "capacity fell from %s to %s (%.0f %%, more than %s %%)",
                        whole.capacity().baseline(), whole.capacity().run(), 100 * (before - now) / before,
                        num(thresholds.capacityDropPct())));
            }
        }
        return new RunComparison(runId, baselineRunId, run.path("planId").asText(), baseline.path("planId").asText(),
                thresholds, steps, unmatched, whole, regressions, !regressions.isEmpty());
    }

    private static StepComparison step(JsonNode step, JsonNode base, JsonNode verdicts, JsonNode baseVerdicts,
                                       RegressionThresholds t, boolean flagged) {
        String label = label(step);
        Double p99 = latency(step, "p99");
        Double baseP99 = latency(base, "p99");
        Double errors = errorRatePct(step);
        Double baseErrors = errorRatePct(base);
        List<String> regressions = new ArrayList<>();
        if (flagged && p99 != null && baseP99 != null && p99 - baseP99 > t.p99RiseMs() && p99 > baseP99 * (1 + t.p99RisePct() / 100)) {
            regressions.add(String.format(Locale.ROOT, "%s: p99 rose from %s ms to %s ms (more than %s %% and %s ms)", label, num(baseP99),
                    num(p99), num(t.p99RisePct()), num(t.p99RiseMs())));
        }
        if (flagged && errors != null && baseErrors != null && errors - baseErrors > t.errorRateRisePoints()) {
            regressions.add(String.format(Locale.ROOT, "%s: error rate rose from %s %% to %s %% (more than %s points)", label,
                    num(baseErrors), num(errors), num(t.errorRateRisePoints())));
        }
        return new StepComparison(step.path("stage").asText(), step.path("stepIndex").asInt(), step.path("targetQps").asDouble(),
                new Pair<>(step.path("achievedQps").asDouble(), base.path("achievedQps").asDouble()),
                new Pair<>(latency(step, "p50"), latency(base, "p50")), new Pair<>(p99, baseP99),
                new Pair<>(errors, baseErrors), new Pair<>(worstVerdicts(step, verdicts), worstVerdicts(base, baseVerdicts)),
                regressions);
    }

    private static Whole whole(JsonNode run, JsonNode baseline) {
        return new Whole(new Pair<>(run.path("outcome").asText(), baseline.path("outcome").asText()),
                new Pair<>(capacityQps(run), capacityQps(baseline)), new Pair<>(capacityText(run), capacityText(baseline)),
                new Pair<>(run.path("failureMode").path("kind").asText(), baseline.path("failureMode").path("kind").asText()),
                new Pair<>(resilience(run), resilience(baseline)),
                new Pair<>(run.path("confidence").path("score").asDouble(), baseline.path("confidence").path("score").asDouble()));
    }

    /** The stage's steps by target rate, each list in run order. */
    private static Map<Double, List<JsonNode>> byRate(JsonNode steps) {
        Map<Double, List<JsonNode>> out = new TreeMap<>();
        steps.forEach(s -> out.computeIfAbsent(s.path("targetQps").asDouble(), q -> new ArrayList<>()).add(s));
        return out;
    }

    /** {@code formal step 2 at 40 QPS}: a step of a report document, numbered from 1 as the report's text numbers it. */
    public static String label(JsonNode step) {
        return step.path("stage").asText() + " step " + (step.path("stepIndex").asInt() + 1) + " at "
                + num(step.path("targetQps").asDouble()) + " QPS";
    }

    private static Double latency(JsonNode step, String quantile) {
        JsonNode v = step.path("latencyMs").path(quantile);
        return v.isNumber() && step.path("counters").path("sent").asLong() > 0 ? v.asDouble() : null;
    }

    private static Double errorRatePct(JsonNode step) {
        return step.path("counters").path("sent").asLong() > 0 ? 100 - step.path("successRatePct").asDouble() : null;
    }

    private static Double capacityQps(JsonNode report) {
        JsonNode cap = report.path("capacity");
        return cap.path("measured").asBoolean() ? cap.path("maxSustainableQps").asDouble() : null;
    }

    private static String capacityText(JsonNode report) {
        JsonNode cap = report.path("capacity");
        if (!cap.path("measured").asBoolean()) {
            return "not measured";
        }
        return (cap.path("reached").asBoolean() ? "" : "≥ ") + num(cap.path("maxSustainableQps").asDouble()) + " QPS";
    }

    private static Map<String, String> resilience(JsonNode report) {
        Map<String, String> out = new LinkedHashMap<>();
        report.path("resilience").path("findings").forEach(f -> out.put(f.path("defence").asText(), f.path("status").asText()));
        return out;
    }

    /**
     * Each module's worst verdict while the step ran: the state in force at the step's first due time and every change
     * up to its end ({@code startedAtMs}..{@code endedAtMs}).
     */
    static Map<String, String> worstVerdicts(JsonNode step, JsonNode verdicts) {
        long from = step.path("startedAtMs").asLong();
        long to = step.path("endedAtMs").asLong();
        Map<String, String> inForce = new TreeMap<>();
        Map<String, String> worst = new TreeMap<>();
        for (JsonNode v : verdicts) {
            long at = v.path("atMs").asLong();
            String module = v.path("module").asText();
            String state = v.path("state").asText();
            if (at <= from) {
                inForce.put(module, state);
            } else if (at <= to) {
                worst.merge(module, state, RunComparison::worse);
            }
        }
        inForce.forEach((module, state) -> worst.merge(module, state, RunComparison::worse));
        return worst;
    }

    private static String worse(String a, String b) {
        return rank(a) >= rank(b) ? a : b;
    }

    private static int rank(String state) {
        return switch (state) {
            case "DAMAGED" -> 2;
            case "SUSPECT" -> 1;
            default -> 0;
        };
    }

    /** A figure as people read it: at most one decimal, none when whole ({@code 40}, {@code 35.9}). */
    public static String num(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }
}
