package dev.richter.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads a team's mock configuration document:
 * <pre>{@code {"mocks":[{"exit":"payment POST /charge","status":200,"body":"...","headers":{},"latencyMs":50}]}}</pre>
 * {@code exit} is required and unique; {@code status} defaults to 200 and must be 100–599;
 * {@code latencyMs} defaults to 0 and must be ≥ 0; {@code body} defaults to {@code ""}; header values
 * are text. Unknown fields are ignored (forward compatible).
 */
final class MockConfigDocument {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private MockConfigDocument() {}

    /**
     * @return exit id → response, in document order
     * @throws IllegalArgumentException naming the field path, e.g. {@code mocks[1].status: must be 100-599}
     */
    static Map<String, MockResponse> parse(byte[] json) {
        JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage(), e);
        }
        if (root == null || !root.path("mocks").isArray()) {
            throw new IllegalArgumentException("mocks: required array");
        }
        Map<String, MockResponse> out = new LinkedHashMap<>();
        JsonNode mocks = root.get("mocks");
        for (int i = 0; i < mocks.size(); i++) {
            JsonNode m = mocks.get(i);
            String at = "mocks[" + i + "]";
            if (!m.path("exit").isTextual() || m.get("exit").asText().isBlank()) {
                throw new IllegalArgumentException(at + ".exit: required text");
            }
            String exit = m.get("exit").asText().trim();
            if (out.containsKey(exit)) {
                throw new IllegalArgumentException(at + ".exit: duplicate '" + exit + "'");
            }
            int status = 200;
            if (m.has("status")) {
                if (!m.get("status").isIntegralNumber() || m.get("status").asInt() < 100 || m.get("status").asInt() > 599) {
                    throw new IllegalArgumentException(at + ".status: must be 100-599");
                }
                status = m.get("status").asInt();
            }
            long latencyMs = 0;
            if (m.has("latencyMs")) {
                if (!m.get("latencyMs").isIntegralNumber() || m.get("latencyMs").asLong() < 0) {
                    throw new IllegalArgumentException(at + ".latencyMs: must be a non-negative integer");
                }
                latencyMs = m.get("latencyMs").asLong();
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
            out.put(exit, new MockResponse(exit, status, m.path("body").asText(""), headers, latencyMs));
        }
        return out;
    }
}
