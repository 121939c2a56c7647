package dev.richter.api;

import com.amazonaws.services.lambda.runtime.Context;
import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.AwsClients;
import dev.richter.common.Json;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.Repositories;
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
 */
public final class PlanApiHandler extends JsonStreamHandler<JsonNode, Map<String, Object>> {
    private static final Logger LOG = LogManager.getLogger(PlanApiHandler.class);
    private final PlanApi api;

    /** Lambda's constructor: clients and configuration from the environment, built once. */
    public PlanApiHandler() {
        this(Repositories.fromEnv());
    }

    private PlanApiHandler(Repositories repositories) {
        this(new PlanApi(repositories,
                SfnClient.builder().region(AwsClients.region()).httpClientBuilder(UrlConnectionHttpClient.builder()).build(),
                env("LOAD_TEST_RUN_STATE_MACHINE_ARN", ""),
                Double.parseDouble(env("MAX_TEAM_QPS", String.valueOf(PlanApi.DEFAULT_MAX_TEAM_QPS))),
                dev.richter.common.sizing.Quotas::fromEnv, dev.richter.report.ReportRepository.fromEnv(repositories)));
    }

    /** For tests. */
    public PlanApiHandler(PlanApi api) {
        super(JsonNode.class);
        this.api = api;
    }

    @Override
    protected Map<String, Object> handle(JsonNode event, Context context) {
        ApiResponse response;
        try {
            response = api.handle(toRequest(event));
        } catch (ApiException e) {
            response = error(e);
        } catch (RuntimeException e) {
            LOG.error("unhandled error on {}", event.path("routeKey").asText(), e);
            response = error(new ApiException(500, "InternalError", "internal error; see the function's logs"));
        }
        Map<String, Object> headers = new LinkedHashMap<>(response.headers());
        headers.put("content-type", response.contentType());
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("statusCode", response.status());
        out.put("headers", headers);
        out.put("body", response.body());
        out.put("isBase64Encoded", false);
        return out;
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

    private static final com.fasterxml.jackson.core.type.TypeReference<Map<String, String>> MAP_TYPE = new com.fasterxml.jackson.core.type.TypeReference<>() {};

    private static String env(String name, String fallback) {
        return dev.richter.common.Env.get(name).orElse(fallback);
    }
}
