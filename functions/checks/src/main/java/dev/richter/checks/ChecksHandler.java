package dev.richter.checks;

import com.amazonaws.services.lambda.runtime.Context;
import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.EventPublisher;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.Repositories;
import dev.richter.common.RunLogContext;
import dev.richter.common.RunMetricsRepository;
import dev.richter.common.VerdictRounds;
import dev.richter.common.model.CheckResult;
import dev.richter.common.model.MissingEvidence;
import dev.richter.common.model.Marker;
import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.Run;
import dev.richter.common.model.WorkerResult;
import dev.richter.links.LinkService;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Lambda handler of the checks function.
 *
 * <p>Run gates: {@code static} {@code {runId}} and {@code dynamic} {@code {runId, stage}} →
 * {@code {"outcome": "PASS|WARN|FAIL", "results": [CheckResult...]}}; results are also stored in
 * the run-metrics table ({@code check#static}, {@code check#dynamic}) for the report. Both add the team's
 * safety checks ({@link SafetyGate}: mocks, shadow storage, queues, middleware; on the pre-test's spans from
 * the team's trace source: marker propagation, mocked exits, link comparison).
 * Nightly: {@code nightly-scopes}, {@code nightly-static}, {@code nightly-dynamic},
 * {@code nightly-compare} and {@code nightly-failed} with {@code {scope}} (see {@link NightlyCheck}).
 */
public final class ChecksHandler extends JsonStreamHandler<JsonNode, Object> {
    /** A gate's answer: the worst outcome and every result. */
    public record GateResult(CheckResult.Outcome outcome, List<CheckResult> results) {}

    private final Repositories repositories;
    private final RunMetricsRepository metrics;
    private final NightlyCheck nightly;
    private final SafetyInputs safety;

    public ChecksHandler() {
        this(Repositories.fromEnv(), EventPublisher.fromEnv());
    }

    public ChecksHandler(Repositories repositories, EventPublisher events) {
        this(repositories, events, new SafetyGate());
    }

    /** For tests: {@code gate} with a fake clock and sleeper. */
    public ChecksHandler(Repositories repositories, EventPublisher events, SafetyGate gate) {
        super(JsonNode.class);
        this.repositories = repositories;
        this.metrics = new RunMetricsRepository(repositories.dynamoDb(), repositories.tables().runMetrics());
        this.safety = new SafetyInputs(repositories, new LinkService(repositories.dynamoDb(), repositories.tables().links()), gate);
        this.nightly = new NightlyCheck(repositories, events, safety);
    }

    @Override
    protected Object handle(JsonNode input, Context context) {
        try (RunLogContext ignored = RunLogContext.open(input)) {
            return handleInRun(input, context);
        }
    }

    /** {@link #handle} with the run's fields in the log context. */
    private Object handleInRun(JsonNode input, Context context) {
        String action = input.path("action").asText();
        long now = System.currentTimeMillis();
        switch (action) {
            case "nightly-scopes":
                return nightly.scopes(now);
            case "nightly-static":
                return nightly.staticChecks(input.path("scope"), now);
            case "nightly-dynamic":
                return nightly.dynamicChecks(input.path("scope"));
            case "nightly-failed":
                return nightly.failed(input.path("scope"));
            case "nightly-compare":
                return nightly.compare(input.path("scope"));
            default:
                return gate(action, input);
        }
    }

    private GateResult gate(String action, JsonNode input) {
        String runId = input.path("runId").asText();
        Run run = repositories.getRun(runId).orElseThrow(() -> new IllegalArgumentException("unknown run " + runId));
        Plan plan = repositories.getPlan(run.planId()).orElseThrow(() -> new IllegalArgumentException("unknown plan " + run.planId()));
        List<RegisteredService> registered = repositories.listServices(plan.teamId());
        List<CheckResult> results = new ArrayList<>();
        switch (action) {
            case "static" -> {
                Map<String, RegisteredService> services = new LinkedHashMap<>();
                registered.forEach(s -> services.put(s.name(), s));
                results.addAll(RunChecks.staticChecks(plan, services, Marker.DEFAULT));
                results.addAll(safety.staticChecks(plan.teamId(), registered));
            }
            case "dynamic" -> {
                String stage = input.path("stage").asText("pre-test");
                List<WorkerResult> stageResults = metrics.workerResults(runId).stream()
                        .filter(r -> r.stage().equals(stage)).toList();
                int expected = stageResults.isEmpty() ? expectedWorkers(plan, stage) : stageResults.get(0).workerCount();
                results.addAll(RunChecks.preTestChecks(expected, stageResults, run.abortRequested(), run.abortReason()));
                results.addAll(safety.dynamicChecks(plan.teamId(), registered, stageResults, stage));
                results.addAll(RunChecks.monitoringChecks(MissingEvidence.summarise(VerdictRounds.read(
                        repositories.dynamoDb(), repositories.tables().verdicts(), runId, 0))));
            }
            default -> throw new IllegalArgumentException("unknown action '" + action + "'");
        }
        metrics.putChecks(runId, action, results);
        return new GateResult(CheckResult.worst(results), results);
    }

    private static int expectedWorkers(Plan plan, String stage) {
        return "pre-test".equals(stage) ? Math.max(1, (int) Math.ceil(plan.preTest().qps() / plan.perWorkerQps())) : 1;
    }
}
