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
 * <p>Reads {@code routeKey}, {@code pathParameters}, {@code queryStringParameters}, {@code headers},
 * {@code body}/{@code isBase64Encoded} and the JWT claims ({@code requestContext.authorizer.jwt.claims}:
 * {@code team}, {@code sub}); answers {@code {statusCode, headers, body, isBase64Encoded}}. An
 * {@link ApiException} becomes its 4xx/5xx JSON error; anything else is a logged 500 that does not
 * leak internals.
 */
public final class PlanApiHandler extends JsonStreamHandler<JsonNode, Map<String, Object>> {
    private static final Logger LOG = LogManager.getLogger(PlanApiHandler.class);
    private final PlanApi api;

    /** Lambda's constructor: clients and configuration from the environment, built once. */
    public PlanApiHandler() {
        this(new PlanApi(Repositories.fromEnv(),
                SfnClient.builder().region(AwsClients.region()).httpClientBuilder(UrlConnectionHttpClient.builder()).build(),
                env("LOAD_TEST_RUN_STATE_MACHINE_ARN", ""),
                Double.parseDouble(env("MAX_TEAM_QPS", String.valueOf(PlanApi.DEFAULT_MAX_TEAM_QPS)))));
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
            Map<String, Object> error = new LinkedHashMap<>();
            error.put("error", e.code());
            error.put("message", e.getMessage());
            if (!e.errors().isEmpty()) {
                error.put("errors", e.errors());
            }
            response = ApiResponse.json(e.status(), error);
        } catch (RuntimeException e) {
            LOG.error("unhandled error on {}", event.path("routeKey").asText(), e);
            response = ApiResponse.json(500, Map.of("error", "InternalError", "message", "internal error; see the function's logs"));
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

    /** Reduces a payload 2.0 event to an {@link ApiRequest}. */
    static ApiRequest toRequest(JsonNode e) {
        Map<String, String> headers = new LinkedHashMap<>();
        e.path("headers").fields().forEachRemaining(h -> headers.put(h.getKey().toLowerCase(Locale.ROOT), h.getValue().asText()));
        String bodyText = e.path("body").isTextual() ? e.path("body").asText() : "";
        byte[] body = e.path("isBase64Encoded").asBoolean(false) ? Base64.getDecoder().decode(bodyText)
                : bodyText.getBytes(StandardCharsets.UTF_8);
        JsonNode claims = e.path("requestContext").path("authorizer").path("jwt").path("claims");
        String team = claims.path("team").asText(headers.getOrDefault("x-richter-team", ""));
        if (team.isBlank() && MOCKS_ROUTE.equals(e.path("routeKey").asText())) {
            // the exit-mock SDK fetches a plain URL and cannot send the team header: ?team= names it; with the JWT
            // authorizer (AWS) the claim always wins
            team = e.path("queryStringParameters").path("team").asText("");
        }
        if (team.isBlank()) {
            // every read and write is scoped to a team (DESIGN.md section 7): never guess one
            throw new ApiException(401, "NoTeam", "no team: send a JWT with a 'team' claim (locally the x-richter-team header)");
        }
        String caller = claims.path("sub").asText(headers.getOrDefault("x-richter-user", "anonymous"));
        return new ApiRequest(e.path("routeKey").asText(), Json.MAPPER.convertValue(e.path("pathParameters"), MAP_TYPE),
                Json.MAPPER.convertValue(e.path("queryStringParameters"), MAP_TYPE), headers, body, team, caller);
    }

    /** The route the exit-mock SDK fetches ({@code SHOP_MOCKS_URL=<api>/safety/mocks?team=<team>} locally). */
    static final String MOCKS_ROUTE = "GET /safety/mocks";

    private static final com.fasterxml.jackson.core.type.TypeReference<Map<String, String>> MAP_TYPE = new com.fasterxml.jackson.core.type.TypeReference<>() {};

    private static String env(String name, String fallback) {
        return dev.richter.common.Env.get(name).orElse(fallback);
    }
}
