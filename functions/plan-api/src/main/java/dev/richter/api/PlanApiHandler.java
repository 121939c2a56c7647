package dev.richter.api;

import com.amazonaws.services.lambda.runtime.Context;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.AwsClients;
import dev.richter.common.Env;
import dev.richter.common.Json;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.Repositories;
import dev.richter.common.RunLogContext;
import dev.richter.common.metrics.RichterMetrics;
import dev.richter.sizing.Quotas;
import dev.richter.report.ReportRepository;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.sfn.SfnClient;

/**
 * Lambda handler of the HTTP API (API Gateway HTTP API, payload format 2.0).
 *
 * <p>Reads {@code routeKey}, {@code rawPath}, {@code requestContext.http.method}, {@code pathParameters},
 * {@code queryStringParameters}, {@code headers}, {@code body}/{@code isBase64Encoded} and the claims the JWT
 * authorizer verified ({@code requestContext.authorizer.jwt.claims}: {@code team} scopes every read and write,
 * {@code sub} is the caller); no header can stand in for them. Answers {@code {statusCode, headers, body,
 * isBase64Encoded}}. Every failure has the API's one error shape {@code {"error", "message", "errors"?}}: an
 * {@link ApiException} its own status, a body over {@link PlanApi#MAX_BODY_BYTES} 413 {@code PayloadTooLarge},
 * anything else a logged 500 {@code InternalError} that does not leak internals.
 *
 * <p>Every request writes one EMF line ({@link RichterMetrics}, function {@code plan-api}): {@code Requests} and one of
 * {@code Requests2xx}, {@code Requests3xx}, {@code Requests4xx}, {@code Requests5xx} (Count, 1 for the answer's
 * status class, 0 for the others), with the route key ({@code routeKey}, e.g. {@code POST /plans/{planId}/runs};
 * {@code $default} for unknown routes: a bounded set) and {@code status} as properties; a started run (202 on
 * {@code POST /plans/{planId}/runs}, not an idempotent replay) adds {@code RunsStarted} (Count) and its {@code runId}.
 * Log lines carry the caller's {@code teamId} and the path's {@code runId} ({@link RunLogContext}); bodies and headers
 * are never logged.
 */
public final class PlanApiHandler extends JsonStreamHandler<JsonNode, Map<String, Object>> {
    private static final Logger LOG = LogManager.getLogger(PlanApiHandler.class);
    /** The route that starts a run. */
    static final String START_RUN_ROUTE = "POST /plans/{planId}/runs";
    private final PlanApi api;
    private final RichterMetrics metrics;

    /** Lambda's constructor: clients and configuration from the environment, built once. */
    public PlanApiHandler() {
        this(Repositories.fromEnv());
    }

    private PlanApiHandler(Repositories repositories) {
        this(new PlanApi(repositories,
                SfnClient.builder().region(AwsClients.region()).httpClientBuilder(UrlConnectionHttpClient.builder()).build(),
                env("LOAD_TEST_RUN_STATE_MACHINE_ARN", ""),
                Double.parseDouble(env("MAX_TEAM_QPS", String.valueOf(PlanApi.DEFAULT_MAX_TEAM_QPS))),
                Quotas::fromEnv, ReportRepository.fromEnv(repositories)));
    }

    /** For tests: metrics of function {@code plan-api}. */
    public PlanApiHandler(PlanApi api) {
        super(JsonNode.class);
        this.api = api;
        this.metrics = RichterMetrics.forFunction("plan-api");
    }

    @Override
    protected Map<String, Object> handle(JsonNode event, Context context) {
        String routeKey = event.path("routeKey").asText();
        String team = event.path("requestContext").path("authorizer").path("jwt").path("claims").path("team").asText(null);
        String runId = event.path("pathParameters").path("runId").asText(null);
        ApiResponse response;
        try (RunLogContext ignored = RunLogContext.open(runId, team, null, null)) {
            try {
                response = api.handle(toRequest(event));
            } catch (ApiException e) {
                response = error(e);
            } catch (RuntimeException e) {
                LOG.error("unhandled error on {}", routeKey, e);
                response = error(new ApiException(500, "InternalError", "internal error; see the function's logs"));
            }
        }
        emit(routeKey, response);
        Map<String, Object> headers = new LinkedHashMap<>(response.headers());
        headers.put("content-type", response.contentType());
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("statusCode", response.status());
        out.put("headers", headers);
        out.put("body", response.body());
        out.put("isBase64Encoded", false);
        return out;
    }

    private void emit(String routeKey, ApiResponse response) {
        int statusClass = response.status() / 100;
        RichterMetrics.Emission e = metrics.emission().count("Requests", 1)
                .property("route", routeKey)
                .property("status", response.status());
        for (int c = 2; c <= 5; c++) {
            e.count("Requests" + c + "xx", c == statusClass ? 1 : 0);
        }
        if (routeKey.equals(START_RUN_ROUTE) && response.status() == 202
                && !"true".equals(String.valueOf(response.headers().get("Idempotent-Replayed")))) {
            e.count("RunsStarted", 1);
            try {
                e.property("runId", Json.MAPPER.readTree(response.body()).path("runId").asText(null));
            } catch (IOException | RuntimeException ignored) {
                // the count stands without the run id
            }
        }
        e.flush();
    }

    /** The API's one error shape. */
    static ApiResponse error(ApiException e) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("error", e.code());
        error.put("message", e.getMessage());
        if (!e.errors().isEmpty()) {
            error.put("errors", e.errors());
        }
        return new ApiResponse(e.status(), "application/json", Json.write(error), e.headers());
    }

    /**
     * Reduces a payload 2.0 event to an {@link ApiRequest}: team and caller from the verified claims only.
     *
     * @throws ApiException 413 {@code PayloadTooLarge} for a body over {@link PlanApi#MAX_BODY_BYTES}
     */
    static ApiRequest toRequest(JsonNode e) {
        Map<String, String> headers = new LinkedHashMap<>();
        e.path("headers").properties().forEach(h -> headers.put(h.getKey().toLowerCase(Locale.ROOT), h.getValue().asText()));
        String bodyText = e.path("body").isTextual() ? e.path("body").asText() : "";
        byte[] body = e.path("isBase64Encoded").asBoolean(false) ? Base64.getDecoder().decode(bodyText)
                : bodyText.getBytes(StandardCharsets.UTF_8);
        if (body.length > PlanApi.MAX_BODY_BYTES) {
            throw new ApiException(413, "PayloadTooLarge", "body: " + body.length + " bytes, over the limit of "
                    + PlanApi.MAX_BODY_BYTES + " bytes (send a large trace export as several files of whole traces)");
        }
        JsonNode claims = e.path("requestContext").path("authorizer").path("jwt").path("claims");
        String method = e.path("requestContext").path("http").path("method").asText("");
        return new ApiRequest(e.path("routeKey").asText(), method, rawPath(e),
                Json.MAPPER.convertValue(e.path("pathParameters"), MAP_TYPE),
                Json.MAPPER.convertValue(e.path("queryStringParameters"), MAP_TYPE), headers, body,
                claims.path("team").asText(""), claims.path("sub").asText(""));
    }

    /** The request path without the stage prefix API Gateway keeps in {@code rawPath} for a named stage. */
    private static String rawPath(JsonNode e) {
        String path = e.path("rawPath").asText("/");
        String stage = e.path("requestContext").path("stage").asText("$default");
        String prefix = "/" + stage;
        return !stage.equals("$default") && (path.equals(prefix) || path.startsWith(prefix + "/"))
                ? (path.length() == prefix.length() ? "/" : path.substring(prefix.length())) : path;
    }

    private static final TypeReference<Map<String, String>> MAP_TYPE = new TypeReference<>() {};

    private static String env(String name, String fallback) {
        return Env.get(name).orElse(fallback);
    }
}
