package dev.richter.api;

import dev.richter.common.Json;
import dev.richter.common.metrics.RichterMetrics;
import java.io.IOException;

/**
 * The HTTP API's request metrics: one EMF line per request ({@link RichterMetrics}, function {@code plan-api}) with
 * {@code Requests} and one of {@code Requests2xx}, {@code Requests3xx}, {@code Requests4xx}, {@code Requests5xx}
 * (Count, 1 for the answer's status class, 0 for the others), the route key ({@code route}, e.g.
 * {@code POST /plans/{planId}/runs}; {@code $default} for unknown routes: a bounded set) and {@code status} as
 * properties. A started run (202 on {@link #START_RUN_ROUTE}, not an idempotent replay) adds {@code RunsStarted}
 * (Count) and its {@code runId}.
 */
final class ApiMetrics {
    /** The route that starts a run. */
    static final String START_RUN_ROUTE = "POST /plans/{planId}/runs";
    private final RichterMetrics metrics = RichterMetrics.forFunction("plan-api");

    /** Writes the line of one answered request. */
    void record(String routeKey, ApiResponse response) {
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
}
