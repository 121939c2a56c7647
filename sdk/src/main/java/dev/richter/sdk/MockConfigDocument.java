package dev.richter.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Reads a team's mock configuration document, the one reader of it: the SDK and the agent extension
 * ({@code richter-otel-extension}, whose isolation document carries the same {@code mocks} array) answer from it
 * ({@link #parse}) and the checks function's mock-present check inspects it ({@link #read}).
 * <pre>{@code {"mocks":[{"exit":"payment POST /charge","status":200,"body":"...","headers":{},"latencyMs":50}]}}</pre>
 * The rules are the API's, as {@code openapi.json} states them for {@code SafetyConfig.mocks} (which {@code PUT /safety}
 * validates and {@code GET /safety/mocks} and {@code GET /safety/isolation} serve; a test in the local stack holds the
 * two equal on a table of documents): {@code exit} is required, non-blank text and unique; {@code status} is required,
 * an integer 100–599; {@code latencyMs} an integer 0–60000 (default 0); {@code body} text (default {@code ""});
 * {@code headers} an object of text values; no other field. {@link #read} leaves a missing or out-of-range
 * {@code status} for the checks to name as a finding; {@link #parse}, which answers calls, refuses it.
 */
public final class MockConfigDocument {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** The fields of one mock, in the schema's order. */
    private static final List<String> FIELDS = Collections.unmodifiableList(
            Arrays.asList("exit", "status", "body", "headers", "latencyMs"));
    /** The longest simulated latency, milliseconds ({@code SafetyConfig.mocks[].latencyMs} maximum). */
    public static final long MAX_LATENCY_MS = 60_000;

    private MockConfigDocument() {}

    /**
     * One mock as the document states it, before defaults. A value: equal to another with the same components.
     *
     * @param exit      the exit it answers, trimmed: an interface node ({@code payment POST /charge}), a service
     *                  ({@code payment}), or host[:port]+path ({@code api.stripe.com/v1/charges})
     * @param status    the HTTP status, an integer (not range-checked here: the check names a bad one), empty when the
     *                  document gives none
     * @param body      response body, {@code ""} when none
     * @param headers   response headers, in document order
     * @param latencyMs simulated latency, milliseconds, empty when the document gives none
     */
    public static final class StatedMock {
        private final String exit;
        private final OptionalInt status;
        private final String body;
        private final Map<String, String> headers;
        private final OptionalLong latencyMs;

        /** The mock of the components above; {@code headers} is copied. */
        public StatedMock(String exit, OptionalInt status, String body, Map<String, String> headers,
                          OptionalLong latencyMs) {
            this.exit = exit;
            this.status = status;
            this.body = body;
            this.headers = Backports.mapCopy(headers);
            this.latencyMs = latencyMs;
        }

        public String exit() {
            return exit;
        }

        public OptionalInt status() {
            return status;
        }

        public String body() {
            return body;
        }

        public Map<String, String> headers() {
            return headers;
        }

        public OptionalLong latencyMs() {
            return latencyMs;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof StatedMock)) {
                return false;
            }
            StatedMock m = (StatedMock) o;
            return Objects.equals(exit, m.exit) && Objects.equals(status, m.status) && Objects.equals(body, m.body)
                    && headers.equals(m.headers) && Objects.equals(latencyMs, m.latencyMs);
        }

        @Override
        public int hashCode() {
            return Objects.hash(exit, status, body, headers, latencyMs);
        }

        @Override
        public String toString() {
            return "StatedMock[exit=" + exit + ", status=" + status + ", body=" + body + ", headers=" + headers
                    + ", latencyMs=" + latencyMs + "]";
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
            if (!m.path("exit").isTextual() || Backports.isBlank(m.get("exit").asText())) {
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
                JsonNode l = m.get("latencyMs");
                if (!l.isIntegralNumber() || l.asLong() < 0 || l.asLong() > MAX_LATENCY_MS) {
                    throw new IllegalArgumentException(at + ".latencyMs: must be an integer from 0 to " + MAX_LATENCY_MS);
                }
                latencyMs = OptionalLong.of(l.asLong());
            }
            for (Map.Entry<String, JsonNode> field : m.properties()) {
                if (!FIELDS.contains(field.getKey())) {
                    throw new IllegalArgumentException(at + "." + field.getKey() + ": unknown field; a mock has "
                            + String.join(", ", FIELDS));
                }
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
     * @throws IllegalArgumentException naming the field path, e.g. {@code mocks[1].status: must be 100-599} or
     *                                  {@code mocks[0].status: required, 100-599}
     */
    public static Map<String, MockResponse> parse(byte[] json) {
        Map<String, MockResponse> out = new LinkedHashMap<>();
        List<StatedMock> entries = read(json);
        for (int i = 0; i < entries.size(); i++) {
            StatedMock e = entries.get(i);
            if (!e.status().isPresent()) {
                throw new IllegalArgumentException("mocks[" + i + "].status: required, 100-599");
            }
            int status = e.status().getAsInt();
            if (status < 100 || status > 599) {
                throw new IllegalArgumentException("mocks[" + i + "].status: must be 100-599");
            }
            out.put(e.exit(), new MockResponse(e.exit(), status, e.body(), e.headers(), e.latencyMs().orElse(0)));
        }
        return out;
    }
}
