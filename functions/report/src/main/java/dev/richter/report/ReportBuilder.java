package dev.richter.report;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.MissingEvidence;
import dev.richter.common.model.Plan;
import dev.richter.common.model.Run;
import dev.richter.common.model.Verdict;
import dev.richter.common.model.WorkerResult;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Builds a {@link Report} from what the run stored. Plain Java.
 *
 * <p>Capacity criteria: a formal step is sustained when its success rate is at least
 * {@link #SUSTAINED_SUCCESS_PCT}, its p99 (from the intended time) is at most
 * {@link #SUSTAINED_P99_MS} and no module was DAMAGED during it (DESIGN.md §4 thresholds).
 * Failure mode at the first unsustained step: mostly fast 429/503 with a bounded p99 is graceful
 * shedding; timeouts or a p99 that grew more than {@link #COLLAPSE_P99_GROWTH}× over the
 * previous step is progressive collapse (DESIGN.md §6).
 */
public final class ReportBuilder {
    /** Minimum success rate of a sustained step, percent (DESIGN.md §4 default). */
    public static final double SUSTAINED_SUCCESS_PCT = 99.9;
    /** Maximum p99 of a sustained step, milliseconds (DESIGN.md §4 default). */
    public static final double SUSTAINED_P99_MS = 3000;
    /** p99 growth factor between consecutive steps that marks collapse. */
    public static final double COLLAPSE_P99_GROWTH = 2.0;
    /** Rate error above which a step's figures lose confidence, percent. */
    public static final double RATE_ERROR_TOLERANCE_PCT = 2.0;
    /** Confidence deducted per monitoring defect (module and defect) the run recorded. */
    public static final double MISSING_EVIDENCE_DEDUCTION = 0.05;
    /** Most confidence that monitoring defects can deduct together. */
    public static final double MISSING_EVIDENCE_MAX_DEDUCTION = 0.2;
    /** Requests below which a step's p99 is statistically thin. */
    public static final long MIN_SAMPLES_FOR_P99 = 100;

    private ReportBuilder() {}

    /**
     * @param run           the run (abort flag and reason)
     * @param plan          its plan
     * @param results       every stored worker result of the run
     * @param staticChecks  static check results
     * @param dynamicChecks dynamic check results
     * @param verdicts      stored verdicts
     * @param error         the state machine's caught error, or null
     * @param nowMs         epoch ms
     */
    public static Report build(Run run, Plan plan, List<WorkerResult> results, List<CheckResult> staticChecks,
                               List<CheckResult> dynamicChecks, List<Verdict> verdicts, String error, long nowMs) {
        return build(run, plan, results, staticChecks, dynamicChecks, verdicts, List.of(), error, nowMs);
    }

    /**
     * As {@link #build(Run, Plan, List, List, List, List, String, long)}, with the run's monitoring defects.
     *
     * @param missingEvidence monitoring defects the fault decider recorded ({@link MissingEvidence#summarise}):
     *                        each is a WARN in the report and deducts {@link #MISSING_EVIDENCE_DEDUCTION} from
     *                        confidence, at most {@link #MISSING_EVIDENCE_MAX_DEDUCTION} in all
     */
    public static Report build(Run run, Plan plan, List<WorkerResult> results, List<CheckResult> staticChecks,
                               List<CheckResult> dynamicChecks, List<Verdict> verdicts, List<MissingEvidence> missingEvidence,
                               String error, long nowMs) {
        Map<String, Map<Integer, List<WorkerResult>>> byStep = results.stream().collect(Collectors.groupingBy(
                WorkerResult::stage, TreeMap::new, Collectors.groupingBy(WorkerResult::stepIndex, TreeMap::new, Collectors.toList())));
        List<StepFigures> pre = figures(byStep.getOrDefault("pre-test", Map.of()), List.of(plan.preTest()));
        List<StepFigures> formal = figures(byStep.getOrDefault("formal", Map.of()), plan.formal());
        List<Verdict> ordered = changes(verdicts);

        String outcome;
        String reason;
        if (error != null && !error.isBlank()) {
            outcome = "ERROR";
            reason = error;
        } else if (CheckResult.worst(staticChecks) == CheckResult.Outcome.FAIL) {
            outcome = "STATIC_CHECKS_FAILED";
            reason = failures(staticChecks);
        } else if (CheckResult.worst(dynamicChecks) == CheckResult.Outcome.FAIL) {
            outcome = "PRE_TEST_FAILED";
            reason = failures(dynamicChecks);
        } else if (run.abortRequested()) {
            outcome = "ABORTED";
            reason = "aborted: " + run.abortReason();
        } else {
            outcome = "PASSED";
            reason = "all gates passed; " + formal.size() + " of " + plan.formal().size() + " formal steps ran";
        }
        return new Report(run.runId(), plan.planId(), plan.teamId(), plan.name(), outcome, reason, nowMs,
                staticChecks, dynamicChecks, pre, formal, plan.formal().size(), ordered,
                capacity(formal, ordered), failureMode(formal), confidence(pre, formal, plan, run, missingEvidence),
                missingEvidence);
    }

    /**
     * The verdict timeline: in time order, each module's first verdict and every change of state
     * (the decider stores one verdict per module per round; repeats carry no news).
     */
    static List<Verdict> changes(List<Verdict> verdicts) {
        Map<String, Verdict.State> last = new java.util.HashMap<>();
        List<Verdict> out = new ArrayList<>();
        for (Verdict v : verdicts.stream().sorted(Comparator.comparingLong(Verdict::atMs)).toList()) {
            if (last.put(v.module(), v.state()) != v.state()) {
                out.add(v);
            }
        }
        return out;
    }

    private static List<StepFigures> figures(Map<Integer, List<WorkerResult>> steps, List<Plan.StepSpec> planned) {
        List<StepFigures> out = new ArrayList<>();
        steps.forEach((index, rs) -> {
            int durationS = index < planned.size() ? planned.get(index).durationS() : 0;
            out.add(StepFigures.merge(durationS, rs));
        });
        return out;
    }

    /** Every failed check as {@code name (subject): evidence}, joined by {@code "; "}. */
    private static String failures(List<CheckResult> results) {
        return results.stream().filter(r -> r.outcome() == CheckResult.Outcome.FAIL)
                .map(r -> r.name() + " (" + r.subject() + "): " + r.evidence()).collect(Collectors.joining("; "));
    }

    /** The step met the criteria on what it sent (an abort cuts a step short but says nothing against it). */
    static boolean healthy(StepFigures f) {
        return f.successRatePct() >= SUSTAINED_SUCCESS_PCT && f.latencyMs().getOrDefault("p99", Double.MAX_VALUE) <= SUSTAINED_P99_MS;
    }

    /** The step ran to its end and met the criteria. */
    static boolean sustained(StepFigures f) {
        return healthy(f) && !f.aborted();
    }

    static Report.Capacity capacity(List<StepFigures> formal, List<Verdict> verdicts) {
        String criteria = String.format("success rate >= %.1f %%, p99 <= %.0f ms, not aborted", SUSTAINED_SUCCESS_PCT, SUSTAINED_P99_MS);
        if (formal.isEmpty()) {
            return new Report.Capacity(0, "no formal step ran", criteria);
        }
        double max = 0;
        for (StepFigures f : formal) {
            if (f.aborted() && healthy(f)) {
                return new Report.Capacity(max, String.format("the run was aborted during step %d at %.1f QPS, which was healthy"
                        + " until then: capacity is at least %.1f QPS", f.stepIndex(), f.targetQps(), max), criteria);
            }
            if (!sustained(f)) {
                return new Report.Capacity(max, String.format("step %d at %.1f QPS: success %.2f %%, p99 %.1f ms%s",
                        f.stepIndex(), f.targetQps(), f.successRatePct(), f.latencyMs().getOrDefault("p99", 0.0),
                        f.aborted() ? ", aborted" : ""), criteria);
            }
            max = f.targetQps();
        }
        long damaged = verdicts.stream().filter(v -> v.state() == Verdict.State.DAMAGED).count();
        return new Report.Capacity(max, "not reached: every formal step was sustained, so capacity is at least "
                + max + " QPS (the plan's highest step)"
                + (damaged > 0 ? " (" + damaged + " DAMAGED verdicts recorded)" : ""), criteria);
    }

    static Report.FailureMode failureMode(List<StepFigures> formal) {
        for (int i = 0; i < formal.size(); i++) {
            StepFigures f = formal.get(i);
            if (f.aborted() && healthy(f)) {
                return new Report.FailureMode("none observed", "the run was aborted during step " + f.stepIndex()
                        + " while every step so far was healthy");
            }
            if (sustained(f)) {
                continue;
            }
            long shed = f.counters().httpErrors().entrySet().stream()
                    .filter(e -> e.getKey().equals("429") || e.getKey().equals("503")).mapToLong(Map.Entry::getValue).sum();
            long errors = f.counters().errors();
            double p99 = f.latencyMs().getOrDefault("p99", 0.0);
            double prevP99 = i == 0 ? p99 : formal.get(i - 1).latencyMs().getOrDefault("p99", p99);
            String evidence = String.format("step %d: %d errors (%d fast 429/503, %d timeouts, %d connect), p99 %.1f ms vs %.1f ms before",
                    f.stepIndex(), errors, shed, f.counters().timeouts(), f.counters().connectErrors(), p99, prevP99);
            boolean latencyExploded = prevP99 > 0 && p99 > COLLAPSE_P99_GROWTH * prevP99;
            if (errors > 0 && shed * 2 >= errors && !latencyExploded) {
                return new Report.FailureMode("graceful shedding", evidence);
            }
            return new Report.FailureMode("progressive collapse", evidence);
        }
        return new Report.FailureMode("none observed", "every formal step that ran was sustained");
    }

    static Report.Confidence confidence(List<StepFigures> pre, List<StepFigures> formal, Plan plan, Run run) {
        return confidence(pre, formal, plan, run, List.of());
    }

    static Report.Confidence confidence(List<StepFigures> pre, List<StepFigures> formal, Plan plan, Run run,
                                        List<MissingEvidence> missingEvidence) {
        double score = 1.0;
        List<String> reasons = new ArrayList<>();
        List<StepFigures> all = new ArrayList<>(pre);
        all.addAll(formal);
        if (formal.isEmpty() && !plan.formal().isEmpty()) {
            score -= 0.8;
            reasons.add("-0.80: no formal step ran: there are no figures to judge capacity by");
        } else if (formal.size() < plan.formal().size()) {
            score -= 0.2;
            reasons.add(String.format("-0.20: %d of %d formal steps ran", formal.size(), plan.formal().size()));
        }
        for (StepFigures f : all) {
            String step = f.stage() + " step " + f.stepIndex();
            if (!f.missingWorkers().isEmpty()) {
                score -= 0.3;
                reasons.add("-0.30: " + step + " is missing workers " + f.missingWorkers());
            }
            if (f.rateErrorPct() > RATE_ERROR_TOLERANCE_PCT && !f.aborted()) {
                score -= 0.2;
                reasons.add(String.format("-0.20: %s achieved %.2f QPS for %.2f (%.1f %% off)", step, f.achievedQps(), f.targetQps(), f.rateErrorPct()));
            }
            if (!f.lateWorkers().isEmpty()) {
                score -= 0.1;
                reasons.add("-0.10: " + step + " had workers that started late: " + f.lateWorkers().stream()
                        .map(w -> w.worker() + " (" + w.startLagMs() + " ms, " + w.lateRequests() + " requests late)")
                        .toList());
            }
            if (f.unsentAtTimeLimit() > 0) {
                score -= 0.3;
                reasons.add("-0.30: " + step + " left " + f.unsentAtTimeLimit()
                        + " requests unsent when a worker's Lambda time ran out");
            }
            if (f.counters().dropped() > 0) {
                score -= 0.1;
                reasons.add("-0.10: " + step + " dropped " + f.counters().dropped() + " requests at the in-flight cap");
            }
            if (f.counters().sent() > 0 && f.counters().late() * 100 > f.counters().sent()) {
                score -= 0.1;
                reasons.add("-0.10: " + step + " sent " + f.counters().late() + " requests late");
            }
            if (f.counters().sent() < MIN_SAMPLES_FOR_P99 && f.stage().equals("formal")) {
                score -= 0.05;
                reasons.add("-0.05: " + step + " has only " + f.counters().sent() + " samples for its p99");
            }
        }
        double missingDeduction = 0;
        for (MissingEvidence m : missingEvidence) {
            double d = Math.min(MISSING_EVIDENCE_DEDUCTION, MISSING_EVIDENCE_MAX_DEDUCTION - missingDeduction);
            if (d <= 0) break;
            missingDeduction += d;
            score -= d;
            reasons.add(String.format(java.util.Locale.ROOT, "-%.2f: missing evidence for %s: %s", d, m.module(), m.describe()));
        }
        if (run.abortRequested()) {
            score -= 0.1;
            reasons.add("-0.10: the run was aborted (" + run.abortReason() + ")");
        }
        if (reasons.isEmpty()) {
            reasons.add("no deduction: every step ran with all workers, on rate, without drops");
        }
        return new Report.Confidence(Math.max(0, Math.round(score * 100) / 100.0), reasons);
    }
}
