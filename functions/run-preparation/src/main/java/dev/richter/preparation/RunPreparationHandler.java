package dev.richter.preparation;

import com.amazonaws.services.lambda.runtime.Context;
import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.EventPublisher;
import dev.richter.common.Json;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.MonitorHeartbeat;
import dev.richter.common.Repositories;
import dev.richter.common.RunFlags;
import dev.richter.common.RunLogContext;
import dev.richter.common.RunMetricsRepository;
import dev.richter.common.model.Plan;
import dev.richter.common.model.Run;
import dev.richter.common.run.PlanNotRunnableException;
import dev.richter.common.run.RunPreparation;
import dev.richter.common.run.StoredSets;
import dev.richter.common.sizing.Quotas;
import java.util.Map;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Lambda handler of the run-preparation function, called by the load-test-run state machine before the run and at the
 * start of every step.
 *
 * <p>Actions (field {@code action}):
 * <ul>
 *   <li>{@code prepare} {@code {runId}} → {@link RunPreparation.Stages}; marks the run RUNNING, emits {@code Run Started};
 *       throws {@link PlanNotRunnableException} (a Task failure the state machine catches into the report), also when a
 *       traffic set or data set a scenario names is no longer stored.</li>
 *   <li>{@code start-step} {@code {step: StepRef}} → {@link RunPreparation.StartedStep} (legs and worker indexes, laid
 *       out against {@link Quotas#fromEnv()}); stores the step for its workers ({@link RunPreparation.StepPlan}) and
 *       records the run's current stage/step.</li>
 *   <li>{@code monitoring-lost} {@code {runId, state, error: {Error, Cause}}} → {@code {continue: false,
 *       abortRequested: true, reason}}: a leg's monitor state failed, so the run's abort flag is set with
 *       {@link MonitorHeartbeat#failed} ({@code monitoring lost: <state>: <error>}); the leg's workers stop within their
 *       abort poll and no later step starts. The first reason is kept when the flag was already set.</li>
 * </ul>
 * Any other action is an {@link IllegalArgumentException}. Building data (traffic sets, flows, data sets) is the
 * data-construction function's.
 */
public final class RunPreparationHandler extends JsonStreamHandler<JsonNode, Object> {
    private static final Logger LOG = LogManager.getLogger(RunPreparationHandler.class);
    private final Repositories repositories;
    private final RunFlags runFlags;
    private final EventPublisher events;
    private final RunMetricsRepository runMetrics;
    private final Quotas quotas;
    private final StoredSets storedSets;

    /** Lambda's constructor: clients from the environment, built once per container. */
    public RunPreparationHandler() {
        this(Repositories.fromEnv(), EventPublisher.fromEnv());
    }

    /** For tests: explicit dependencies, quotas from the environment. */
    public RunPreparationHandler(Repositories repositories, EventPublisher events) {
        this(repositories, events, Quotas.fromEnv());
    }

    /** For tests: explicit dependencies and quotas. */
    public RunPreparationHandler(Repositories repositories, EventPublisher events, Quotas quotas) {
        super(JsonNode.class);
        this.repositories = repositories;
        this.runFlags = new RunFlags(repositories.dynamoDb(), repositories.tables().runs());
        this.events = events;
        this.runMetrics = new RunMetricsRepository(repositories.dynamoDb(), repositories.tables().runMetrics());
        this.quotas = quotas;
        this.storedSets = new StoredSets(repositories.dynamoDb(), repositories.tables().registry());
    }

    @Override
    protected Object handle(JsonNode input, Context context) {
        try (RunLogContext ignored = RunLogContext.open(input)) {
            String action = input.path("action").asText();
            return switch (action) {
                case "prepare" -> prepare(input.path("runId").asText());
                case "start-step" -> startStep(Json.MAPPER.convertValue(input.path("step"), RunPreparation.StepRef.class));
                case "monitoring-lost" -> monitoringLost(input.path("runId").asText(), input.path("state").asText(),
                        input.path("error"));
                default -> throw new IllegalArgumentException("unknown action '" + action + "'");
            };
        }
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

    private Map<String, Object> monitoringLost(String runId, String state, JsonNode error) {
        if (runId.isBlank() || state.isBlank()) {
            throw new IllegalArgumentException("monitoring-lost needs runId and state");
        }
        String reason = MonitorHeartbeat.failed(state, error.path("Error").asText(null), error.path("Cause").asText(null));
        LOG.error("run {}: {}; abort flag set", runId, reason);
        runFlags.requestAbort(runId, reason);
        return Map.of("continue", false, "abortRequested", true, "reason", reason);
    }
}
