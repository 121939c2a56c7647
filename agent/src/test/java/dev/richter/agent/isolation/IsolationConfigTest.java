package dev.richter.agent.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class IsolationConfigTest {
    private static IsolationConfig parse(String json) {
        return IsolationConfig.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    private static String error(String json) {
        return assertThrows(IllegalArgumentException.class, () -> parse(json)).getMessage();
    }

    @Test
    void readsModeScopeAndTheMockDocumentsEntries() {
        IsolationConfig c = parse("""
                {"mode": "report", "scope": ["orders.internal:8080", "Inventory.Internal"],
                 "mocks": [{"exit": "api.stripe.com/v1/charges", "status": 201, "latencyMs": 40}], "future": 1}
                """);

        assertEquals(IsolationMode.REPORT, c.mode());
        assertEquals(0, c.refreshS(), "the document names no refresh");
        assertEquals(List.of(new HostPort("orders.internal", 8080), new HostPort("inventory.internal", HostPort.ANY_PORT)),
                c.scope());
        assertEquals(201, c.mocks().get("api.stripe.com/v1/charges").status());
        assertEquals(40, c.mocks().get("api.stripe.com/v1/charges").latencyMs());
    }

    @Test
    void readsTheDocumentRichtersApiServes() {
        IsolationConfig c = parse("""
                {"mode": "enforce", "refreshS": 10, "scope": ["inventory.internal:443", "orders.internal:8080"],
                 "mocks": [{"exit": "payment POST /charge", "status": 200, "body": "{}", "latencyMs": 40}],
                 "shadows": [{"kind": "table", "production": "orders", "shadow": "orders_shadow", "service": "order"}]}
                """);

        assertEquals(10, c.refreshS());
        assertEquals(List.of(new HostPort("inventory.internal", 443), new HostPort("orders.internal", 8080)), c.scope());
        assertEquals(List.of("payment POST /charge"), c.exits().stream().map(HttpExit::exit).toList());
    }

    @Test
    void defaultsToEnforceWithAnEmptyScope() {
        IsolationConfig c = parse("{\"mocks\": []}");

        assertEquals(IsolationMode.ENFORCE, c.mode());
        assertEquals(List.of(), c.scope());
    }

    @Test
    void ordersTheHttpExitsMostSpecificFirstAndSkipsIdsThatNameNoHttpCall() {
        IsolationConfig c = parse("""
                {"mocks": [{"exit": "pay.example", "status": 200}, {"exit": "pay.example/charge", "status": 200}, {"exit": "pay.example:443/charge", "status": 200},
                           {"exit": "pay.example POST /charge", "status": 200}, {"exit": "payment charge", "status": 200}]}
                """);

        assertEquals(List.of("pay.example POST /charge", "pay.example:443/charge", "pay.example/charge", "pay.example"),
                c.exits().stream().map(HttpExit::exit).toList());
        assertEquals(5, c.mocks().size());
    }

    @Test
    void namesTheFieldOfAMalformedDocument() {
        assertEquals("mode: must be \"enforce\" or \"report\", got 'strict'", error("{\"mode\":\"strict\",\"mocks\":[]}"));
        assertEquals("scope[1]: port: must be 1-65535 in 'b:0'", error("{\"scope\":[\"a\",\"b:0\"],\"mocks\":[]}"));
        assertEquals("scope[0]: must be \"host\" or \"host:port\" text", error("{\"scope\":[1],\"mocks\":[]}"));
        assertEquals("scope: must be an array of \"host\" or \"host:port\"", error("{\"scope\":\"a\",\"mocks\":[]}"));
        assertEquals("mocks[0].status: must be 100-599", error("{\"mocks\":[{\"exit\":\"a/b\",\"status\":700}]}"));
        assertEquals("mocks: required array", error("{\"mode\":\"enforce\"}"));
        assertEquals("document: must be a JSON object", error("[]"));
        assertEquals("refreshS: must be a positive integer", error("{\"refreshS\":0,\"mocks\":[]}"));
        assertEquals("refreshS: must be a positive integer", error("{\"refreshS\":\"10\",\"mocks\":[]}"));
    }
}
