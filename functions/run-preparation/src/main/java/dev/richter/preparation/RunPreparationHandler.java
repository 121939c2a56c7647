package dev.richter.preparation;

import com.amazonaws.services.lambda.runtime.Context;
import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.EventPublisher;
import dev.richter.common.Json;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.Repositories;
import dev.richter.common.RunLogContext;
import dev.richter.common.model.StepRef;
import dev.richter.sizing.Quotas;

/**
 * Lambda handler of the run-preparation function, called by the load-test-run state machine before the run and at the
 * start of every step. Each action is one {@link RunPreparer} use case:
 * <ul>
 *   <li>{@code prepare {runId}} → {@link RunPreparer#prepare} (the run's stages);</li>
 *   <li>{@code start-step {step: StepRef}} → {@link RunPreparer#startStep} (legs and workers, laid out against
 *       {@link Quotas#fromEnv()});</li>
 *   <li>{@code monitoring-lost {runId, state, error: {Error, Cause}}} → {@link RunPreparer#monitoringLost} (sets the
 *       abort flag).</li>
 * </ul>
 * Any other action is an {@link IllegalArgumentException}; the use cases' failures propagate to Step Functions.
 */
public final class RunPreparationHandler extends JsonStreamHandler<JsonNode, Object> {
    private final RunPreparer preparer;

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
        this.preparer = new RunPreparer(repositories, events, quotas);
    }

    @Override
    protected Object handle(JsonNode input, Context context) {
        try (RunLogContext ignored = RunLogContext.open(input)) {
            String action = input.path("action").asText();
            return switch (action) {
                case "prepare" -> preparer.prepare(input.path("runId").asText());
                case "start-step" -> preparer.startStep(Json.MAPPER.convertValue(input.path("step"), StepRef.class),
                        System.currentTimeMillis());
                case "monitoring-lost" -> preparer.monitoringLost(input.path("runId").asText(),
                        input.path("state").asText(), input.path("error").path("Error").asText(null),
                        input.path("error").path("Cause").asText(null));
                default -> throw new IllegalArgumentException("unknown action '" + action + "'");
            };
        }
    }
}
