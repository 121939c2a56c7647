package dev.richter.report;

import dev.richter.common.MonitorHeartbeat;
import dev.richter.common.model.CheckResult;
import dev.richter.common.model.MissingEvidence;
import dev.richter.common.model.Plan;
import dev.richter.common.model.Run;
import dev.richter.common.model.Stages;
import dev.richter.common.model.StepPlan;
import dev.richter.common.model.Verdict;
import dev.richter.common.model.WorkerResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.commons.math3.distribution.BinomialDistribution;

/**
 * Builds a {@link Report} from what the run stored. Plain Java.
 *
 * <p>Capacity criteria: a formal step is sustained when it sent requests, its success rate is at least
 * {@link #SUSTAINED_SUCCESS_PCT}, its p99 (from the intended time) is at most {@link #SUSTAINED_P99_MS}, it was not
 * aborted and every worker stored its result (DESIGN.md §4 thresholds). Capacity is "not measured" when no formal step
 * sent a request, or when a fault or an operator aborted the run before any formal step was sustained; after sustained
 * steps it is at least the last one's rate ({@link #faultCausedAbort}). The failure mode is decided by {@link ResilienceVerdict#failureMode} from the resilience findings,
 * never from a step that sent nothing.
 *
 * <p>Confidence starts at 1 and loses, each with its reason: 0.80 when no formal step sent a request, else 0.20 when
 * fewer than planned did; per step that sent requests 0.30 for missing workers, 0.20 for a rate more than
 * {@link #RATE_ERROR_TOLERANCE_PCT} % off, 0.10 for late workers, 0.30 for requests left unsent at the Lambda time
 * limit, 0.10 for drops, 0.10 for over 1 % late sends, 0.05 for fewer than {@link #MIN_SAMPLES_FOR_P99} samples;
 * link coverage ({@link #LINKS_NOT_COMPARED_DEDUCTION} when the test-vs-real link comparison did not happen,
 * {@link #COVERAGE_GAP_DEDUCTION} when marked traffic missed edges of real traffic,
 * {@link #ENTRY_WITHOUT_TRACES_DEDUCTION} per plan entry without traces up to {@link #ENTRIES_WITHOUT_TRACES_MAX_DEDUCTION});
 * data ({@link #FEW_REQUESTS_DEDUCTION} when the plan replays fewer than {@link #MIN_DISTINCT_REQUESTS} distinct
 * requests); monitoring defects ({@link #MISSING_EVIDENCE_DEDUCTION} each, at most
 * {@link #MISSING_EVIDENCE_MAX_DEDUCTION}); 0.10 for an abort; {@link #KNEE_UNCONFIRMED_DEDUCTION} for a knee its
 * steps' halves did not confirm; {@link #WARM_UP_UNSTEADY_DEDUCTION} for a warm-up that never steadied ({@link WarmUpRule}). The
 * warm-up's figures ({@link Report#warmUp()}) count toward neither the capacity nor the confidence.
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
    /** Confidence deducted when marked links were not compared with real traffic's (no trace source, no real traffic). */
    public static final double LINKS_NOT_COMPARED_DEDUCTION = 0.10;
    /** Confidence deducted when marked traffic did not exercise some edges of real traffic. */
    public static final double COVERAGE_GAP_DEDUCTION = 0.05;
    /** Confidence deducted per plan entry that has no traces in the links. */
    public static final double ENTRY_WITHOUT_TRACES_DEDUCTION = 0.05;
    /** Most that entries without traces deduct together. */
    public static final double ENTRIES_WITHOUT_TRACES_MAX_DEDUCTION = 0.15;
    /**
     * Distinct requests below which a plan's traffic is too uniform to trust: with fewer than 20, every request is at
     * least 5 % of the load, so caches keyed by request and a single code path dominate what the run measures (a
     * recorded traffic set has hundreds).
     */
    public static final int MIN_DISTINCT_REQUESTS = 20;
    /** Confidence deducted for a plan replaying fewer than {@link #MIN_DISTINCT_REQUESTS} distinct requests. */
    public static final double FEW_REQUESTS_DEDUCTION = 0.10;
    /** Confidence deducted when the warm-up ran to its bound without steadying ({@link #withWarmUpDeduction}). */
    public static final double WARM_UP_UNSTEADY_DEDUCTION = 0.10;
    /** Confidence deducted when the capacity is a knee its steps' halves did not confirm ({@link #withKneeDeduction}). */
    public static final double KNEE_UNCONFIRMED_DEDUCTION = 0.10;
    /** The module name of the load driver's own evidence in verdicts (it has no probes). */
    public static final String LOAD_MODULE = "load";
    /** Name of the dynamic check comparing marked with real links. */
    static final String LINK_CHECK = "test-vs-real-links";

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
        return build(run, plan, results, staticChecks, dynamicChecks, verdicts, missingEvidence, ReportEvidence.NONE, error, nowMs);
    }

    /**
     * As {@link #build(Run, Plan, List, List, List, List, List, String, long)}, with the evidence that makes the page:
     * started steps, the time series, the 429/503 records, the traces and the call graph.
     */
    public static Report build(Run run, Plan plan, List<WorkerResult> results, List<CheckResult> staticChecks,
                               List<CheckResult> dynamicChecks, List<Verdict> verdicts, List<MissingEvidence> missingEvidence,
                               ReportEvidence evidence, String error, long nowMs) {
        Map<String, Map<Integer, List<WorkerResult>>> byStep = results.stream().collect(Collectors.groupingBy(
                WorkerResult::stage, TreeMap::new, Collectors.groupingBy(WorkerResult::stepIndex, TreeMap::new, Collectors.toList())));
        List<StepFigures> warmUp = figures(Stages.WARM_UP, byStep.getOrDefault(Stages.WARM_UP, Map.of()),
                plan.warmUpSteps(), evidence.startedSteps());
        // answers a circuit breaker's fallback gave count as errors, as check failures do (Fallbacks)
        List<StepFigures> pre = Fallbacks.counted(figures(Stages.PRE_TEST, byStep.getOrDefault(Stages.PRE_TEST, Map.of()),
                List.of(plan.preTest()), evidence.startedSteps()), evidence.breakerCounts());
        List<StepFigures> formal = Fallbacks.counted(figures(Stages.FORMAL, byStep.getOrDefault(Stages.FORMAL, Map.of()),
                plan.formal(), evidence.startedSteps()), evidence.breakerCounts());
        List<StepFigures> confirm = Fallbacks.counted(figures(Stages.CONFIRM, byStep.getOrDefault(Stages.CONFIRM, Map.of()),
                confirmSpecs(evidence.startedSteps()), evidence.startedSteps()), evidence.breakerCounts());
        List<StepFigures> judgedConfirm = settled(confirm, evidence.halves());
        Optional<String> inconclusive = inconclusive(judgedConfirm, evidence.halves());
        List<StepFigures> byRate = withConfirmStep(formal, inconclusive.isPresent() ? List.of() : judgedConfirm);
        List<Verdict> ordered = changes(verdicts);

        String outcome;
        String reason;
        if (error != null && !error.isBlank()) {
            outcome = "ERROR";
            reason = error;
        } else if (CheckResult.worst(staticChecks) == CheckResult.Outcome.FAIL) {
            outcome = "STATIC_CHECKS_FAILED";
            reason = failures(staticChecks);
        } else if (run.abortRequested() && !abortedOnTheTargetsEvidence(run.abortReason())) {
            // an abort by an operator or by Richter's own fail-safe during the pre-test fails its gate
            // (run-not-aborted) too, but the abort is what happened
            outcome = "ABORTED";
            reason = "aborted: " + run.abortReason();
        } else if (CheckResult.worst(dynamicChecks) == CheckResult.Outcome.FAIL) {
            outcome = "PRE_TEST_FAILED";
            reason = failures(dynamicChecks);
        } else if (run.abortRequested()) {
            outcome = "ABORTED";
            reason = "aborted: " + run.abortReason();
        } else {
            outcome = "PASSED";
            reason = "all gates passed; " + formal.stream().filter(ResilienceVerdict::ran).count() + " of "
                    + plan.formal().size() + " formal steps ran";
        }
        Report.Resilience resilience = ResilienceVerdict.assess(new ResilienceVerdict.Inputs(pre, formal,
                StepOverload.byStep(evidence.overload()), evidence.traces(), ordered, plan.requestTimeoutMs()));
        List<StepFigures> beforeFormal = Report.runOrder(pre, warmUp, List.of());
        resilience = withDegradation(resilience, beforeFormal, formal, evidence, plan);
        Report.Capacity capacity = withInconclusiveConfirm(withInterval(faultCausedAbort(byRate, run)
                .orElseGet(() -> capacity(byRate, ordered, whyNoFormal(outcome, plan))), byRate, evidence.halves()), inconclusive);
        Optional<WarmUpRule.End> warmUpEnd = WarmUpRule.end(warmUp, plan.warmUpFirstHold());
        Report.Confidence confidence = withWarmUpDeduction(withKneeDeduction(
                confidence(pre, formal, confirm, plan, run, missingEvidence, dynamicChecks, evidence.callGraph()), capacity),
                warmUpEnd, formal);
        List<StepFigures> all = Report.runOrder(pre, warmUp, inRunOrder(formal, confirm));
        return new Report(run.runId(), plan.planId(), plan.teamId(), plan.name(), outcome, reason, nowMs,
                staticChecks, dynamicChecks, warmUp, pre, formal, plan.formal().size(), ordered, capacity,
                ResilienceVerdict.failureMode(formal, resilience), confidence, missingEvidence,
                Problems.with(Problems.with(Problems.of(staticChecks, dynamicChecks, ordered, all, missingEvidence, evidence.callGraph(),
                        distinctRequests(plan), resilience), Problems.accounting(results, evidence.windowSentByWorker(), evidence.startedSteps())),
                        Problems.alerts(evidence.events(), all)),
                resilience, evidence.timeSeries().withMarks(withEventMarks(marks(all, ordered), evidence.events())), LatencyCurves.of(all),
                evidence.callGraph(), Report.INDEXING, Bottlenecks.of(beforeFormal, formal, evidence.traces(), evidence.saturation()),
                List.of(), Report.SinceLastRun.NONE, evidence.events(), BusinessMetricTable.of(evidence.businessMetrics(), all),
                evidence.middleware().stream().map(Report.ServiceMiddleware::of).toList(), null,
                warmUpEnd.map(WarmUpRule.End::text).orElse(null), confirm);
    }

    /**
     * The confirm step as the capacity judges it: on its second half alone, when its halves were read
     * ({@link StepHalves}). It follows the first failing step F right away, so its first half carries the target's
     * recovery from F's overload (the demo's queued orders answer late or shed for a second or two), which is not the
     * confirm rate's doing: that half is its settle. Without halves, or when it was aborted or lost a worker, it is
     * judged on the whole, which is never kinder.
     */
    static List<StepFigures> settled(List<StepFigures> confirm, Map<String, StepHalves.Half[]> halves) {
        if (confirm.isEmpty()) {
            return confirm;
        }
        StepFigures c = confirm.get(0);
        StepHalves.Half[] h = halves.get(StepHalves.key(c.stage(), c.stepIndex()));
        if (h == null || h[1].requests() == 0 || c.aborted() || !c.missingWorkers().isEmpty()) {
            return confirm;
        }
        Map<String, Double> latency = new LinkedHashMap<>(c.latencyMs());
        latency.put("p99", h[1].p99Ms());
        return List.of(c.judgedOn(halfSuccessPct(h[1], c), latency));
    }

    /** One-sided significance a confirm step's verdict needs before it narrows the knee. */
    static final double CONFIRM_SIGNIFICANCE = 0.05;

    /**
     * Why the confirm step's verdict cannot narrow the knee, or empty when it can (or none ran). A verdict is
     * decisive when its requests (those judged: its second half when {@link #settled} used it) could not plausibly have
     * come from the other side of the success criterion, by the binomial distribution of its errors at the criterion's
     * error share {@code p0 = 1 − }{@link #SUSTAINED_SUCCESS_PCT}{@code /100} (0.001), one-sided at
     * {@link #CONFIRM_SIGNIFICANCE}:
     * <ul>
     *   <li>failed: P(X ≥ errors | n, p0) ≤ 0.05, or its p99 over {@link #SUSTAINED_P99_MS}: the demo's 3 of 260 at
     *       50 QPS (P = 0.002) is a knee below 50;</li>
     *   <li>held: P(X ≤ errors | n, p0) ≤ 0.05, which takes about 3 000 requests with no error (the rule of three):
     *       250 answered of 250 shows a success above 98.8 % at 95 %, not above 99.9 %.</li>
     * </ul>
     * A confirm step sits on the knee by design, so its verdict is often within that noise: the same shop held 50 QPS
     * in one run (1 error in 500) and failed it in the next (4 in 500). An inconclusive one leaves the ladder's
     * interval [G, F) and says so; it never moves the capacity up on evidence too thin to show the criterion.
     * Commons Math's {@link BinomialDistribution} gives the tails.
     */
    static Optional<String> inconclusive(List<StepFigures> judged, Map<String, StepHalves.Half[]> halves) {
        if (judged.isEmpty() || !ResilienceVerdict.ran(judged.get(0)) || judged.get(0).aborted()
                || !judged.get(0).missingWorkers().isEmpty()) {
            return Optional.empty();
        }
        StepFigures c = judged.get(0);
        StepHalves.Half[] h = halves.get(StepHalves.key(c.stage(), c.stepIndex()));
        boolean onHalf = h != null && h[1].requests() > 0;
        long n = onHalf ? h[1].requests() : c.counters().sent();
        long errors = Math.round(n * (100 - c.successRatePct()) / 100);
        if (n <= 0 || c.latencyMs().getOrDefault("p99", 0.0) > SUSTAINED_P99_MS) {
            return Optional.empty();
        }
        BinomialDistribution atCriterion = new BinomialDistribution(null, (int) Math.min(Integer.MAX_VALUE, n),
                1 - SUSTAINED_SUCCESS_PCT / 100);
        String part = onHalf ? "in its second half" : "in all";
        if (healthy(c)) {
            double p = atCriterion.cumulativeProbability((int) errors);
            return p <= CONFIRM_SIGNIFICANCE ? Optional.empty() : Optional.of(String.format(Locale.ROOT,
                    "%s at %s QPS held (%d of %d answered well %s), too few to show %.1f %% success (P = %.2f)",
                    StepLabels.name(c), StepLabels.qps(c.targetQps()), n - errors, n, part, SUSTAINED_SUCCESS_PCT, p));
        }
        double p = errors == 0 ? 1 : 1 - atCriterion.cumulativeProbability((int) errors - 1);
        return p <= CONFIRM_SIGNIFICANCE ? Optional.empty() : Optional.of(String.format(Locale.ROOT,
                "%s at %s QPS lost %d of %d %s, within the noise of %.1f %% success (P = %.2f)",
                StepLabels.name(c), StepLabels.qps(c.targetQps()), errors, n, part, SUSTAINED_SUCCESS_PCT, p));
    }

    /** {@code c} with its interval's text saying why the confirm step did not narrow it, when it did not. */
    static Report.Capacity withInconclusiveConfirm(Report.Capacity c, Optional<String> why) {
        if (why.isEmpty() || !c.reached()) {
            return c;
        }
        Report.Interval i = c.interval();
        return c.withInterval(new Report.Interval(i.fromQps(), i.toQps(), i.confirmed(),
                i.text() + "; " + why.get() + ", so the knee may lie on either side of it"));
    }

    /** The confirm step's planned rate and duration, from its stored step plan (none when it did not start). */
    private static List<Plan.StepSpec> confirmSpecs(List<StepPlan> started) {
        return started.stream().filter(s -> s.stage().equals(Stages.CONFIRM))
                .map(s -> new Plan.StepSpec(s.qps(), s.durationS())).limit(1).toList();
    }

    /**
     * The formal steps with the confirm step (when one ran) placed by its rate: after the last formal step slower than
     * it, i.e. between G and F. This is the ladder {@link #capacity} and {@link #withInterval} judge, so the confirm
     * step refines the knee: held, the capacity is its rate and the knee lies in [its rate, F); failed, the capacity
     * stays G's and the knee lies in [G, its rate).
     */
    static List<StepFigures> withConfirmStep(List<StepFigures> formal, List<StepFigures> confirm) {
        if (confirm.isEmpty()) {
            return formal;
        }
        StepFigures c = confirm.get(0);
        List<StepFigures> out = new ArrayList<>(formal);
        int at = 0;
        while (at < out.size() && out.get(at).targetQps() < c.targetQps()) {
            at++;
        }
        out.add(at, c);
        return out;
    }

    /** The formal steps with the confirm step (when one ran) where it ran: after the first formal step not sustained. */
    static List<StepFigures> inRunOrder(List<StepFigures> formal, List<StepFigures> confirm) {
        if (confirm.isEmpty()) {
            return formal;
        }
        List<StepFigures> out = new ArrayList<>(formal);
        int failing = 0;
        while (failing < out.size() && sustained(out.get(failing))) {
            failing++;
        }
        out.add(Math.min(out.size(), failing + 1), confirm.get(0));
        return out;
    }

    /**
     * {@code c} less {@link #WARM_UP_UNSTEADY_DEDUCTION} when a steadied warm-up ran to its bound without meeting
     * {@link WarmUpRule} and a formal step then ran: the formal stage may have met targets still warming, so its knee
     * may move on a rerun (the field trial: 100 QPS had a p99 of 1 758 ms on cold JVMs and 141 ms four minutes later).
     */
    static Report.Confidence withWarmUpDeduction(Report.Confidence c, Optional<WarmUpRule.End> end, List<StepFigures> formal) {
        if (end.isEmpty() || end.get().steady() || formal.stream().noneMatch(ResilienceVerdict::ran)) {
            return c;
        }
        return deducted(c, WARM_UP_UNSTEADY_DEDUCTION, "the warm-up was " + end.get().text()
                + ", so the formal stage may have met targets still warming");
    }

    /**
     * {@code c} less {@code amount} (rounded to 0.01, at least 0) with the reason {@code -<amount>: <why>}, in place of
     * a {@code no deduction:} reason.
     */
    private static Report.Confidence deducted(Report.Confidence c, double amount, String why) {
        List<String> reasons = new ArrayList<>(c.reasons());
        reasons.removeIf(r -> r.startsWith("no deduction:"));
        reasons.add(String.format(Locale.ROOT, "-%.2f: %s", amount, why));
        return new Report.Confidence(Math.max(0, Math.round((c.score() - amount) * 100) / 100.0), reasons);
    }

    /** The resilience findings with {@link Degradation}'s appended, from the steps' failed checks and vanished paths. */
    static Report.Resilience withDegradation(Report.Resilience resilience, List<StepFigures> pre, List<StepFigures> formal,
                                             ReportEvidence evidence, Plan plan) {
        List<StepFigures> steps = new ArrayList<>(pre);
        steps.addAll(formal);
        boolean checksStated = plan.scenarios().stream()
                .anyMatch(s -> s.requests().stream().anyMatch(r -> !s.expectFor(r).isNone()));
        List<Report.Finding> findings = new ArrayList<>(resilience.findings());
        findings.add(Degradation.assess(steps, evidence.coverage(), evidence.traces().read(), checksStated));
        return new Report.Resilience(findings);
    }

    /**
     * Abort reasons that are not a verdict on the target: an operator's ({@code requested by <caller>}, the API),
     * Richter's own fail-safe ({@code monitoring lost: ...}, {@code MonitorHeartbeat}) and an execution that ended
     * from outside ({@code execution <status>...}, {@code RunReaper}).
     */
    static final List<String> NOT_ABOUT_THE_TARGET = List.of("requested by ", MonitorHeartbeat.REASON_PREFIX, "execution ");

    /**
     * True when the fault decider aborted the run on the target's own evidence (a DAMAGED core module, an abort-policy
     * condition): during the pre-test the failed gate says more about what happened than the abort does.
     */
    static boolean abortedOnTheTargetsEvidence(String abortReason) {
        return NOT_ABOUT_THE_TARGET.stream().noneMatch(abortReason::startsWith);
    }

    /** Why no formal step ran, from the outcome. */
    private static String whyNoFormal(String outcome, Plan plan) {
        return switch (outcome) {
            case "STATIC_CHECKS_FAILED" -> "the static checks failed, so no step ran";
            case "PRE_TEST_FAILED" -> "the pre-test failed its gate, so the formal stage did not start";
            case "ABORTED" -> "the run was aborted before the formal stage";
            case "ERROR" -> "the run failed before the formal stage";
            default -> plan.formal().isEmpty() ? "the plan has no formal step" : "no formal step ran";
        };
    }

    /** Verdict changes marked on the charts at most (a flapping module would hide the data); the table has them all. */
    static final int MAX_VERDICT_MARKS = 50;

    /** The fault decider's reason of a {@code breaker-open} verdict: {@code circuit breaker 'inventory' open: ...}. */
    static final Pattern OPEN_BREAKERS = Pattern.compile("circuit breakers? ((?:'[^']+'(?:, )?)+) open");

    /**
     * Step boundaries (each step's first due time) and the first {@link #MAX_VERDICT_MARKS} verdict changes, in time
     * order; a change the module's own open circuit breaker caused is labelled with it ({@code order SUSPECT: breaker
     * inventory open}).
     */

    static List<TimeSeries.Mark> marks(List<StepFigures> steps, List<Verdict> changes) {
        List<TimeSeries.Mark> out = new ArrayList<>();
        for (StepFigures f : steps) {
            if (f.startedAtMs() > 0 && f.startedAtMs() != Long.MAX_VALUE) {
                out.add(new TimeSeries.Mark(f.startedAtMs(), "step", StepLabels.label(f), ""));
            }
        }
        Set<String> seen = new HashSet<>();
        int verdictMarks = 0;
        for (Verdict v : changes) {
            boolean first = seen.add(v.module());
            if (!(first && v.state() == Verdict.State.HEALTHY) && verdictMarks++ < MAX_VERDICT_MARKS) {
                Matcher breaker = OPEN_BREAKERS.matcher(v.reason());
                out.add(new TimeSeries.Mark(v.atMs(), "verdict", v.module() + " " + v.state()
                        + (breaker.lookingAt() ? ": breaker " + breaker.group(1).replace("'", "") + " open" : ""), v.state().name()));
            }
        }
        out.sort(Comparator.comparingLong(TimeSeries.Mark::atMs));
        return out;
    }

    /** Alert marks on the charts at most; the events have them all. */
    static final int MAX_ALERT_MARKS = 50;

    /**
     * The marks with the run's alert events ({@code alert}: {@code ShopShedding fired on order}, state {@code FIRING} or
     * {@code RESOLVED}; the first {@link #MAX_ALERT_MARKS}) and its abort ({@code abort}), in time order.
     */
    static List<TimeSeries.Mark> withEventMarks(List<TimeSeries.Mark> marks, List<RunEvent> events) {
        List<TimeSeries.Mark> out = new ArrayList<>(marks);
        int alerts = 0;
        for (RunEvent e : events) {
            switch (e.kind()) {
                case RunEvent.ALERT_FIRED, RunEvent.ALERT_RESOLVED -> {
                    boolean fired = e.kind().equals(RunEvent.ALERT_FIRED);
                    if (alerts++ < MAX_ALERT_MARKS) {
                        out.add(new TimeSeries.Mark(e.atMs(), "alert", e.name() + (fired ? " fired on " : " resolved on ")
                                + e.module(), fired ? "FIRING" : "RESOLVED"));
                    }
                }
                case RunEvent.ABORT -> out.add(new TimeSeries.Mark(e.atMs(), "abort", "abort: " + e.detail(), "ABORT"));
                default -> { }
            }
        }
        out.sort(Comparator.comparingLong(TimeSeries.Mark::atMs));
        return out;
    }

    /**
     * The verdict timeline: in time order, each module's first verdict and every change of state
     * (the decider stores one verdict per module per round; repeats carry no news).
     */
    static List<Verdict> changes(List<Verdict> verdicts) {
        Map<String, Verdict.State> last = new HashMap<>();
        List<Verdict> out = new ArrayList<>();
        for (Verdict v : verdicts.stream().sorted(Comparator.comparingLong(Verdict::atMs)).toList()) {
            if (last.put(v.module(), v.state()) != v.state()) {
                out.add(v);
            }
        }
        return out;
    }

    /**
     * The figures of one stage's steps, in step order: each step with stored results merged over its workers
     * ({@link StepFigures#merge}, its planned duration from {@code planned}), and each started step without results
     * as {@link StepFigures#noResults}.
     *
     * @param steps   the stage's worker results by step index
     * @param planned the stage's planned steps (a step past them merges with duration 0)
     * @param started the run's started steps (only this stage's are read)
     */
    static List<StepFigures> figures(String stage, Map<Integer, List<WorkerResult>> steps, List<Plan.StepSpec> planned,
                                             List<StepPlan> started) {
        Map<Integer, StepPlan> plans = new TreeMap<>();
        started.stream().filter(s -> s.stage().equals(stage)).forEach(s -> plans.put(s.stepIndex(), s));
        Set<Integer> indexes = new TreeSet<>(steps.keySet());
        indexes.addAll(plans.keySet());
        List<StepFigures> out = new ArrayList<>();
        for (int index : indexes) {
            int durationS = index < planned.size() ? planned.get(index).durationS() : 0;
            StepPlan sp = plans.get(index);
            List<WorkerResult> rs = steps.get(index);
            if (rs == null) {
                out.add(StepFigures.noResults(stage, index, sp.qps(), sp.durationS(), sp.workerCount(), sp.legCount(),
                        sp.stepStartMs()));
            } else {
                out.add(StepFigures.merge(durationS, rs, sp == null ? 0 : sp.legCount()));
            }
        }
        return out;
    }

    /** Every failed check as {@code name (subject): evidence}, joined by {@code "; "}. */
    private static String failures(List<CheckResult> results) {
        return results.stream().filter(r -> r.outcome() == CheckResult.Outcome.FAIL)
                .map(r -> r.name() + " (" + r.subject() + "): " + r.evidence()).collect(Collectors.joining("; "));
    }

    /** The step sent requests and met the criteria on them (an abort cuts a step short but says nothing against it). */
    static boolean healthy(StepFigures f) {
        return f.counters().sent() > 0 && f.successRatePct() >= SUSTAINED_SUCCESS_PCT
                && f.latencyMs().getOrDefault("p99", Double.MAX_VALUE) <= SUSTAINED_P99_MS;
    }

    /** The step ran to its end, met the criteria, and every worker stored its result. */
    static boolean sustained(StepFigures f) {
        return healthy(f) && !f.aborted() && f.missingWorkers().isEmpty();
    }

    /** Abort reasons that are the load's own error-rate breach at the knee, not a fault ({@link #faultCausedAbort}). */
    static final java.util.regex.Pattern LOADS_OWN_BREACH = java.util.regex.Pattern.compile(
            "error rate over |DAMAGED (core )?module (" + LOAD_MODULE + ": |\\S+: error rate )");

    /** The capacity criteria, as the report states them. */
    private static String criteria() {
        return String.format(Locale.ROOT, "success rate >= %.1f %%, p99 <= %.0f ms, not aborted, every worker reported",
                SUSTAINED_SUCCESS_PCT, SUSTAINED_P99_MS);
    }

    /**
     * Capacity when something other than the load ended the run: an operator's abort through the API, lost monitoring,
     * an execution ended from outside, or a module DAMAGED from fault evidence (the probe vote, failed probes with a
     * resource breach, heap exhaustion: the fault decider's reasons). The rule: the run's abort reason is such an end
     * unless it is the load's own breach ({@link #LOADS_OWN_BREACH}: the abort policy's {@code error rate over ...}
     * condition, a module DAMAGED by its error burst {@code error rate ... over the last N s}, or the
     * {@link #LOAD_MODULE} module DAMAGED). It applies when the aborted formal step is the first that was not sustained.
     * What the steps before it measured is kept: capacity is at least the last sustained step's rate ("at least 80 QPS:
     * aborted by <reason> at step 4, after 3 sustained steps"), not reached, its interval open above. When no step
     * before it was sustained, there is no figure: "not measured: aborted by <reason> at step N".
     *
     * @return the capacity, or empty when the run was not aborted, the abort is the load's own, or no formal step was
     *         aborted after the steps before it were sustained
     */
    static Optional<Report.Capacity> faultCausedAbort(List<StepFigures> formal, Run run) {
        String why = run.abortReason() == null ? "" : run.abortReason();
        if (!run.abortRequested() || LOADS_OWN_BREACH.matcher(why).lookingAt()) {
            return Optional.empty();
        }
        double sustainedQps = 0;
        int sustainedSteps = 0;
        for (StepFigures f : formal) {
            if (f.aborted() && ResilienceVerdict.ran(f)) {
                if (sustainedSteps == 0) {
                    return Optional.of(new Report.Capacity(0, false, "not measured: aborted by " + why + " at "
                            + StepLabels.name(f), criteria(), false));
                }
                return Optional.of(new Report.Capacity(sustainedQps, false, String.format(Locale.ROOT,
                        "at least %s QPS: aborted by %s at %s, after %d sustained step%s", StepLabels.qps(sustainedQps), why,
                        StepLabels.name(f), sustainedSteps, sustainedSteps == 1 ? "" : "s"), criteria(), true));
            }
            if (!sustained(f)) {
                return Optional.empty();
            }
            sustainedQps = f.targetQps();
            sustainedSteps++;
        }
        return Optional.empty();
    }

    static Report.Capacity capacity(List<StepFigures> formal, List<Verdict> verdicts, String whyNoFormal) {
        String criteria = criteria();
        if (formal.stream().noneMatch(ResilienceVerdict::ran)) {
            return new Report.Capacity(0, false, "not measured: " + (formal.isEmpty() ? whyNoFormal
                    : "no formal step sent a request (" + formal.size() + " started; the run was "
                    + (formal.stream().anyMatch(StepFigures::aborted) ? "aborted before its first request" : "cut short before its first request")
                    + ")"), criteria, false);
        }
        double max = 0;
        for (StepFigures f : formal) {
            String step = judgedName(f);
            if (!ResilienceVerdict.ran(f)) {
                return new Report.Capacity(max, false, String.format(Locale.ROOT, "%s at %s QPS sent no request%s: capacity is at least %s QPS",
                        step, StepLabels.qps(f.targetQps()), f.missingWorkers().isEmpty() ? "" : " (" + f.missingWorkers().size()
                                + " of " + f.workersExpected() + " workers stored no result)", StepLabels.qps(max)), criteria, true);
            }
            if (f.aborted() && healthy(f)) {
                return new Report.Capacity(max, false, String.format(Locale.ROOT, "the run was aborted during %s at %s QPS, which was healthy"
                        + " until then: capacity is at least %s QPS", step, StepLabels.qps(f.targetQps()), StepLabels.qps(max)), criteria, true);
            }
            if (!healthy(f)) {
                return new Report.Capacity(max, true, String.format(Locale.ROOT, "%s at %s QPS: success %.2f %%, p99 %s ms%s%s", step,
                        StepLabels.qps(f.targetQps()), f.successRatePct(), HtmlReport.ms(f.latencyMs(), "p99"),
                        f.aborted() ? ", aborted" : "", max == 0 ? ": capacity is below the first step's rate" : ""), criteria, true);
            }
            if (!f.missingWorkers().isEmpty()) {
                return new Report.Capacity(max, false, String.format(Locale.ROOT, "%s at %s QPS: %d of %d workers stored no result, so its"
                        + " figures are incomplete: capacity is at least %s QPS", step, StepLabels.qps(f.targetQps()),
                        f.missingWorkers().size(), f.workersExpected(), StepLabels.qps(max)), criteria, true);
            }
            max = f.targetQps();
        }
        long damaged = verdicts.stream().filter(v -> v.state() == Verdict.State.DAMAGED).count();
        return new Report.Capacity(max, false, "not reached: every formal step was sustained, so capacity is at least "
                + StepLabels.qps(max) + " QPS (the plan's highest step)"
                + (damaged > 0 ? " (" + damaged + " DAMAGED verdicts recorded)" : ""), criteria, true);
    }

    /**
     * {@code c} with its interval. A knee found ({@code reached}) lies in [the last sustained step's rate G, the first
     * failing step's rate F), and is checked against the variance of those two steps in the same run: each step's two
     * halves in time ({@link StepHalves}) are two measurements of its rate, judged by the same criteria (a half's
     * success rate counts its share of the step's fallbacks).
     * <ul>
     *   <li>both halves of G met the criteria and every half of F that sent requests failed them: the knee is
     *       <b>confirmed</b> in the run, e.g. {@code between 40 and 60 QPS; each half of step 2 held, each of step 3
     *       failed};</li>
     *   <li>a half of G failed them: G held only on the whole, so the interval opens down to the sustained step before
     *       G (0 when none), e.g. {@code between 20 and 60 QPS; 40 QPS held over step 2 but not in its second half
     *       (success 99.70 %, p99 95 ms)}; unconfirmed;</li>
     *   <li>a half of F met them: the knee may lie close to F; unconfirmed, e.g. {@code between 40 and 60 QPS;
     *       unconfirmed: step 3's first half held (success 100.00 %, p99 80 ms)};</li>
     *   <li>without the halves (no windows read, or a knee below the first step): {@code between 40 and 60 QPS;
     *       unconfirmed}.</li>
     * </ul>
     * A capacity not reached is open above ({@code at least 80 QPS; no step failed}); one not measured has
     * {@link Report.Interval#NONE}. A confirm step placed between G and F ({@link #withConfirmStep}) is one of the two
     * steps when it narrowed the knee; its first half, its settle, is not checked (DESIGN.md §5 "Capacity interval",
     * "Confirm step").
     *
     * @param formal the formal steps, in order, as {@link #capacity} judged them
     * @param halves each formal step's halves ({@link ReportEvidence#halves()}), empty when not read
     */
    static Report.Capacity withInterval(Report.Capacity c, List<StepFigures> formal, Map<String, StepHalves.Half[]> halves) {
        if (!c.measured()) {
            return c.withInterval(Report.Interval.NONE);
        }
        String from = StepLabels.qps(c.maxSustainableQps());
        if (!c.reached()) {
            String aborted = formal.stream().filter(StepFigures::aborted).findFirst()
                    .map(f -> "aborted at " + StepLabels.name(f)).orElse("no step failed");
            return c.withInterval(new Report.Interval(c.maxSustainableQps(), 0, false,
                    "at least " + from + " QPS; " + aborted));
        }
        Optional<StepFigures> failing = formal.stream().filter(f -> !sustained(f)).findFirst();
        double to = failing.map(StepFigures::targetQps).orElse(0.0);
        String between = "between " + from + " and " + StepLabels.qps(to) + " QPS; ";
        int failingAt = failing.map(formal::indexOf).orElse(-1);
        Optional<StepFigures> good = formal.subList(0, Math.max(0, failingAt)).stream()
                .filter(f -> sustained(f) && f.targetQps() == c.maxSustainableQps()).reduce((x, y) -> y);
        StepHalves.Half[] g = good.map(f -> halves.get(StepHalves.key(f.stage(), f.stepIndex()))).orElse(null);
        StepHalves.Half[] f = failing.map(x -> halves.get(StepHalves.key(x.stage(), x.stepIndex()))).orElse(null);
        if (g == null || f == null) {
            return c.withInterval(new Report.Interval(c.maxSustainableQps(), to, false, between + "unconfirmed"));
        }
        for (int i = settleHalves(good.get()); i < 2; i++) {
            if (!halfHolds(g[i], good.get())) {
                double below = formal.subList(0, formal.indexOf(good.get())).stream().filter(ReportBuilder::sustained)
                        .mapToDouble(StepFigures::targetQps).reduce((x, y) -> y).orElse(0);
                return c.withInterval(new Report.Interval(below, to, false, String.format(Locale.ROOT,
                        "between %s and %s QPS; %s QPS held over %s but not in its %s half (%s)", StepLabels.qps(below),
                        StepLabels.qps(to), from, StepLabels.name(good.get()), i == 0 ? "first" : "second",
                        halfText(g[i], good.get()))));
            }
        }
        boolean anyMeasured = false;
        for (int i = settleHalves(failing.get()); i < 2; i++) {
            if (f[i].requests() == 0) {
                continue;
            }
            anyMeasured = true;
            if (halfHolds(f[i], failing.get())) {
                return c.withInterval(new Report.Interval(c.maxSustainableQps(), to, false, String.format(Locale.ROOT,
                        "%sunconfirmed: %s's %s half held (%s)", between, StepLabels.name(failing.get()),
                        i == 0 ? "first" : "second", halfText(f[i], failing.get()))));
            }
        }
        if (!anyMeasured) {
            return c.withInterval(new Report.Interval(c.maxSustainableQps(), to, false, between + "unconfirmed"));
        }
        return c.withInterval(new Report.Interval(c.maxSustainableQps(), to, true, between
                + halvesOf(good.get(), "each half of ", "held") + ", " + halvesOf(failing.get(), "each of ", "failed")));
    }

    /**
     * How the capacity names a step it judged: {@code the confirm step's second half} for a confirm step judged on its
     * second half ({@link #settled}: its success rate is not its counters'), else {@link StepLabels#name}.
     */
    private static String judgedName(StepFigures f) {
        long sent = f.counters().sent();
        double whole = sent == 0 ? 0 : 100.0 * f.counters().ok() / sent;
        return f.stage().equals(Stages.CONFIRM) && Math.abs(whole - f.successRatePct()) > 1e-9
                ? "the confirm step's second half" : StepLabels.name(f);
    }

    /** Halves of {@code f} the knee's check skips: a confirm step's first, its settle ({@link #settled}); none else. */
    private static int settleHalves(StepFigures f) {
        return f.stage().equals(Stages.CONFIRM) ? 1 : 0;
    }

    /** {@code each half of step 2 held}, or for a confirm step {@code the confirm step's second half held}. */
    private static String halvesOf(StepFigures f, String each, String verb) {
        return f.stage().equals(Stages.CONFIRM) ? "the confirm step's second half " + verb
                : each + StepLabels.name(f) + " " + verb;
    }

    /** A half met the capacity criteria: it sent requests, its success rate (less its share of fallbacks) and its p99. */
    static boolean halfHolds(StepHalves.Half h, StepFigures step) {
        return h.requests() > 0 && halfSuccessPct(h, step) >= SUSTAINED_SUCCESS_PCT
                && !(h.p99Ms() > SUSTAINED_P99_MS);
    }

    /** A half's success rate, percent, its errors including its share (by requests) of the step's fallbacks. */
    private static double halfSuccessPct(StepHalves.Half h, StepFigures step) {
        long sent = Math.max(1, step.counters().ok() + step.counters().errors());
        double fallbacks = (double) step.counters().fallbacks() * h.requests() / sent;
        return h.requests() == 0 ? Double.NaN : 100.0 * (h.requests() - h.errors() - fallbacks) / h.requests();
    }

    private static String halfText(StepHalves.Half h, StepFigures step) {
        return String.format(Locale.ROOT, "success %.2f %%%s", halfSuccessPct(h, step),
                Double.isNaN(h.p99Ms()) ? "" : ", p99 " + HtmlReport.fmt(h.p99Ms()) + " ms");
    }

    /**
     * {@code c} less {@link #KNEE_UNCONFIRMED_DEDUCTION} when the capacity is a knee its steps' halves did not
     * confirm: a figure read off one pass up the ladder moves with the targets' warmth and noise.
     */
    static Report.Confidence withKneeDeduction(Report.Confidence c, Report.Capacity capacity) {
        if (!capacity.reached() || capacity.interval().confirmed()) {
            return c;
        }
        String text = capacity.interval().text();
        int semi = text.indexOf("; ");
        String why = semi < 0 ? "" : text.substring(semi + 2).replaceFirst("^unconfirmed(: )?", "");
        return deducted(c, KNEE_UNCONFIRMED_DEDUCTION, "the knee is unconfirmed: "
                + (why.isEmpty() ? "no half-step figures to check it against" : why)
                + ", so the capacity is only known to lie " + (semi < 0 ? text : text.substring(0, semi)));
    }

    /** Distinct requests the plan replays over all its scenarios (service, method, path, headers, body). */
    static int distinctRequests(Plan plan) {
        Set<List<Object>> distinct = new HashSet<>();
        for (Plan.ScenarioSpec s : plan.scenarios()) {
            for (Plan.RequestSpec r : s.requests()) {
                distinct.add(Arrays.asList(s.service(), r.method(), r.path(), r.headers(), r.body(), r.bodyBase64()));
            }
        }
        return distinct.size();
    }

    static Report.Confidence confidence(List<StepFigures> pre, List<StepFigures> formal, Plan plan, Run run,
                                        List<MissingEvidence> missingEvidence, List<CheckResult> dynamicChecks,
                                        CallGraph graph) {
        return confidence(pre, formal, List.of(), plan, run, missingEvidence, dynamicChecks, graph);
    }

    /** As above; the confirm step's figures ({@code confirm}) lose confidence as a formal step's do. */
    static Report.Confidence confidence(List<StepFigures> pre, List<StepFigures> formal, List<StepFigures> confirm, Plan plan,
                                        Run run, List<MissingEvidence> missingEvidence, List<CheckResult> dynamicChecks,
                                        CallGraph graph) {
        double score = 1.0;
        List<String> reasons = new ArrayList<>();
        List<StepFigures> ran = new ArrayList<>(pre);
        ran.addAll(formal);
        ran.addAll(confirm);
        ran.removeIf(f -> !ResilienceVerdict.ran(f));
        long formalRan = formal.stream().filter(ResilienceVerdict::ran).count();
        long startedSilent = formal.size() - formalRan;
        String silent = startedSilent == 0 ? "" : "; " + startedSilent + " started but sent nothing";
        if (formalRan == 0 && !plan.formal().isEmpty()) {
            score -= 0.8;
            reasons.add("-0.80: no formal step sent a request: there are no figures to judge capacity by" + silent);
        } else if (formalRan < plan.formal().size()) {
            score -= 0.2;
            reasons.add(String.format(Locale.ROOT, "-0.20: %d of %d formal steps ran%s", formalRan, plan.formal().size(), silent));
        }
        for (StepFigures f : ran) {
            String step = StepLabels.name(f);
            if (!f.missingWorkers().isEmpty()) {
                score -= 0.3;
                reasons.add("-0.30: " + step + " is missing workers " + f.missingWorkers());
            }
            if (f.rateErrorPct() > RATE_ERROR_TOLERANCE_PCT && !f.aborted()) {
                score -= 0.2;
                reasons.add(String.format(Locale.ROOT, "-0.20: %s achieved %.2f QPS for %.2f (%.1f %% off)", step, f.achievedQps(),
                        f.targetQps(), f.rateErrorPct()));
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
            if (f.counters().late() * 100 > f.counters().sent()) {
                score -= 0.1;
                reasons.add("-0.10: " + step + " sent " + f.counters().late() + " requests late");
            }
            if (f.counters().sent() < MIN_SAMPLES_FOR_P99 && !f.stage().equals(Stages.PRE_TEST)) {
                score -= 0.05;
                reasons.add("-0.05: " + step + " has only " + f.counters().sent() + " samples for its p99");
            }
        }
        List<CheckResult> links = dynamicChecks.stream().filter(c -> c.name().equals(LINK_CHECK)).toList();
        List<CheckResult> notCompared = links.stream().filter(ReportBuilder::linksNotCompared).toList();
        if (links.isEmpty() || !notCompared.isEmpty()) {
            score -= LINKS_NOT_COMPARED_DEDUCTION;
            reasons.add(String.format(Locale.ROOT, "-%.2f: links not compared with real traffic: %s", LINKS_NOT_COMPARED_DEDUCTION,
                    links.isEmpty() ? "the " + LINK_CHECK + " check did not run (no trace source, or the pre-test did not pass)"
                            : notCompared.get(0).evidence()));
        } else {
            long gaps = links.stream().filter(c -> c.outcome() == CheckResult.Outcome.WARN).count();
            if (gaps > 0) {
                score -= COVERAGE_GAP_DEDUCTION;
                reasons.add(String.format(Locale.ROOT, "-%.2f: marked traffic left %d links of real traffic unexercised (%s)",
                        COVERAGE_GAP_DEDUCTION, gaps, LINK_CHECK + " WARN"));
            }
        }
        if (graph.read() && !graph.entriesWithoutTraces().isEmpty()) {
            double d = Math.min(ENTRIES_WITHOUT_TRACES_MAX_DEDUCTION, ENTRY_WITHOUT_TRACES_DEDUCTION * graph.entriesWithoutTraces().size());
            score -= d;
            reasons.add(String.format(Locale.ROOT, "-%.2f: %d of the plan's entries have no traces in the links: %s", d,
                    graph.entriesWithoutTraces().size(), graph.entriesWithoutTraces()));
        }
        int distinct = distinctRequests(plan);
        if (distinct < MIN_DISTINCT_REQUESTS) {
            score -= FEW_REQUESTS_DEDUCTION;
            reasons.add(String.format(Locale.ROOT, "-%.2f: the plan replays %d distinct request%s (fewer than %d): caches and one"
                    + " code path dominate what was measured", FEW_REQUESTS_DEDUCTION, distinct, distinct == 1 ? "" : "s",
                    MIN_DISTINCT_REQUESTS));
        }
        double missingDeduction = 0;
        for (MissingEvidence m : missingEvidence) {
            double d = Math.min(MISSING_EVIDENCE_DEDUCTION, MISSING_EVIDENCE_MAX_DEDUCTION - missingDeduction);
            if (d <= 0) break;
            missingDeduction += d;
            score -= d;
            reasons.add(String.format(Locale.ROOT, "-%.2f: missing evidence for %s: %s", d, m.module(), m.describe()));
        }
        if (run.abortRequested()) {
            score -= 0.1;
            reasons.add("-0.10: the run was aborted (" + run.abortReason() + ")");
        }
        if (reasons.isEmpty()) {
            reasons.add("no deduction: every step ran with all workers, on rate, without drops; links compared; varied traffic");
        }
        return new Report.Confidence(Math.max(0, Math.round(score * 100) / 100.0), reasons);
    }

    /** True for a test-vs-real-links result saying the comparison could not be made. */
    static boolean linksNotCompared(CheckResult c) {
        return c.outcome() == CheckResult.Outcome.WARN && c.evidence().contains("links not compared");
    }
}
