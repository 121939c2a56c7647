package dev.richter.sdk;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;

/**
 * The configured answer of one exit for marked traffic. A value: equal to another with the same components.
 *
 * @param exit the exit id it answers, e.g. {@code payment POST /charge} or {@code api.stripe.com/v1/charges}
 * @param status HTTP status to answer with (100–599)
 * @param body response body ({@code ""} for none)
 * @param headers response headers
 * @param latencyMs simulated latency, milliseconds, already waited when {@link ExitMocks} returns it
 */
public final class MockResponse {
    private final String exit;
    private final int status;
    private final String body;
    private final Map<String, String> headers;
    private final long latencyMs;

    /** The answer of the components the class comment describes; {@code headers} is copied (null: none). */
    public MockResponse(String exit, int status, String body, Map<String, String> headers, long latencyMs) {
        this.exit = exit;
        this.status = status;
        this.body = body == null ? "" : body;
        this.headers = headers == null ? Collections.emptyMap() : Backports.mapCopy(headers);
        this.latencyMs = latencyMs;
    }

    public String exit() {
        return exit;
    }

    public int status() {
        return status;
    }

    public String body() {
        return body;
    }

    public Map<String, String> headers() {
        return headers;
    }

    public long latencyMs() {
        return latencyMs;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof MockResponse)) {
            return false;
        }
        MockResponse m = (MockResponse) o;
        return Objects.equals(exit, m.exit) && status == m.status && body.equals(m.body) && headers.equals(m.headers)
                && latencyMs == m.latencyMs;
    }

    @Override
    public int hashCode() {
        return Objects.hash(exit, status, body, headers, latencyMs);
    }

    @Override
    public String toString() {
        return "MockResponse[exit=" + exit + ", status=" + status + ", body=" + body + ", headers=" + headers
                + ", latencyMs=" + latencyMs + "]";
    }
}
