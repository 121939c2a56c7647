package dev.richter.api;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One HTTP API request, reduced from an API Gateway HTTP API payload 2.0 event.
 *
 * @param routeKey       e.g. {@code POST /plans/{planId}/runs}; {@code $default} when no route matched
 * @param method         the HTTP method
 * @param rawPath        the request path without the stage prefix, e.g. {@code /plans/plan-1/runs}
 * @param pathParameters e.g. {@code {"planId": "plan-1"}}
 * @param query          query string parameters
 * @param headers        headers, lower-case names
 * @param body           raw body bytes (base64-decoded when the event says so)
 * @param teamId         the caller's team: the verified JWT's {@code team} claim; empty on a route without
 *                       authorizer or for a token without the claim
 * @param caller         who calls: the verified JWT's {@code sub} claim; empty when absent
 */
public record ApiRequest(String routeKey, String method, String rawPath, Map<String, String> pathParameters,
                         Map<String, String> query, Map<String, String> headers, byte[] body, String teamId, String caller) {
    /**
     * The largest request body, bytes (4 MiB): 413 {@code PayloadTooLarge} above it. Base64 in the Lambda event makes
     * it 5.6 MB, under the 6 MB invocation payload limit, so a body under this limit always reaches the function.
     */
    public static final int MAX_BODY_BYTES = 4 * 1024 * 1024;
    private static final TypeReference<Map<String, String>> MAP_TYPE = new TypeReference<>() {};

    public ApiRequest {
        pathParameters = pathParameters == null ? Map.of() : Map.copyOf(pathParameters);
        query = query == null ? Map.of() : Map.copyOf(query);
        headers = headers == null ? Map.of() : Map.copyOf(headers);
        body = body == null ? new byte[0] : body;
        teamId = teamId == null ? "" : teamId;
        caller = caller == null ? "" : caller;
    }

    /**
     * Reduces a payload 2.0 event to a request: {@code routeKey}, {@code rawPath} (stage prefix removed),
     * {@code requestContext.http.method}, {@code pathParameters}, {@code queryStringParameters}, {@code headers},
     * {@code body}/{@code isBase64Encoded}; team and caller from the claims the JWT authorizer verified
     * ({@code requestContext.authorizer.jwt.claims}: {@code team}, {@code sub}) only, never from a header.
     *
     * @throws ApiException 413 {@code PayloadTooLarge} for a body over {@link #MAX_BODY_BYTES}
     */
    public static ApiRequest fromEvent(JsonNode e) {
        Map<String, String> headers = new LinkedHashMap<>();
        e.path("headers").properties().forEach(h -> headers.put(h.getKey().toLowerCase(Locale.ROOT), h.getValue().asText()));
        String bodyText = e.path("body").isTextual() ? e.path("body").asText() : "";
        byte[] body = e.path("isBase64Encoded").asBoolean(false) ? Base64.getDecoder().decode(bodyText)
                : bodyText.getBytes(StandardCharsets.UTF_8);
        if (body.length > MAX_BODY_BYTES) {
            throw new ApiException(413, "PayloadTooLarge", "body: " + body.length + " bytes, over the limit of "
                    + MAX_BODY_BYTES + " bytes (send a large trace export as several files of whole traces)");
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

    /** A path parameter that API Gateway guarantees by the route; 400 at {@code path.<name>} when it is missing. */
    public String path(String name) {
        String v = pathParameters.get(name);
        if (v == null || v.isBlank()) {
            throw ApiException.badField("path." + name, "missing");
        }
        return v;
    }
}
