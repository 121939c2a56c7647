package dev.richter.api;

import java.util.List;
import java.util.TreeSet;

/**
 * Every route of the HTTP API, as API Gateway route keys ({@code METHOD /path/{param}}). {@code template.yaml} declares
 * the same routes (one {@code HttpApi} event each, plus the catch-all {@code $default}) and {@code openapi.json}
 * describes the same operations: tests hold the three equal.
 */
public final class Routes {
    public static final List<String> ALL = List.of(
            "POST /services", "GET /services", "GET /services/{name}", "DELETE /services/{name}",
            "POST /plans", "GET /plans", "GET /plans/{planId}", "PUT /plans/{planId}", "DELETE /plans/{planId}",
            "GET /plans/{planId}/estimate", "POST /plans/{planId}/runs", "GET /plans/{planId}/runs",
            "GET /runs/{runId}", "POST /runs/{runId}/abort", "GET /runs/{runId}/report",
            "POST /traces", "POST /traffic-sets", "GET /traffic-sets", "GET /traffic-sets/{setId}",
            "POST /flows", "GET /flows/{flowId}", "POST /flows/{flowId}/runs", "GET /data-sets/{dataSetId}", "PUT /safety", "GET /safety", "GET /safety/mocks", "GET /audit", "GET /openapi.json");

    /** Routes that need no team (no authorizer on AWS). */
    public static final List<String> PUBLIC = List.of("GET /openapi.json");

    private Routes() {}

    /**
     * The answer to a request no route matched (API Gateway's {@code $default} route).
     *
     * @param method  the HTTP method
     * @param rawPath the path, stage prefix removed
     * @return never; always throws
     * @throws ApiException 405 {@code MethodNotAllowed} naming the allowed methods when the path is a route's with
     *                      another method, else 404 {@code NoSuchRoute}
     */
    static ApiResponse unmatched(String method, String rawPath) {
        TreeSet<String> allowed = new TreeSet<>();
        for (String route : ALL) {
            int space = route.indexOf(' ');
            if (matches(route.substring(space + 1), rawPath)) {
                allowed.add(route.substring(0, space));
            }
        }
        if (allowed.isEmpty()) {
            throw new ApiException(404, "NoSuchRoute", "no route " + method + " " + rawPath + " (the routes: GET /openapi.json)");
        }
        throw new ApiException(405, "MethodNotAllowed", method + " is not allowed on " + rawPath + "; allowed: "
                + String.join(", ", allowed)).withHeader("Allow", String.join(", ", allowed));
    }

    /** Whether {@code rawPath} fits the route path template ({@code /runs/{runId}} matches {@code /runs/run-1}). */
    static boolean matches(String template, String rawPath) {
        String[] t = template.split("/", -1);
        String[] p = rawPath.split("/", -1);
        if (t.length != p.length) {
            return false;
        }
        for (int i = 0; i < t.length; i++) {
            boolean param = t[i].startsWith("{") && t[i].endsWith("}");
            if (param ? p[i].isEmpty() : !t[i].equals(p[i])) {
                return false;
            }
        }
        return true;
    }
}
