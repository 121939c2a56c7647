package dev.richter.api;

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
    public ApiRequest {
        pathParameters = pathParameters == null ? Map.of() : Map.copyOf(pathParameters);
        query = query == null ? Map.of() : Map.copyOf(query);
        headers = headers == null ? Map.of() : Map.copyOf(headers);
        body = body == null ? new byte[0] : body;
        teamId = teamId == null ? "" : teamId;
        caller = caller == null ? "" : caller;
    }

    /** A path parameter that API Gateway guarantees by the route. */
    public String path(String name) {
        String v = pathParameters.get(name);
        if (v == null || v.isBlank()) {
            throw ApiException.badField("path." + name, "missing");
        }
        return v;
    }
}
