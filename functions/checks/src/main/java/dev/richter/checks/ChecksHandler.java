package dev.richter.checks;

import com.amazonaws.services.lambda.runtime.Context;
import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.Repositories;
import dev.richter.common.RunMetricsRepository;
import dev.richter.common.model.CheckResult;
import dev.richter.common.model.Marker;
import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.Run;
import dev.richter.common.model.WorkerResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Lambda handler of the checks function.
 *
 * <p>Actions: {@code static} {@code {runId}} and {@code dynamic} {@code {runId, stage}} →
 * {@code {"outcome": "PASS|WARN|FAIL", "results": [CheckResult...]}}; results are also stored in
 * the run-metrics table ({@code check#static}, {@code check#dynamic}) for the report.
 */
public final class ChecksHandler extends JsonStreamHandler<JsonNode, ChecksHandler.Outcome> {
    /** A gate's answer: the worst outcome and every result. */
    public record Outcome(CheckResult.Outcome outcome, List<CheckResult> results) {}

    private final Repositories repositories;
    private final RunMetricsRepository metrics;

    public ChecksHandler() {
        this(Repositories.fromEnv());
    }

    public ChecksHandler(Repositories repositories) {
        super(JsonNode.class);
        this.repositories = repositories;
        this.metrics = new RunMetricsRepository(repositories.dynamoDb(), repositories.tables().runMetrics());
    }

    @Override
    protected Outcome handle(JsonNode input, Context context) {
        String action = input.path("action").asText();
        String runId = input.path("runId").asText();
        Run run = repositories.getRun(runId).orElseThrow(() -> new IllegalArgumentException("unknown run " + runId));
        Plan plan = repositories.getPlan(run.planId()).orElseThrow(() -> new IllegalArgumentException("unknown plan " + run.planId()));
        List<CheckResult> results = switch (action) {
            case "static" -> {
                Map<String, RegisteredService> services = new LinkedHashMap<>();
                repositories.listServices(plan.teamId()).forEach(s -> services.put(s.name(), s));
                yield RunChecks.staticChecks(plan, services, Marker.DEFAULT);
            }
            case "dynamic" -> {
                String stage = input.path("stage").asText("pre-test");
                List<WorkerResult> stageResults = metrics.workerResults(runId).stream()
                        .filter(r -> r.stage().equals(stage)).toList();
                int expected = stageResults.isEmpty() ? expectedWorkers(plan, stage) : stageResults.get(0).workerCount();
                yield RunChecks.preTestChecks(expected, stageResults, run.abortRequested(), run.abortReason());
            }
            default -> throw new IllegalArgumentException("unknown action '" + action + "'");
        };
        metrics.putChecks(runId, action, results);
        return new Outcome(CheckResult.worst(results), results);
    }

    private static int expectedWorkers(Plan plan, String stage) {
        return "pre-test".equals(stage) ? Math.max(1, (int) Math.ceil(plan.preTest().qps() / plan.perWorkerQps())) : 1;
    }
}
