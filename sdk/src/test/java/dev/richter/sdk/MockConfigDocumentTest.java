package dev.richter.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MockConfigDocumentTest {
    static Map<String, MockResponse> parse(String json) {
        return MockConfigDocument.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    static String error(String json) {
        return assertThrows(IllegalArgumentException.class, () -> parse(json)).getMessage();
    }

    @Test
    void defaultsAndOrder() {
        Map<String, MockResponse> m = parse("{\"mocks\":[{\"exit\":\"b\",\"status\":200},{\"exit\":\"a\",\"status\":503,\"latencyMs\":7}]}");
        assertEquals(new MockResponse("b", 200, "", Map.of(), 0), m.get("b"));
        assertEquals(7, m.get("a").latencyMs());
        assertEquals(java.util.List.of("b", "a"), java.util.List.copyOf(m.keySet()));
    }

    @Test
    void errorsNameTheField() {
        assertEquals("mocks: required array", error("{}"));
        assertEquals("mocks[0].exit: required text", error("{\"mocks\":[{\"status\":200}]}"));
        assertEquals("mocks[1].exit: duplicate 'a'", error("{\"mocks\":[{\"exit\":\"a\",\"status\":200},{\"exit\":\"a\",\"status\":200}]}"));
        assertEquals("mocks[0].status: must be 100-599", error("{\"mocks\":[{\"exit\":\"a\",\"status\":42}]}"));
        assertEquals("mocks[0].latencyMs: must be an integer from 0 to 60000",
                error("{\"mocks\":[{\"exit\":\"a\",\"status\":200,\"latencyMs\":1.5}]}"));
        assertEquals("mocks[0].latencyMs: must be an integer from 0 to 60000",
                error("{\"mocks\":[{\"exit\":\"a\",\"status\":200,\"latencyMs\":60001}]}"));
        assertEquals("mocks[0].status: required, 100-599", error("{\"mocks\":[{\"exit\":\"a\"}]}"));
        assertEquals("mocks[0].future: unknown field; a mock has exit, status, body, headers, latencyMs",
                error("{\"mocks\":[{\"exit\":\"a\",\"status\":200,\"future\":1}]}"));
        assertEquals("mocks[0].headers.x: must be text", error("{\"mocks\":[{\"exit\":\"a\",\"status\":200,\"headers\":{\"x\":1}}]}"));
        assertEquals("mocks[0].status: must be 100-599", error("{\"mocks\":[{\"exit\":\"a\",\"status\":\"oops\"}]}"));
    }

    @Test
    void readKeepsWhatTheDocumentLeavesOutForTheCheckToName() {
        var entries = MockConfigDocument.read(("{\"mocks\":[{\"exit\":\" payment \",\"status\":42},"
                + "{\"exit\":\"stock\",\"latencyMs\":5,\"body\":\"{}\",\"headers\":{\"a\":\"b\"}}]}").getBytes(StandardCharsets.UTF_8));
        assertEquals(java.util.List.of(
                new MockConfigDocument.StatedMock("payment", java.util.OptionalInt.of(42), "", Map.of(), java.util.OptionalLong.empty()),
                new MockConfigDocument.StatedMock("stock", java.util.OptionalInt.empty(), "{}", Map.of("a", "b"), java.util.OptionalLong.of(5))),
                entries);
    }
}
