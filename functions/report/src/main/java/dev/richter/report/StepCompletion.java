package dev.richter.report;

import dev.richter.common.EventPublisher;
import dev.richter.common.Repositories;
import dev.richter.common.RunMetricsRepository;
import dev.richter.common.model.Plan;
import dev.richter.common.model.Stages;
import dev.richter.common.model.StepPlan;
import dev.richter.common.model.Verdict;
import dev.richter.common.model.WorkerResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/**
 * The end of one step (the load-test-run state machine's {@code CompleteStep}, after every leg of the step ended, so
 * every worker that will report has): merges the step's worker results ({@link StepFigures#merge}) and publishes one
 * {@code Step Completed} event (DESIGN.md §3 "Events"):
 * <pre>{@code {runId, planId, teamId, stage, stepIndex, targetQps, achievedQps, durationS, sent, ok, errors,
 *   errorRatePct, errorsByKind: {http4xx, http5xx, timeouts, connectErrors, checkFailed, dropped}, p50Ms, p99Ms,
 *   aborted, workers: "<reported>/<expected>", verdicts: {<module>: HEALTHY|SUSPECT|DAMAGED}, worstVerdict}}</pre>
 * Latencies are from the intended send time (milliseconds, null when nothing answered); {@code verdicts} is the latest
 * verdict of each module at the step's end.
 *
 * <p><b>Exactly once per step.</b> Before publishing, a conditional put of {@code stepcompleted#<stage>#<step %03d>}
 * in the run-metrics table ({@code attribute_not_exists}) claims the step: a retried task or a second delivery finds
 * the claim and publishes nothing. The claim is kept when the bus refuses the event (the run's path never depends on
 * the bus, DESIGN.md §6): the event is then lost and counted in the answer ({@code published: false}).
 */
public final class StepCompletion {
    /** The event's detail-type. */
    public static final String DETAIL_TYPE = "Step Completed";
    private static final Logger LOG = LogManager.getLogger(StepCompletion.class);

    private final Repositories repositories;
    private final RunMetricsRepository metrics;
    private final ReportRepository reports;
    private final EventPublisher events;

    /**
     * @param repositories the runs and run-metrics tables
     * @param reports      where the verdicts are read
     * @param events       where {@code Step Completed} goes
     */
    public StepCompletion(Repositories repositories, ReportRepository reports, EventPublisher events) {
        this.repositories = repositories;
        this.metrics = new RunMetricsRepository(repositories.dynamoDb(), repositories.tables().runMetrics());
        this.reports = reports;
        this.events = events;
    }

    /**
     * Publishes the step's {@code Step Completed} once.
     *
     * @return {@code {runId, stage, stepIndex, published}}: {@code published} false when the step was already claimed
     *         or the bus refused the event
     */
    public Map<String, Object> complete(String runId, String teamId, String stage, int stepIndex) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("runId", runId);
        out.put("stage", stage);
        out.put("stepIndex", stepIndex);
        out.put("published", false);
        List<WorkerResult> results = null;
        if (Stages.WARM_UP.equals(stage)) {
            results = readResults(runId);
            judgeWarmUp(runId, results).ifPresent(end -> out.put("warmUp", end.text()));
        }
        if (Stages.FORMAL.equals(stage)) {
            results = readResults(runId);
            judgeKnee(runId, stepIndex, results).ifPresent(c -> out.put("confirmStep", c));
        }
        if (!claim(runId, stage, stepIndex)) {
            return out;
        }
        Map<String, Object> detail = detail(runId, teamId, stage, stepIndex,
                results != null ? results : metrics.workerResults(runId));
        try {
            events.publish(DETAIL_TYPE, detail);
            out.put("published", true);
        } catch (RuntimeException e) {
            LOG.error("Step Completed of {} {} {} not published: {}", runId, stage, stepIndex, e.toString());
        }
        return out;
    }

    /** The run's worker results, or null when they could not be read (logged; the completion reads them again). */
    private List<WorkerResult> readResults(String runId) {
        try {
            return metrics.workerResults(runId);
        } catch (RuntimeException e) {
            LOG.error("run {}: worker results not read ({})", runId, e.toString());
            return null;
        }
    }

    /**
     * Applies {@link WarmUpRule} to the run's warm-up steps so far and, once they are steady, records the step
     * ({@link RunMetricsRepository#putWarmUpSteady}), so the warm-up's later steps are skipped. Runs before the claim,
     * so a retried completion still records it; a failure here leaves the warm-up to run to its bound.
     *
     * @param results the run's worker results, null when they could not be read
     * @return how the warm-up stands, empty for a fixed warm-up or when it could not be judged
     */
    Optional<WarmUpRule.End> judgeWarmUp(String runId, List<WorkerResult> results) {
        if (results == null) {
            LOG.error("run {}: warm-up not judged (no worker results): it runs to its bound", runId);
            return Optional.empty();
        }
        try {
            var run = repositories.getRun(runId);
            var plan = run.flatMap(r -> repositories.getPlan(r.planId()));
            if (plan.isEmpty()) {
                return Optional.empty();
            }
            Map<Integer, List<WorkerResult>> byStep = results.stream().filter(r -> r.stage().equals(Stages.WARM_UP))
                    .collect(Collectors.groupingBy(WorkerResult::stepIndex, TreeMap::new, Collectors.toList()));
            List<StepFigures> figures = ReportBuilder.figures(Stages.WARM_UP, byStep, plan.get().warmUpSteps(), List.of());
            Optional<WarmUpRule.End> end = WarmUpRule.end(figures, plan.get().warmUpFirstHold());
            end.filter(WarmUpRule.End::steady).ifPresent(e -> {
                metrics.putWarmUpSteady(runId, e.stepIndex(), e.text());
                LOG.info("run {}: warm-up {}", runId, e.text());
            });
            return end;
        } catch (RuntimeException e) {
            LOG.error("run {}: warm-up not judged ({}): it runs to its bound", runId, e.toString());
            return Optional.empty();
        }
    }

    /**
     * Calls for the run's confirm step (DESIGN.md §5 "Confirm step") when formal step {@code stepIndex} (F) is the first
     * formal step that failed the capacity criteria ({@link ReportBuilder#sustained}), it ran whole (not aborted: an
     * aborted run sends nothing more) and the step before it (G) held: records {@link Plan#confirmQps}(G, F) for F's
     * duration ({@link RunMetricsRepository#putConfirmStep}), which the next formal slot runs. Judged on the workers'
     * results alone: answers a circuit breaker's fallback gave count against a step in the report
     * ({@link Fallbacks}) but not here, so a step that fails only by its fallbacks gets no confirm step. Runs before the
     * claim, so a retried completion still records it; a failure here leaves the run without a confirm step.
     *
     * @param results the run's worker results, null when they could not be read
     * @return the confirm step in words ({@code 50 QPS for 10 s: step 2 at 40 QPS held, step 3 at 60 QPS failed}),
     *         empty when none is called for
     */
    Optional<String> judgeKnee(String runId, int stepIndex, List<WorkerResult> results) {
        if (results == null || stepIndex < 1) {
            return Optional.empty();
        }
        try {
            var plan = repositories.getRun(runId).flatMap(r -> repositories.getPlan(r.planId()));
            if (plan.isEmpty() || plan.get().formalSlots().size() <= plan.get().formal().size()) {
                return Optional.empty();
            }
            Map<Integer, List<WorkerResult>> byStep = results.stream().filter(r -> r.stage().equals(Stages.FORMAL))
                    .collect(Collectors.groupingBy(WorkerResult::stepIndex, TreeMap::new, Collectors.toList()));
            List<StepFigures> figures = ReportBuilder.figures(Stages.FORMAL, byStep, plan.get().formal(), List.of());
            Optional<StepFigures> failing = figures.stream().filter(f -> !ReportBuilder.sustained(f)).findFirst();
            if (failing.isEmpty() || failing.get().stepIndex() != stepIndex || failing.get().aborted()
                    || failing.get().counters().sent() == 0) {
                return Optional.empty();
            }
            Optional<StepFigures> held = figures.stream().filter(f -> f.stepIndex() == stepIndex - 1).findFirst();
            if (held.isEmpty()) {
                return Optional.empty();
            }
            double g = plan.get().formal().get(stepIndex - 1).qps();
            double f = plan.get().formal().get(stepIndex).qps();
            var qps = Plan.confirmQps(g, f);
            if (qps.isEmpty()) {
                return Optional.empty();
            }
            int durationS = plan.get().formal().get(stepIndex).durationS();
            String why = String.format(java.util.Locale.ROOT, "%s at %s QPS held, %s at %s QPS failed (success %.2f %%, p99 %s ms)",
                    StepLabels.name(held.get()), StepLabels.qps(g), StepLabels.name(failing.get()), StepLabels.qps(f),
                    failing.get().successRatePct(), HtmlReport.ms(failing.get().latencyMs(), "p99"));
            metrics.putConfirmStep(runId, stepIndex, qps.getAsDouble(), durationS, why);
            String text = StepLabels.qps(qps.getAsDouble()) + " QPS for " + durationS + " s: " + why;
            LOG.info("run {}: confirm step {}", runId, text);
            return Optional.of(text);
        } catch (RuntimeException e) {
            LOG.error("run {}: knee not judged ({}): no confirm step", runId, e.toString());
            return Optional.empty();
        }
    }

    /** The event's detail (see the class comment), from the run's worker results {@code runResults}. */
    Map<String, Object> detail(String runId, String teamId, String stage, int stepIndex, List<WorkerResult> runResults) {
        Optional<StepPlan> plan = metrics.stepPlan(runId, stage, stepIndex);
        List<WorkerResult> results = runResults.stream()
                .filter(r -> r.stage().equals(stage) && r.stepIndex() == stepIndex).toList();
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("runId", runId);
        d.put("planId", plan.map(StepPlan::planId).orElse(repositories.getRun(runId).map(r -> r.planId()).orElse("")));
        d.put("teamId", teamId);
        d.put("stage", stage);
        d.put("stepIndex", stepIndex);
        d.put("targetQps", plan.map(StepPlan::qps).orElse(0.0));
        d.put("durationS", plan.map(StepPlan::durationS).orElse(0));
        if (results.isEmpty()) {
            d.put("achievedQps", 0.0);
            d.put("sent", 0L);
            d.put("ok", 0L);
            d.put("errors", 0L);
            d.put("errorRatePct", 0.0);
            d.put("errorsByKind", Map.of());
            d.put("p50Ms", null);
            d.put("p99Ms", null);
            d.put("aborted", true);
            d.put("workers", "0/" + plan.map(p -> p.workerCount() * p.legCount()).orElse(0));
        } else {
            StepFigures f = StepFigures.merge(plan.map(StepPlan::durationS).orElse(0), results);
            var c = f.counters();
            d.put("achievedQps", f.achievedQps());
            d.put("sent", c.sent());
            d.put("ok", c.ok());
            d.put("errors", c.errors());
            d.put("errorRatePct", c.sent() == 0 ? 0.0 : 100.0 * c.errors() / c.sent());
            Map<String, Object> kinds = new LinkedHashMap<>();
            long http4xx = 0;
            long http5xx = 0;
            for (var e : c.httpErrors().entrySet()) {
                if (e.getKey().startsWith("4")) {
                    http4xx += e.getValue();
                } else if (e.getKey().startsWith("5")) {
                    http5xx += e.getValue();
                }
            }
            kinds.put("http4xx", http4xx);
            kinds.put("http5xx", http5xx);
            kinds.put("timeouts", c.timeouts());
            kinds.put("connectErrors", c.connectErrors());
            kinds.put("checkFailed", c.checkFailed());
            kinds.put("dropped", c.dropped());
            d.put("errorsByKind", kinds);
            d.put("p50Ms", f.latencyMs().get("p50"));
            d.put("p99Ms", f.latencyMs().get("p99"));
            d.put("aborted", f.aborted());
            d.put("workers", f.workersReported() + "/" + f.workersExpected());
        }
        Map<String, String> verdicts = new TreeMap<>();
        Verdict.State worst = null;
        for (Verdict v : reports.verdicts(runId)) {
            verdicts.put(v.module(), v.state().name());
        }
        for (String s : verdicts.values()) {
            Verdict.State state = Verdict.State.valueOf(s);
            worst = worst == null || state.ordinal() > worst.ordinal() ? state : worst;
        }
        d.put("verdicts", verdicts);
        d.put("worstVerdict", worst == null ? null : worst.name());
        return d;
    }

    /** Claims the step's event: true for the first caller only. */
    private boolean claim(String runId, String stage, int stepIndex) {
        try {
            repositories.dynamoDb().putItem(PutItemRequest.builder().tableName(repositories.tables().runMetrics())
                    .item(Map.of("runId", AttributeValue.fromS(runId),
                            "sk", AttributeValue.fromS(String.format("stepcompleted#%s#%03d", stage, stepIndex)),
                            "atMs", AttributeValue.fromN(Long.toString(System.currentTimeMillis()))))
                    .conditionExpression("attribute_not_exists(sk)").build());
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        }
    }
}
