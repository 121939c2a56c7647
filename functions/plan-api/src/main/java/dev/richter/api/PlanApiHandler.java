package dev.richter.api;

import com.amazonaws.services.lambda.runtime.Context;
import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.RunLogContext;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Lambda handler of the HTTP API (API Gateway HTTP API, payload format 2.0): decodes the event
 * ({@link ApiRequest#fromEvent}), answers it ({@link PlanApi}) and encodes {@code {statusCode, headers, body,
 * isBase64Encoded}}. Every failure has the API's one error shape {@code {"error", "message", "errors"?}}: an
 * {@link ApiException} its own status, anything else a logged 500 {@code InternalError} that does not leak internals.
 * Every request writes one metrics line ({@link ApiMetrics}). Log lines carry the caller's {@code teamId} and the
 * path's {@code runId} ({@link RunLogContext}); bodies and headers are never logged.
 */
public final class PlanApiHandler extends JsonStreamHandler<JsonNode, Map<String, Object>> {
    private static final Logger LOG = LogManager.getLogger(PlanApiHandler.class);
    private final PlanApi api;
    private final ApiMetrics metrics = new ApiMetrics();

    /** Lambda's constructor: clients and configuration from the environment, built once. */
    public PlanApiHandler() {
        this(PlanApi.fromEnv());
    }

    /** For tests: the given API, metrics of function {@code plan-api}. */
    public PlanApiHandler(PlanApi api) {
        super(JsonNode.class);
        this.api = api;
    }

    @Override
    protected Map<String, Object> handle(JsonNode event, Context context) {
        String routeKey = event.path("routeKey").asText();
        String team = event.path("requestContext").path("authorizer").path("jwt").path("claims").path("team").asText(null);
        String runId = event.path("pathParameters").path("runId").asText(null);
        ApiResponse response;
        try (RunLogContext ignored = RunLogContext.open(runId, team, null, null)) {
            try {
                response = api.handle(ApiRequest.fromEvent(event));
            } catch (ApiException e) {
                response = e.response();
            } catch (RuntimeException e) {
                LOG.error("unhandled error on {}", routeKey, e);
                response = new ApiException(500, "InternalError", "internal error; see the function's logs").response();
            }
        }
        metrics.record(routeKey, response);
        Map<String, Object> headers = new LinkedHashMap<>(response.headers());
        headers.put("content-type", response.contentType());
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("statusCode", response.status());
        out.put("headers", headers);
        out.put("body", response.body());
        out.put("isBase64Encoded", false);
        return out;
    }
}
