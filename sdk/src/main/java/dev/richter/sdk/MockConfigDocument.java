package dev.richter.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Reads a team's mock configuration document, the one reader of it: the SDK and the agent extension
 * ({@code richter-otel-extension}, whose isolation document carries the same {@code mocks} array) answer from it
 * ({@link #parse}) and the checks function's mock-present check inspects it ({@link #read}).
 * <pre>{@code {"mocks":[{"exit":"payment POST /charge","status":200,"body":"...","headers":{},"latencyMs":50}]}}</pre>
 * {@code exit} is required and unique; {@code status} is an integer, defaults to 200 and must be 100–599 to be
 * answered; {@code latencyMs} defaults to 0 and must be ≥ 0; {@code body} defaults to {@code ""}; header values are
 * text. Unknown fields are ignored (forward compatible).
 */
public final class MockConfigDocument {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private MockConfigDocument() {}

    /**
     * One mock as the document states it, before defaults.
     *
     * @param exit      the exit it answers, trimmed: an interface node ({@code payment POST /charge}), a service
     *                  ({@code payment}), or host[:port]+path ({@code api.stripe.com/v1/charges})
     * @param status    the HTTP status, an integer (not range-checked here: the check names a bad one), empty when the
     *                  document gives none
     * @param body      response body, {@code ""} when none
     * @param headers   response headers, in document order
     * @param latencyMs simulated latency, milliseconds, empty when the document gives none
     */
    public record StatedMock(String exit, OptionalInt status, String body, Map<String, String> headers, OptionalLong latencyMs) {
        public StatedMock {
            headers = Map.copyOf(headers);
        }
    }

    /**
     * The document's mocks as stated, in document order.
     *
     * @param json UTF-8 JSON {@code {"mocks":[...]}}
     * @throws IllegalArgumentException naming the field path when the document is malformed, e.g.
     *                                  {@code mocks[1].latencyMs: must be a non-negative integer} or
     *                                  {@code mocks[2].exit: duplicate 'payment'}
     */
    public static List<StatedMock> read(byte[] json) {
        JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage(), e);
        }
        if (root == null || !root.path("mocks").isArray()) {
            throw new IllegalArgumentException("mocks: required array");
        }
        List<StatedMock> out = new ArrayList<>();
        Set<String> exits = new HashSet<>();
        JsonNode mocks = root.get("mocks");
        for (int i = 0; i < mocks.size(); i++) {
            JsonNode m = mocks.get(i);
            String at = "mocks[" + i + "]";
            if (!m.path("exit").isTextual() || m.get("exit").asText().isBlank()) {
                throw new IllegalArgumentException(at + ".exit: required text");
            }
            String exit = m.get("exit").asText().trim();
            if (!exits.add(exit)) {
                throw new IllegalArgumentException(at + ".exit: duplicate '" + exit + "'");
            }
            OptionalInt status = OptionalInt.empty();
            if (m.has("status")) {
                if (!m.get("status").isIntegralNumber() || !m.get("status").canConvertToInt()) {
                    throw new IllegalArgumentException(at + ".status: must be 100-599");
                }
                status = OptionalInt.of(m.get("status").asInt());
            }
            OptionalLong latencyMs = OptionalLong.empty();
            if (m.has("latencyMs")) {
                if (!m.get("latencyMs").isIntegralNumber() || m.get("latencyMs").asLong() < 0) {
                    throw new IllegalArgumentException(at + ".latencyMs: must be a non-negative integer");
                }
                latencyMs = OptionalLong.of(m.get("latencyMs").asLong());
            }
            if (m.has("body") && !m.get("body").isTextual()) {
                throw new IllegalArgumentException(at + ".body: must be text");
            }
            Map<String, String> headers = new LinkedHashMap<>();
            if (m.has("headers")) {
                if (!m.get("headers").isObject()) {
                    throw new IllegalArgumentException(at + ".headers: must be an object");
                }
                for (Map.Entry<String, JsonNode> h : m.get("headers").properties()) {
                    if (!h.getValue().isTextual()) {
                        throw new IllegalArgumentException(at + ".headers." + h.getKey() + ": must be text");
                    }
                    headers.put(h.getKey(), h.getValue().asText());
                }
            }
            out.add(new StatedMock(exit, status, m.path("body").asText(""), headers, latencyMs));
        }
        return out;
    }

    /**
     * The responses the SDK and the agent extension answer with: {@link #read}'s entries with the defaults applied.
     *
     * @param json UTF-8 JSON object with a {@code mocks} array; its other fields are ignored
     * @return exit id → response, in document order
     * @throws IllegalArgumentException naming the field path, e.g. {@code mocks[1].status: must be 100-599}
     */
    public static Map<String, MockResponse> parse(byte[] json) {
        Map<String, MockResponse> out = new LinkedHashMap<>();
        List<StatedMock> entries = read(json);
        for (int i = 0; i < entries.size(); i++) {
            StatedMock e = entries.get(i);
            int status = e.status().orElse(200);
            if (status < 100 || status > 599) {
                throw new IllegalArgumentException("mocks[" + i + "].status: must be 100-599");
            }
            out.put(e.exit(), new MockResponse(e.exit(), status, e.body(), e.headers(), e.latencyMs().orElse(0)));
        }
        return out;
    }
}
