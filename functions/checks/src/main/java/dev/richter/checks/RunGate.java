package dev.richter.checks;

import dev.richter.common.Repositories;
import dev.richter.common.RunMetricsRepository;
import dev.richter.common.VerdictRounds;
import dev.richter.common.model.CheckResult;
import dev.richter.common.model.Marker;
import dev.richter.common.model.MissingEvidence;
import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.Run;
import dev.richter.common.model.Stages;
import dev.richter.common.model.WorkerResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A run's two gates: the static checks before its pre-test and the dynamic checks on a stage's results. Each adds the
 * team's safety checks ({@link SafetyGate} through {@link SafetyInputs}), stores its results in the run-metrics table
 * ({@code check#static}, {@code check#dynamic}) for the report, and answers the worst outcome with every result.
 */
public final class RunGate {
    /** A gate's answer: the worst outcome and every result; JSON {@code {"outcome": "PASS|WARN|FAIL", "results"}}. */
    public record GateResult(CheckResult.Outcome outcome, List<CheckResult> results) {}

    private final Repositories repositories;
    private final RunMetricsRepository metrics;
    private final SafetyInputs safety;

    RunGate(Repositories repositories, RunMetricsRepository metrics, SafetyInputs safety) {
        this.repositories = repositories;
        this.metrics = metrics;
        this.safety = safety;
    }

    /**
     * The static gate: the plan's own checks ({@link RunChecks#staticChecks}) against the team's registered services,
     * then the team's static safety checks.
     *
     * @throws IllegalArgumentException for an unknown run or plan
     */
    public GateResult staticChecks(String runId) {
        RunScope scope = scope(runId);
        Map<String, RegisteredService> services = new LinkedHashMap<>();
        scope.registered().forEach(s -> services.put(s.name(), s));
        List<CheckResult> results = new ArrayList<>(RunChecks.staticChecks(scope.plan(), services, Marker.DEFAULT));
        results.addAll(safety.staticChecks(scope.plan().teamId(), scope.registered()));
        return store(runId, "static", results);
    }

    /**
     * The dynamic gate on {@code stage}'s worker results: the pre-test's own checks (workers, errors, abort; the
     * success rate after the pre-test's settle, {@link Plan#settleS}, read from the stage's windows), the
     * team's dynamic safety checks on the stage's spans, and the monitoring checks on the run's verdict rounds.
     *
     * @throws IllegalArgumentException for an unknown run or plan
     */
    public GateResult dynamicChecks(String runId, String stage) {
        RunScope scope = scope(runId);
        List<WorkerResult> stageResults = metrics.workerResults(runId).stream()
                .filter(r -> r.stage().equals(stage)).toList();
        int expected = stageResults.isEmpty() ? expectedWorkers(scope.plan(), stage) : stageResults.get(0).workerCount();
        int settleS = Stages.PRE_TEST.equals(stage) ? scope.plan().preTestSettle() : 0;
        List<CheckResult> results = new ArrayList<>(RunChecks.preTestChecks(expected, stageResults, settleS,
                settleS > 0 ? metrics.windowOutcomes(runId, stage) : List.of(),
                scope.run().abortRequested(), scope.run().abortReason()));
        results.addAll(safety.dynamicChecks(scope.plan().teamId(), scope.registered(), stageResults, stage));
        results.addAll(RunChecks.monitoringChecks(MissingEvidence.summarise(VerdictRounds.read(
                repositories.dynamoDb(), repositories.tables().verdicts(), runId, 0))));
        return store(runId, "dynamic", results);
    }

    private record RunScope(Run run, Plan plan, List<RegisteredService> registered) {}

    private RunScope scope(String runId) {
        Run run = repositories.getRun(runId).orElseThrow(() -> new IllegalArgumentException("unknown run " + runId));
        Plan plan = repositories.getPlan(run.planId())
                .orElseThrow(() -> new IllegalArgumentException("unknown plan " + run.planId()));
        return new RunScope(run, plan, repositories.listServices(plan.teamId()));
    }

    private GateResult store(String runId, String gate, List<CheckResult> results) {
        metrics.putChecks(runId, gate, results);
        return new GateResult(CheckResult.worst(results), results);
    }

    private static int expectedWorkers(Plan plan, String stage) {
        return "pre-test".equals(stage) ? Math.max(1, (int) Math.ceil(plan.preTest().qps() / plan.perWorkerQps())) : 1;
    }
}
