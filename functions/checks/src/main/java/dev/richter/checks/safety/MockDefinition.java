package dev.richter.checks.safety;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
    private static final ObjectMapper MAPPER = new ObjectMapper();

    public MockDefinition {
        exit = exit == null ? "" : exit.trim();
        body = body == null ? "" : body;
        headers = headers == null ? Map.of() : Map.copyOf(headers);
    }

    /**
     * Reads a mock configuration document.
     *
     * @param json UTF-8 JSON {@code {"mocks":[...]}}
     * @return the mocks in document order
     * @throws IllegalArgumentException naming the field path when the document is malformed, e.g.
     *     {@code mocks[1].latencyMs: must be a non-negative integer}
     */
    public static List<MockDefinition> parseDocument(byte[] json) {
        JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage(), e);
        }
        if (root == null || !root.path("mocks").isArray()) {
            throw new IllegalArgumentException("mocks: required array");
        }
        List<MockDefinition> out = new ArrayList<>();
        JsonNode mocks = root.get("mocks");
        for (int i = 0; i < mocks.size(); i++) {
            JsonNode m = mocks.get(i);
            String at = "mocks[" + i + "]";
            if (!m.path("exit").isTextual() || m.get("exit").asText().isBlank()) {
                throw new IllegalArgumentException(at + ".exit: required text");
            }
            int status = STATUS_UNSET;
            if (m.has("status")) {
                if (!m.get("status").canConvertToInt() || !m.get("status").isIntegralNumber()) {
                    throw new IllegalArgumentException(at + ".status: must be an integer");
                }
                status = m.get("status").asInt();
            }
            long latency = LATENCY_UNSET;
            if (m.has("latencyMs")) {
                if (!m.get("latencyMs").isIntegralNumber() || m.get("latencyMs").asLong() < 0) {
                    throw new IllegalArgumentException(at + ".latencyMs: must be a non-negative integer");
                }
                latency = m.get("latencyMs").asLong();
            }
            if (m.has("body") && !m.get("body").isTextual()) {
                throw new IllegalArgumentException(at + ".body: must be text");
            }
            Map<String, String> headers = new LinkedHashMap<>();
            if (m.has("headers")) {
                if (!m.get("headers").isObject()) {
                    throw new IllegalArgumentException(at + ".headers: must be an object");
                }
                m.get("headers").properties().forEach(h -> headers.put(h.getKey(), h.getValue().asText()));
            }
            out.add(new MockDefinition(m.get("exit").asText(), status, m.path("body").asText(""), headers, latency));
        }
        return out;
    }
}
