package dev.richter.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /flows}, {@code GET /flows/{flowId}}, {@code POST /flows/{flowId}/runs}, {@code GET /data-sets/{dataSetId}}
 * through the Lambda handler against an in-memory registry and audit table and a JDK {@link HttpServer} standing in for
 * the service under test; every body is checked against its component schema in {@code openapi.json}.
 */
class FlowRoutesTest {
    private final RegistryApiHarness api = new RegistryApiHarness();

    private HttpServer server;
    private String base;
    private final List<String> markers = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/buyers", ex -> {
            markers.add(String.valueOf(ex.getRequestHeaders().getFirst("baggage")));
            JsonNode in = Json.MAPPER.readTree(ex.getRequestBody());
            byte[] b = ("{\"id\":\"b-" + in.path("n").asInt() + "\"}").getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(201, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private static byte[] json(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static final String FLOW = """
            {"name": "shadow buyers", "inputs": {"baseUrl": "string"},
             "units": [
               {"id": "number", "unit": {"kind": "transform", "inputs": {"row": "number"}, "outputs": {"n": "number"},
                                         "expression": "{\\"n\\": row * 10}"},
                "inputs": {"row": "gen.row"}},
               {"id": "create", "unit": {"kind": "http", "inputs": {"baseUrl": "string", "n": "number"},
                                         "outputs": {"buyerId": "string"}, "method": "POST", "url": "{{baseUrl}}/buyers",
                                         "body": "{\\"n\\": n}", "extract": {"buyerId": "body.id"}},
                "inputs": {"baseUrl": "input.baseUrl", "n": "number.n"}}],
             "columns": {"buyerId": "create.buyerId"}}
            """;

    @Test
    void createRunAndReadADataSet() {
        assertEquals(201, api.call("POST /services", "t1", Map.of(), Map.of(), json("{\"name\": \"shop\", \"baseUrl\": \"" + base + "\"}"))
                .get("statusCode"));
        var created = api.call("POST /flows", "t1", Map.of(), Map.of(), json(FLOW));
        assertEquals(201, created.get("statusCode"), String.valueOf(created.get("body")));
        JsonNode flow = RegistryApiHarness.body(created);
        api.assertConforms("Flow", flow);
        String flowId = flow.path("flowId").asText();
        assertEquals("/flows/" + flowId, ((Map<?, ?>) created.get("headers")).get("Location"));
        api.assertConforms("Flow", RegistryApiHarness.body(api.call("GET /flows/{flowId}", "t1", Map.of("flowId", flowId), Map.of(), null)));
        assertEquals(404, api.call("GET /flows/{flowId}", "t2", Map.of("flowId", flowId), Map.of(), null).get("statusCode"));

        var run = api.call("POST /flows/{flowId}/runs", "t1", Map.of("flowId", flowId), Map.of(),
                json("{\"rows\": 3, \"concurrency\": 2, \"dataSetId\": \"buyers\", \"inputs\": {\"baseUrl\": \"" + base + "\"}}"));
        assertEquals(201, run.get("statusCode"), String.valueOf(run.get("body")));
        JsonNode result = RegistryApiHarness.body(run);
        api.assertConforms("FlowRunResult", result);
        assertEquals(3, result.path("ok").asInt());
        assertEquals("/data-sets/buyers", ((Map<?, ?>) run.get("headers")).get("Location"));
        // every call carries the marker and the proof signed for this flow with t1's key, which t1's services accept
        assertEquals(3, markers.size());
        String key = RegistryApiHarness.body(api.call("GET /safety/isolation", "t1", Map.of(), Map.of(), null))
                .path("marker").path("keys").get(0).asText();
        for (String baggage : markers) {
            assertTrue(baggage.startsWith("richter-loadtest=1,richter-proof="), baggage);
            String proof = baggage.substring("richter-loadtest=1,richter-proof=".length());
            assertEquals(dev.richter.sdk.MarkerProof.Check.VALID, dev.richter.sdk.MarkerProof.verify(proof, "t1",
                    List.of(key), System.currentTimeMillis() / 1000), baggage);
            assertEquals("flow:" + flowId, dev.richter.sdk.MarkerProof.claims(proof).run());
        }

        JsonNode set = RegistryApiHarness.body(api.call("GET /data-sets/{dataSetId}", "t1", Map.of("dataSetId", "buyers"), Map.of(), null));
        api.assertConforms("DataSet", set);
        assertEquals("b-0", set.path("rows").get(0).path("values").path("buyerId").asText());
        assertEquals("b-20", set.path("rows").get(2).path("values").path("buyerId").asText());
        assertEquals(404, api.call("GET /data-sets/{dataSetId}", "t2", Map.of("dataSetId", "buyers"), Map.of(), null).get("statusCode"));

        var again = api.call("POST /flows/{flowId}/runs", "t1", Map.of("flowId", flowId), Map.of(),
                json("{\"rows\": 3, \"dataSetId\": \"buyers\", \"inputs\": {\"baseUrl\": \"" + base + "\"}}"));
        assertEquals(3, RegistryApiHarness.body(again).path("resumed").asInt());
        assertEquals(3, markers.size(), "a resumed run creates nothing twice");
    }

    @Test
    void badFlowsAndRunsAreA400WithPaths() {
        String cyclic = FLOW.replace("\"row\": \"gen.row\"", "\"row\": \"create.buyerId\"");
        var r = api.call("POST /flows", "t1", Map.of(), Map.of(), json(cyclic));
        assertEquals(400, r.get("statusCode"));
        JsonNode err = RegistryApiHarness.body(r);
        api.assertConforms("Error", err);
        List<String> paths = new ArrayList<>();
        err.path("errors").forEach(e -> paths.add(e.path("path").asText() + " " + e.path("reason").asText()));
        assertTrue(paths.contains("$.units[0].inputs.row type mismatch: 'create.buyerId' is a string, the slot takes a number"), paths.toString());
        assertTrue(paths.stream().anyMatch(p -> p.startsWith("$.units[0].inputs.row cycle: number <- create <- number")), paths.toString());

        var schema = api.call("POST /flows", "t1", Map.of(), Map.of(), json("{\"name\": \"x\", \"units\": [], \"columns\": {}}"));
        assertEquals(400, schema.get("statusCode"));
        assertEquals("ValidationFailed", RegistryApiHarness.body(schema).path("error").asText());

        String flowId = RegistryApiHarness.body(api.call("POST /flows", "t1", Map.of(), Map.of(), json(FLOW))).path("flowId").asText();
        var badRun = api.call("POST /flows/{flowId}/runs", "t1", Map.of("flowId", flowId), Map.of(), json("{\"rows\": 0}"));
        assertEquals(400, badRun.get("statusCode"));
        assertEquals("$.rows", RegistryApiHarness.body(badRun).path("errors").get(0).path("path").asText());
        var noInput = api.call("POST /flows/{flowId}/runs", "t1", Map.of("flowId", flowId), Map.of(), json("{\"rows\": 1}"));
        assertEquals(400, noInput.get("statusCode"));
        assertEquals("$.inputs.baseUrl", RegistryApiHarness.body(noInput).path("errors").get(0).path("path").asText());
        assertEquals(404, api.call("POST /flows/{flowId}/runs", "t2", Map.of("flowId", flowId), Map.of(), json("{\"rows\": 1}")).get("statusCode"));
        assertTrue(markers.isEmpty());
    }

    @Test
    void aPlanDrawsFromAStoredDataSetAndNamesOnlyStoredSets() {
        assertEquals(201, api.call("POST /services", "t1", Map.of(), Map.of(), json("{\"name\": \"shop\", \"baseUrl\": \"" + base + "\"}"))
                .get("statusCode"));
        String flowId = RegistryApiHarness.body(api.call("POST /flows", "t1", Map.of(), Map.of(), json(FLOW))).path("flowId").asText();
        assertEquals(201, api.call("POST /flows/{flowId}/runs", "t1", Map.of("flowId", flowId), Map.of(),
                json("{\"rows\": 2, \"dataSetId\": \"buyers\", \"inputs\": {\"baseUrl\": \"" + base + "\"}}")).get("statusCode"));
        String plan = """
                {"name": "orders", "preTest": {"qps": 1, "durationS": 5}, "formal": {"steps": [{"qps": 2, "durationS": 5}]},
                 "warmUp": {"qps": 1, "durationS": 5},
                 "scenarios": [{"name": "order", "service": "shop", "data": [{"dataSetId": "buyers", "mode": "unique"}],
                   "requests": [{"method": "POST", "path": "/orders/{{data.buyers.buyerId}}?ref={{gen.uuid}}",
                                 "headers": {"x-cart": "{{data.buyers.%s}}"}, "body": "{}"}]}]}
                """;
        var tooFew = api.call("POST /plans", "t1", Map.of(), Map.of(), json(plan.formatted("buyerId")));
        assertEquals(400, tooFew.get("statusCode"));
        assertEquals("$.scenarios[0].data[0].dataSetId", RegistryApiHarness.body(tooFew).path("errors").get(0).path("path").asText());
        assertEquals("data set 'buyers' has 2 ok rows but the scenario's largest step sends 10 requests, each needing a row of its own "
                + "(mode unique): build more rows, or use mode sequential or random", RegistryApiHarness.body(tooFew).path("errors").get(0).path("reason").asText());
        assertEquals(201, api.call("POST /flows/{flowId}/runs", "t1", Map.of("flowId", flowId), Map.of(),
                json("{\"rows\": 10, \"dataSetId\": \"buyers\", \"inputs\": {\"baseUrl\": \"" + base + "\"}}")).get("statusCode"));
        var created = api.call("POST /plans", "t1", Map.of(), Map.of(), json(plan.formatted("buyerId")));
        assertEquals(201, created.get("statusCode"), String.valueOf(created.get("body")));
        JsonNode stored = RegistryApiHarness.body(created);
        api.assertConforms("Plan", stored);
        assertEquals("buyers", stored.path("scenarios").get(0).path("data").get(0).path("dataSetId").asText());
        assertEquals("unique", stored.path("scenarios").get(0).path("data").get(0).path("mode").asText());

        var badColumn = api.call("POST /plans", "t1", Map.of(), Map.of(), json(plan.formatted("phone")));
        assertEquals(400, badColumn.get("statusCode"));
        assertEquals("$.scenarios[0].requests[0].headers.x-cart", RegistryApiHarness.body(badColumn).path("errors").get(0).path("path").asText());
        assertEquals("{{data.buyers.phone}}: data set 'buyers' has no column 'phone' (columns: buyerId)",
                RegistryApiHarness.body(badColumn).path("errors").get(0).path("reason").asText());

        String missing = """
                {"name": "replay", "preTest": {"qps": 1, "durationS": 5}, "formal": {"steps": [{"qps": 2, "durationS": 5}]},
                 "scenarios": [{"name": "r", "service": "shop", "trafficSetId": "ts-none", "data": [{"dataSetId": "carts"}],
                                "slots": {"email": "{{data.buyers.buyerId}}"}}]}
                """;
        var bad = api.call("POST /plans", "t1", Map.of(), Map.of(), json(missing));
        assertEquals(400, bad.get("statusCode"));
        List<String> paths = new ArrayList<>();
        RegistryApiHarness.body(bad).path("errors").forEach(e -> paths.add(e.path("path").asText()));
        assertEquals(List.of("$.scenarios[0].trafficSetId", "$.scenarios[0].data[0].dataSetId", "$.scenarios[0].slots.email"), paths);
        var neither = api.call("POST /plans", "t1", Map.of(), Map.of(), json(missing.replace("\"trafficSetId\": \"ts-none\", ", "")));
        assertEquals(400, neither.get("statusCode"), "a scenario needs requests or a traffic set");
    }
}
