package dev.richter.sdk;

import java.util.Map;

/**
 * The configured answer of one exit for marked traffic.
 *
 * @param exit the exit id it answers, e.g. {@code payment POST /charge} or {@code api.stripe.com/v1/charges}
 * @param status HTTP status to answer with (100–599)
 * @param body response body ({@code ""} for none)
 * @param headers response headers
 * @param latencyMs simulated latency, milliseconds, already waited when {@link ExitMocks} returns it
 */
public record MockResponse(String exit, int status, String body, Map<String, String> headers, long latencyMs) {
    public MockResponse {
        body = body == null ? "" : body;
        headers = headers == null ? Map.of() : Map.copyOf(headers);
    }
}
