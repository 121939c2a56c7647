package dev.richter.api;

import java.util.Map;

/**
 * One HTTP API request, reduced from an API Gateway HTTP API payload 2.0 event.
 *
 * @param routeKey       e.g. {@code POST /plans/{planId}/runs}
 * @param pathParameters e.g. {@code {"planId": "plan-1"}}
 * @param query          query string parameters
 * @param headers        headers, lower-case names
 * @param body           raw body bytes (base64-decoded when the event says so)
 * @param teamId         the caller's team (JWT claim {@code team}; locally header {@code x-richter-team}; default {@code default})
 * @param caller         who calls (JWT {@code sub}; locally header {@code x-richter-user}; default {@code anonymous})
 */
public record ApiRequest(String routeKey, Map<String, String> pathParameters, Map<String, String> query,
                         Map<String, String> headers, byte[] body, String teamId, String caller) {
    public ApiRequest {
        pathParameters = pathParameters == null ? Map.of() : Map.copyOf(pathParameters);
        query = query == null ? Map.of() : Map.copyOf(query);
        headers = headers == null ? Map.of() : Map.copyOf(headers);
        body = body == null ? new byte[0] : body;
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
