package dev.richter.data;

import com.amazonaws.services.lambda.runtime.Context;
import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.Repositories;
import dev.richter.common.RunLogContext;
import dev.richter.common.model.Marker;
import dev.richter.common.model.RegisteredService;
import dev.richter.data.flow.DataSetStore;
import dev.richter.data.flow.Expressions;
import dev.richter.data.flow.FlowRunner;
import dev.richter.data.flow.FlowService;
import dev.richter.data.flow.FlowValidator;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Lambda handler of the data-construction function: builds data. Runs and steps are prepared by the run-preparation
 * function ({@code functions/run-preparation}).
 *
 * <p>Actions (field {@code action}):
 * <ul>
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
public final class DataConstructionHandler extends JsonStreamHandler<JsonNode, Object> {
    /**
     * Time kept back from the invocation's remaining time when a flow runs, milliseconds: rows stop starting this long
     * before the timeout, so their calls ({@link #FLOW_CALL_TIMEOUT_MS} each) end and the data set is stored in time.
     */
    public static final long FLOW_MARGIN_MS = 20_000;
    /** The longest one HTTP call of a flow may take, milliseconds. */
    public static final long FLOW_CALL_TIMEOUT_MS = 5_000;
    private final Repositories repositories;
    private final FlowService flows;

    /** Lambda's constructor: clients from the environment, built once per container. */
    public DataConstructionHandler() {
        this(Repositories.fromEnv());
    }

    /** For tests: explicit tables and client. */
    public DataConstructionHandler(Repositories repositories) {
        super(JsonNode.class);
        this.repositories = repositories;
        this.flows = new FlowService(new DataSetStore(repositories.dynamoDb(), repositories.tables().registry()),
                new FlowRunner(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build(), Expressions.DEFAULT,
                        Marker.DEFAULT, Duration.ofMillis(FLOW_CALL_TIMEOUT_MS), System::currentTimeMillis),
                System::currentTimeMillis);
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
        return switch (action) {
            case "run-flow" -> runFlow(input, context == null ? 15 * 60_000L : context.getRemainingTimeInMillis());
            default -> throw new IllegalArgumentException("unknown action '" + action + "'");
        };
    }

    private FlowRunner.Result runFlow(JsonNode input, long remainingMs) {
        String teamId = input.path("teamId").asText();
        String flowId = input.path("flowId").asText();
        Map<String, JsonNode> inputs = new LinkedHashMap<>();
        input.path("inputs").properties().forEach(e -> inputs.put(e.getKey(), e.getValue()));
        Marker marker = input.has("marker") ? Json.MAPPER.convertValue(input.get("marker"), Marker.class) : Marker.DEFAULT;
        String dataSetId = input.path("dataSetId").isTextual() ? input.path("dataSetId").asText() : null;
        return flows.run(teamId, flowId, dataSetId,
                        new FlowRunner.Request(input.path("rows").asInt(), input.path("concurrency").asInt(8), inputs,
                                repositories.listServices(teamId).stream().map(RegisteredService::baseUrl).toList()), marker,
                        System.currentTimeMillis() + Math.max(0, remainingMs - FLOW_MARGIN_MS))
                .orElseThrow(() -> new IllegalArgumentException("team " + teamId + " has no flow " + flowId));
    }
}
