package dev.richter.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import dev.richter.sdk.MarkerProof;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /safety/isolation}: what the agent extension enforces, built from the team's registry and safety
 * configuration, through the Lambda handler; every answer conforms to its schema in openapi.json.
 */
class SafetyRoutesTest {
    private final RegistryApiHarness api = new RegistryApiHarness();

    private static byte[] json(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private JsonNode isolation(String team, Map<String, String> query, int status) {
        var r = api.call("GET /safety/isolation", team, Map.of(), query, null);
        assertEquals(status, r.get("statusCode"), String.valueOf(r.get("body")));
        return RegistryApiHarness.body(r);
    }

    @Test
    void theIsolationOfATeamIsItsServicesAddressesMocksAndShadows() {
        assertEquals(201, api.call("POST /services", "t1", Map.of(), Map.of(), json("""
                {"name": "order", "baseUrl": "http://Orders.internal:8080/api",
                 "datastores": [{"kind": "table", "production": "orders", "shadow": "orders_shadow"}]}""")).get("statusCode"));
        assertEquals(201, api.call("POST /services", "t1", Map.of(), Map.of(), json("""
                {"name": "inventory", "baseUrl": "https://inventory.internal",
                 "datastores": [{"kind": "cache", "production": "stock:", "shadow": "shadow:stock:"}]}""")).get("statusCode"));
        assertEquals(201, api.call("POST /services", "t2", Map.of(), Map.of(), json("""
                {"name": "other", "baseUrl": "http://other.internal:9000"}""")).get("statusCode"));

        JsonNode defaults = isolation("t1", Map.of(), 200);
        api.assertConforms("Isolation", defaults);
        assertEquals("enforce", defaults.path("mode").asText(), "enforce unless the team chose report");
        assertEquals(30, defaults.path("refreshS").asInt());
        assertEquals(List.of("inventory.internal:443", "orders.internal:8080"),
                Json.MAPPER.convertValue(defaults.path("scope"), List.class), "the team's own addresses only");
        assertEquals(0, defaults.path("mocks").size());
        assertEquals(2, defaults.path("shadows").size());

        assertEquals(201, api.call("PUT /safety", "t1", Map.of(), Map.of(), json("""
                {"isolation": {"mode": "report", "refreshS": 10},
                 "mocks": [{"exit": "payment POST /charge", "status": 200, "body": "{}", "latencyMs": 40}]}""")).get("statusCode"));
        JsonNode order = isolation("t1", Map.of("service", "order"), 200);
        api.assertConforms("Isolation", order);
        assertEquals("report", order.path("mode").asText());
        assertEquals(10, order.path("refreshS").asInt());
        assertEquals("payment POST /charge", order.path("mocks").get(0).path("exit").asText());
        assertEquals(List.of(Map.of("kind", "table", "production", "orders", "shadow", "orders_shadow", "service", "order")),
                Json.MAPPER.convertValue(order.path("shadows"), List.class), "only the named service's datastores");

        assertEquals("NotFound", isolation("t2", Map.of("service", "order"), 404).path("error").asText(),
                "another team's service is not found");
    }

    @Test
    void theIsolationDocumentCarriesTheTeamsOwnMarkerKeyWhichSignsItsRunsProofs() {
        assertEquals(201, api.call("POST /services", "t1", Map.of(), Map.of(),
                json("{\"name\": \"order\", \"baseUrl\": \"http://orders.internal:8080\"}")).get("statusCode"));
        JsonNode t1 = isolation("t1", Map.of(), 200).path("marker");
        assertEquals("t1", t1.path("team").asText());
        assertEquals(1, t1.path("keys").size());
        String key = t1.path("keys").get(0).asText();
        assertEquals(key, isolation("t1", Map.of(), 200).path("marker").path("keys").get(0).asText(), "stable");
        JsonNode t3 = isolation("t3", Map.of(), 200).path("marker");
        assertEquals("t3", t3.path("team").asText(), "a team without services gets a key on first read");
        assertNotEquals(key, t3.path("keys").get(0).asText(), "a key per team");
        long now = System.currentTimeMillis() / 1000;
        String proof = MarkerProof.mint(key, "t1", "run-1", now + 60);
        assertEquals(MarkerProof.Check.VALID, MarkerProof.verify(proof, "t1", List.of(key), now));
        assertEquals(MarkerProof.Check.BAD_SIGNATURE, MarkerProof.verify(MarkerProof.mint(key, "t3", "run-1", now + 60),
                "t3", List.of(t3.path("keys").get(0).asText()), now), "t1's key signs nothing of t3's");
    }

    @Test
    void mocksOfAnExitDeclaredWithItsBaseUrlAreServedUnderTheAddressTheClientsCall() {
        assertEquals(201, api.call("PUT /safety", "t1", Map.of(), Map.of(), json("""
                {"exits": [{"service": "payment", "node": "payment POST /charge", "from": "order",
                            "baseUrl": "http://127.0.0.1:18083"},
                           {"service": "stripe", "baseUrl": "https://API.Stripe.com"}],
                 "mocks": [{"exit": "payment POST /charge", "status": 200, "body": "{}"},
                           {"exit": "stripe/v1/charges", "status": 402},
                           {"exit": "stripe", "status": 503},
                           {"exit": "payments-archive POST /charge", "status": 200},
                           {"exit": "10.1.1.1:80 GET /x", "status": 204}]}""")).get("statusCode"));
        JsonNode doc = isolation("t1", Map.of(), 200);
        api.assertConforms("Isolation", doc);
        List<String> ids = new java.util.ArrayList<>();
        doc.path("mocks").forEach(m -> ids.add(m.path("exit").asText()));
        assertEquals(List.of("127.0.0.1:18083 POST /charge", "api.stripe.com:443/v1/charges", "api.stripe.com:443",
                "payments-archive POST /charge", "10.1.1.1:80 GET /x"), ids, "only a declared service's ids are rewritten");
        assertEquals(200, doc.path("mocks").get(0).path("status").asInt(), "the rest of the mock is kept");
        assertEquals("payment POST /charge", RegistryApiHarness.body(api.call("GET /safety", "t1", Map.of(), Map.of(), null))
                .path("mocks").get(0).path("exit").asText(), "the stored configuration keeps the team's ids");
    }

    @Test
    void anExitBaseUrlThatCannotBeLoadedIsRefusedAtItsPath() {
        var r = api.call("PUT /safety", "t1", Map.of(), Map.of(), json(
                "{\"exits\": [{\"service\": \"payment\"}, {\"service\": \"payment\", \"baseUrl\": \"ftp://pay:21\"}]}"));
        assertEquals(400, r.get("statusCode"));
        assertEquals("$.exits[1].baseUrl", RegistryApiHarness.body(r).path("errors").get(0).path("path").asText());
    }

    @Test
    void aTraceSourceTheChecksCouldNotReadIsRefusedWhenGivenAtItsPath(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path file = java.nio.file.Files.writeString(dir.resolve("spans.json"), "{}");
        Map<String, String> refused = Map.of(
                "{\"traceSource\": {\"kind\": \"directory\", \"path\": \"" + dir.resolve("nowhere") + "\"}}",
                "$.traceSource.path: " + dir.resolve("nowhere") + " does not exist on Richter's file system, so the checks"
                        + " could read no span from it",
                "{\"traceSource\": {\"kind\": \"directory\", \"path\": \"" + file + "\"}}",
                "$.traceSource.path: " + file + " is not a directory",
                "{\"traceSource\": {\"kind\": \"s3\", \"bucket\": \"spans\"}}",
                "$.traceSource.kind: kind s3 is not implemented yet: use directory or xray");
        refused.forEach((body, problem) -> {
            var r = api.call("PUT /safety", "t1", Map.of(), Map.of(), json(body));
            assertEquals(400, r.get("statusCode"), body);
            JsonNode error = RegistryApiHarness.body(r).path("errors").get(0);
            assertEquals(problem, error.path("path").asText() + ": " + error.path("reason").asText(), body);
        });
        assertEquals(404, api.call("GET /safety", "t1", Map.of(), Map.of(), null).get("statusCode"), "nothing was stored");
        assertEquals(201, api.call("PUT /safety", "t1", Map.of(), Map.of(), json(
                "{\"traceSource\": {\"kind\": \"directory\", \"path\": \"" + dir + "\"}}")).get("statusCode"));
    }

    @Test
    void anIsolationModeOutsideEnforceAndReportIsRefusedAtItsPath() {
        var r = api.call("PUT /safety", "t1", Map.of(), Map.of(), json("{\"isolation\": {\"mode\": \"off\"}}"));
        assertEquals(400, r.get("statusCode"));
        assertEquals("$.isolation.mode", RegistryApiHarness.body(r).path("errors").get(0).path("path").asText());
    }

    @Test
    void aTargetAtAMetadataOrLinkLocalAddressIsRefusedAtRegistration() {
        for (String url : new String[] {"http://169.254.169.254/latest", "http://[fd00:ec2::254]", "http://169.254.170.2:80"}) {
            var r = api.call("POST /services", "t1", Map.of(), Map.of(),
                    json("{\"name\": \"meta\", \"baseUrl\": \"" + url + "\"}"));
            assertEquals(400, r.get("statusCode"), url);
            assertTrue(String.valueOf(r.get("body")).contains("$.baseUrl")
                    && String.valueOf(r.get("body")).contains("is link-local, multicast or unspecified"), String.valueOf(r.get("body")));
        }
    }
}
