package dev.richter.checks.safety;

import dev.richter.sdk.MockConfigDocument;
import java.util.List;
import java.util.Map;

/**
 * One configured exit mock, as the team's mock configuration document holds it — the document
 * {@code dev.richter.sdk.ExitMocks} fetches:
 * {@code {"mocks":[{"exit":"payment POST /charge","status":200,"body":"...","headers":{},"latencyMs":50}]}}.
 *
 * @param exit the exit it answers: an interface node ({@code payment POST /charge}), a service
 *     ({@code payment}), or host[:port]+path ({@code api.stripe.com/v1/charges})
 * @param status HTTP status of the mocked answer; {@link #STATUS_UNSET} when the document has none
 * @param body response body, {@code ""} when none
 * @param headers response headers
 * @param latencyMs simulated latency, milliseconds; {@link #LATENCY_UNSET} when the document has none
 */
public record MockDefinition(String exit, int status, String body, Map<String, String> headers, long latencyMs) {
    /** {@link #status()} when the document gives none. */
    public static final int STATUS_UNSET = 0;
    /** {@link #latencyMs()} when the document gives none. */
    public static final long LATENCY_UNSET = -1;

    public MockDefinition {
        exit = exit == null ? "" : exit.trim();
        body = body == null ? "" : body;
        headers = headers == null ? Map.of() : Map.copyOf(headers);
    }

    /**
     * Reads a mock configuration document with the SDK's reader ({@link MockConfigDocument#read}), so a document the
     * check accepts is one the SDK answers from; a missing status or latency stays unset for the check to name.
     *
     * @param json UTF-8 JSON {@code {"mocks":[...]}}
     * @return the mocks in document order
     * @throws IllegalArgumentException naming the field path when the document is malformed, e.g.
     *     {@code mocks[1].latencyMs: must be a non-negative integer}
     */
    public static List<MockDefinition> parseDocument(byte[] json) {
        return MockConfigDocument.read(json).stream().map(e -> new MockDefinition(e.exit(), e.status().orElse(STATUS_UNSET),
                e.body(), e.headers(), e.latencyMs().orElse(LATENCY_UNSET))).toList();
    }
}
