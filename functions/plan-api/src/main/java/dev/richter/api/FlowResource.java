package dev.richter.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.AuditLog;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.model.Marker;
import dev.richter.common.model.RegisteredService;
import dev.richter.data.flow.Flow;
import dev.richter.data.flow.FlowRunner;
import dev.richter.data.flow.FlowService;
import dev.richter.data.flow.FlowValidator;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code /flows}: flows of logic units (DESIGN.md, "Logic units, flows and data sets") and their runs into data sets. */
final class FlowResource {
    /**
     * How long {@code POST /flows/{flowId}/runs} starts rows, milliseconds from the request: with
     * {@link #FLOW_CALL_TIMEOUT_MS} per call, the last row's calls end by 23 s and the data set is stored within the
     * function's 29 s timeout (API Gateway's integration limit is 30 s). Larger data sets run in the
     * data-construction function's {@code run-flow} action and resume with the same {@code dataSetId}.
     */
    static final long FLOW_RUN_BUDGET_MS = 18_000;
    /** The longest one HTTP call of a flow may take in the API, milliseconds. */
    static final long FLOW_CALL_TIMEOUT_MS = 5_000;

    private final FlowService flows;
    private final Repositories repositories;
    private final AuditLog audit;
    private final InputValidator validator;
    private final Clock clock;

    FlowResource(FlowService flows, Repositories repositories, AuditLog audit, InputValidator validator, Clock clock) {
        this.flows = flows;
        this.repositories = repositories;
        this.audit = audit;
        this.validator = validator;
        this.clock = clock;
    }

    /**
     * {@code POST /flows}: validates a flow ({@code FlowInput} in openapi.json, then {@link FlowValidator}: unknown
     * slots, cycles, type mismatches, JSONata syntax) and stores it under a new id. Server fields ({@code flowId},
     * {@code teamId}, {@code createdAtMs}) in the body are ignored.
     *
     * @return 201 with the stored flow, {@code Location: /flows/<flowId>}
     * @throws ApiException 400 {@code ValidationFailed} with every {@code {path, reason}} (e.g.
     *                      {@code $.units[2].inputs.token}); nothing is stored then
     */
    ApiResponse create(ApiRequest req) {
        JsonNode doc = validator.parse("FlowInput", req.body());
        Flow flow;
        try {
            flow = flows.create(req.teamId(), Json.MAPPER.convertValue(doc, Flow.class));
        } catch (FlowValidator.InvalidFlowException e) {
            throw invalid(e);
        }
        audit.record(req.teamId(), req.caller(), "CreateFlow", flow.flowId(), null, flow);
        return ApiResponse.created(flow, "/flows/" + flow.flowId());
    }

    /** {@code GET /flows/{flowId}}: the team's flow; another team's is a 404. */
    ApiResponse get(ApiRequest req) {
        String flowId = req.path("flowId");
        return ApiResponse.json(200, flows.get(req.teamId(), flowId).orElseThrow(() -> ApiException.notFound("flow", flowId)));
    }

    /**
     * {@code POST /flows/{flowId}/runs} {@code {rows, concurrency?, dataSetId?, inputs?, marker?}}: runs the flow
     * synchronously, rows starting for at most {@link #FLOW_RUN_BUDGET_MS} ({@link FlowService#run}). Every HTTP call
     * carries the marker ({@code marker}, default {@code baggage: richter-loadtest=1}) and goes only to URLs under the
     * base URLs of the team's registered services (a call elsewhere fails its row unsent). Answers 201 with the result
     * ({@code FlowRunResult}) and {@code Location: /data-sets/<id>} when every row was attempted and the data set is
     * stored; 202 with the result when rows are still pending: post again with the same {@code dataSetId} to resume
     * (rows already {@code ok} are skipped, so none is created twice).
     *
     * @throws ApiException 400 {@code ValidationFailed} ({@code FlowRunRequest}; {@code $.inputs.<name>},
     *                      {@code $.dataSetId}); 404 for an unknown flow
     */
    ApiResponse run(ApiRequest req) {
        String flowId = req.path("flowId");
        long startMs = clock.millis();
        JsonNode doc = validator.parse("FlowRunRequest", req.body());
        Map<String, JsonNode> inputs = new LinkedHashMap<>();
        doc.path("inputs").properties().forEach(e -> inputs.put(e.getKey(), e.getValue()));
        Marker marker = (doc.has("marker") ? Json.MAPPER.convertValue(doc.get("marker"), Marker.class) : Marker.DEFAULT)
                .signed(repositories.ensureMarkerKeys(req.teamId()).get(0), req.teamId(), "flow:" + flowId,
                        (startMs + FLOW_RUN_BUDGET_MS) / 1000 + 60);
        FlowRunner.Result result;
        try {
            result = flows.run(req.teamId(), flowId, doc.path("dataSetId").isTextual() ? doc.path("dataSetId").asText() : null,
                    new FlowRunner.Request(doc.path("rows").asInt(), doc.path("concurrency").asInt(8), inputs,
                            repositories.listServices(req.teamId()).stream().map(RegisteredService::baseUrl).toList()), marker,
                    startMs + FLOW_RUN_BUDGET_MS).orElseThrow(() -> ApiException.notFound("flow", flowId));
        } catch (FlowValidator.InvalidFlowException e) {
            throw invalid(e);
        }
        audit.record(req.teamId(), req.caller(), "RunFlow", flowId, null, Map.of("dataSetId", result.dataSetId(),
                "rows", result.rows(), "ok", result.ok(), "failed", result.failed(), "pending", result.pending()));
        return result.complete()
                ? ApiResponse.created(result, "/data-sets/" + result.dataSetId())
                : ApiResponse.json(202, result);
    }

    private static ApiException invalid(FlowValidator.InvalidFlowException e) {
        List<Map<String, String>> errors = e.problems().stream().map(p -> Map.of("path", p.path(), "reason", p.reason())).toList();
        return new ApiException(400, "ValidationFailed", e.getMessage(), errors);
    }
}
