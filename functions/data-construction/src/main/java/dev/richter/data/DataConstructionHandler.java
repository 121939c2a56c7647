package dev.richter.data;

import com.amazonaws.services.lambda.runtime.Context;
import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.EventPublisher;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.RunFlags;
import dev.richter.common.RunMetricsRepository;
import dev.richter.common.sizing.Quotas;
import dev.richter.common.model.Plan;
import dev.richter.common.model.Run;
import dev.richter.common.run.PlanNotRunnableException;
import dev.richter.common.run.RunPreparation;
import dev.richter.common.model.Marker;
import dev.richter.data.flow.DataSetStore;
import dev.richter.data.flow.Expressions;
import dev.richter.data.flow.FlowRunner;
import dev.richter.data.flow.FlowService;
import dev.richter.data.flow.FlowValidator;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Map;

/**
 * Lambda handler of the data-construction function, called by the load-test-run state machine.
 *
 * <p>Actions (field {@code action}):
 * <ul>
 *   <li>{@code prepare} {@code {runId}} → {@link RunPreparation.Stages}; marks the run RUNNING, emits {@code Run Started};
 *       throws {@link PlanNotRunnableException} (a Task failure the state machine catches into the report), also when a
 *       traffic set or data set a scenario names is no longer stored.</li>
 *   <li>{@code start-step} {@code {step: StepRef}} → {@link RunPreparation.StartedStep} (legs and worker indexes, laid
 *       out against {@link Quotas#fromEnv()}); stores the step for its workers ({@link RunPreparation.StepPlan}) and
 *       records the run's current stage/step.</li>
 *   <li>{@code run-flow} {@code {teamId, flowId, rows, concurrency?, dataSetId?, inputs?, marker?}} →
 *       {@link FlowRunner.Result}: runs (or resumes) a stored flow into a data set ({@link FlowService#run}; calls only
 *       under the base URLs of the team's registered services), starting
 *       rows until {@link #FLOW_MARGIN_MS} before the invocation's own timeout; when rows are still pending
 *       ({@code complete: false}), call again with the same {@code dataSetId}. This is where large data sets are built
 *       (the plan API's synchronous run stops starting rows after 18 s). Throws
 *       {@link FlowValidator.InvalidFlowException} for bad inputs and {@link IllegalArgumentException} for an unknown
 *       flow.</li>
 * </ul>
 */
public final class DataConstructionHandler extends dev.richter.common.JsonStreamHandler<JsonNode, Object> {
    /**
     * Time kept back from the invocation's remaining time when a flow runs, milliseconds: rows stop starting this long
     * before the timeout, so their calls ({@link #FLOW_CALL_TIMEOUT_MS} each) end and the data set is stored in time.
     */
    public static final long FLOW_MARGIN_MS = 20_000;
    /** The longest one HTTP call of a flow may take, milliseconds. */
    public static final long FLOW_CALL_TIMEOUT_MS = 5_000;
    private final Repositories repositories;
    private final RunFlags runFlags;
    private final EventPublisher events;
    private final RunMetricsRepository runMetrics;
    private final Quotas quotas;
    private final FlowService flows;
    private final dev.richter.common.run.StoredSets storedSets;

    /** Lambda's constructor: clients from the environment, built once per container. */
    public DataConstructionHandler() {
        this(Repositories.fromEnv(), EventPublisher.fromEnv());
    }

    /** For tests: explicit dependencies, quotas from the environment. */
    public DataConstructionHandler(Repositories repositories, EventPublisher events) {
        this(repositories, events, Quotas.fromEnv());
    }

    /** For tests: explicit dependencies and quotas. */
    public DataConstructionHandler(Repositories repositories, EventPublisher events, Quotas quotas) {
        super(JsonNode.class);
        this.repositories = repositories;
        this.runFlags = new RunFlags(repositories.dynamoDb(), repositories.tables().runs());
        this.events = events;
        this.runMetrics = new RunMetricsRepository(repositories.dynamoDb(), repositories.tables().runMetrics());
        this.quotas = quotas;
        this.storedSets = new dev.richter.common.run.StoredSets(repositories.dynamoDb(), repositories.tables().registry());
        this.flows = new FlowService(new DataSetStore(repositories.dynamoDb(), repositories.tables().registry()),
                new FlowRunner(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build(), Expressions.DEFAULT,
                        Marker.DEFAULT, Duration.ofMillis(FLOW_CALL_TIMEOUT_MS), System::currentTimeMillis),
                System::currentTimeMillis);
    }

    @Override
    protected Object handle(JsonNode input, Context context) {
        try (dev.richter.common.RunLogContext ignored = dev.richter.common.RunLogContext.open(input)) {
            return handleInRun(input, context);
        }
    }

    /** {@link #handle} with the run's fields in the log context. */
    private Object handleInRun(JsonNode input, Context context) {
        String action = input.path("action").asText();
        return switch (action) {
            case "prepare" -> prepare(input.path("runId").asText());
            case "start-step" -> startStep(Json.MAPPER.convertValue(input.path("step"), RunPreparation.StepRef.class));
            case "run-flow" -> runFlow(input, context == null ? 15 * 60_000L : context.getRemainingTimeInMillis());
            default -> throw new IllegalArgumentException("unknown action '" + action + "'");
        };
    }

    private FlowRunner.Result runFlow(JsonNode input, long remainingMs) {
        String teamId = input.path("teamId").asText();
        String flowId = input.path("flowId").asText();
        Map<String, JsonNode> inputs = new java.util.LinkedHashMap<>();
        input.path("inputs").properties().forEach(e -> inputs.put(e.getKey(), e.getValue()));
        Marker marker = input.has("marker") ? Json.MAPPER.convertValue(input.get("marker"), Marker.class) : Marker.DEFAULT;
        String dataSetId = input.path("dataSetId").isTextual() ? input.path("dataSetId").asText() : null;
        return flows.run(teamId, flowId, dataSetId,
                        new FlowRunner.Request(input.path("rows").asInt(), input.path("concurrency").asInt(8), inputs,
                                repositories.listServices(teamId).stream().map(dev.richter.common.model.RegisteredService::baseUrl).toList()), marker,
                        System.currentTimeMillis() + Math.max(0, remainingMs - FLOW_MARGIN_MS))
                .orElseThrow(() -> new IllegalArgumentException("team " + teamId + " has no flow " + flowId));
    }

    private RunPreparation.Stages prepare(String runId) {
        Run run = repositories.getRun(runId).orElseThrow(() -> new PlanNotRunnableException("unknown run " + runId));
        Plan plan = repositories.getPlan(run.planId())
                .orElseThrow(() -> new PlanNotRunnableException("run " + runId + " refers to unknown plan " + run.planId()));
        RunPreparation.Stages stages = RunPreparation.prepare(runId, plan, name -> repositories.getService(plan.teamId(), name));
        for (Plan.ScenarioSpec s : plan.scenarios()) {
            if (s.trafficSetId() != null && storedSets.manifest(plan.teamId(), "trafficset#" + s.trafficSetId()).isEmpty()) {
                throw new PlanNotRunnableException("scenario '" + s.name() + "' replays traffic set '" + s.trafficSetId()
                        + "', which team '" + plan.teamId() + "' no longer stores");
            }
            for (Plan.DataBinding b : s.data()) {
                if (storedSets.manifest(plan.teamId(), "dataset#" + b.dataSetId()).isEmpty()) {
                    throw new PlanNotRunnableException("scenario '" + s.name() + "' draws from data set '" + b.dataSetId()
                            + "', which team '" + plan.teamId() + "' no longer stores");
                }
            }
        }
        repositories.updateRun(runId, Map.of("status", "RUNNING"));
        events.publish("Run Started", Map.of("runId", runId, "planId", plan.planId(), "teamId", plan.teamId()));
        return stages;
    }

    private RunPreparation.StartedStep startStep(RunPreparation.StepRef step) {
        Run run = repositories.getRun(step.runId()).orElseThrow(() -> new PlanNotRunnableException("unknown run " + step.runId()));
        Plan plan = repositories.getPlan(run.planId()).orElseThrow();
        boolean aborted = runFlags.isAbortRequested(step.runId());
        var started = RunPreparation.start(step, plan, repositories.listServices(plan.teamId()),
                System.currentTimeMillis(), aborted, quotas);
        if (!aborted) {
            runMetrics.putStepPlan(RunPreparation.stepPlan(started, plan));
            repositories.updateRun(step.runId(), Map.of("stage", step.stage(), "stepIndex", step.stepIndex(),
                    "stepQps", step.qps(), "stepEndsAtMs", started.stepEndsAtMs()));
        }
        return started;
    }
}
