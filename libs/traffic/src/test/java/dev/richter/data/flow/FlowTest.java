package dev.richter.data.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.richter.common.Json;
import dev.richter.common.model.Marker;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A flow of four units (make an e-mail → create a shadow buyer → get its token → pick an in-stock SKU) against a
 * JDK {@link HttpServer} standing in for the shop: the server checks the marker on every call and fails the 5th
 * buyer creation; the run keeps that row with its error and a second run of the same data set creates only it.
 */
class FlowTest {
    private HttpServer server;
    private String base;
    private final AtomicInteger creates = new AtomicInteger();
    /** e-mail → successful creations. */
    private final Map<String, AtomicInteger> created = new ConcurrentHashMap<>();
    private final List<String> markers = new CopyOnWriteArrayList<>();
    private final List<String> idempotencyKeys = new CopyOnWriteArrayList<>();
    private final FakeRegistry registry = new FakeRegistry();
    private final DataSetStore store = new DataSetStore(registry.client, "registry", 400);
    private final FlowRunner runner = new FlowRunner(HttpClient.newHttpClient(), Expressions.DEFAULT, Marker.DEFAULT,
            Duration.ofSeconds(5), System::currentTimeMillis);
    private final FlowService service = new FlowService(store, runner, System::currentTimeMillis);

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/buyers", ex -> {
            seen(ex);
            JsonNode body = Json.MAPPER.readTree(ex.getRequestBody());
            if (creates.incrementAndGet() == 5) {
                reply(ex, 503, "{\"error\":\"induced\"}");
                return;
            }
            String email = body.path("email").asText();
            int n = created.computeIfAbsent(email, e -> new AtomicInteger()).incrementAndGet();
            idempotencyKeys.add(ex.getRequestHeaders().getFirst("Idempotency-Key"));
            reply(ex, 201, "{\"id\":\"b-" + email.hashCode() + "-" + n + "\",\"shadow\":true}");
        });
        server.createContext("/tokens", ex -> {
            seen(ex);
            JsonNode body = Json.MAPPER.readTree(ex.getRequestBody());
            reply(ex, 200, "{\"access_token\":\"tok-" + body.path("buyerId").asText() + "\",\"expires_in\":3600}");
        });
        server.createContext("/inventory", ex -> {
            seen(ex);
            reply(ex, 200, "{\"items\":[{\"sku\":\"SKU-0\",\"stock\":0},{\"sku\":\"SKU-7\",\"stock\":12}]}");
        });
        server.createContext("/big", ex -> {
            seen(ex);
            reply(ex, 200, "{\"pad\":\"" + "x".repeat(300_000) + "\"}");
        });
        server.setExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private void seen(HttpExchange ex) {
        markers.add(String.valueOf(ex.getRequestHeaders().getFirst("baggage")));
    }

    private static void reply(HttpExchange ex, int status, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("content-type", "application/json");
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
        ex.close();
    }

    /** A run request whose calls may go to the test server only. */
    private FlowRunner.Request req(int rows, int concurrency, Map<String, ? extends JsonNode> inputs) {
        return new FlowRunner.Request(rows, concurrency, Map.copyOf(inputs), List.of(base));
    }

    static Flow buyersFlow() {
        return new Flow(null, null, "shadow buyers", Map.of("baseUrl", "string"), List.of(
                new Flow.Step("pickSku", LogicUnit.http(Map.of("baseUrl", "string"), Map.of("sku", "string"), "GET",
                        "{{baseUrl}}/inventory", Map.of(), null, Map.of("sku", "body.items[stock > 0][0].sku")),
                        Map.of("baseUrl", "input.baseUrl")),
                new Flow.Step("makeEmail", LogicUnit.transform(Map.of("row", "number"), Map.of("email", "string"),
                        "{\"email\": \"buyer-\" & $string(row) & \"@shadow.example\"}"), Map.of("row", "gen.row")),
                new Flow.Step("createBuyer", LogicUnit.http(Map.of("baseUrl", "string", "email", "string"),
                        Map.of("buyerId", "string"), "POST", "{{baseUrl}}/buyers", Map.of("baggage", "tenant=t1"),
                        "{\"email\": email}", Map.of("buyerId", "body.id")),
                        Map.of("baseUrl", "input.baseUrl", "email", "makeEmail.email")),
                new Flow.Step("getToken", LogicUnit.http(Map.of("baseUrl", "string", "buyerId", "string"),
                        Map.of("token", "string"), "POST", "{{baseUrl}}/tokens", Map.of(),
                        "{\"buyerId\": buyerId}", Map.of("token", "body.access_token")),
                        Map.of("baseUrl", "input.baseUrl", "buyerId", "createBuyer.buyerId"))),
                columnsOf("email", "makeEmail.email", "buyerId", "createBuyer.buyerId", "token", "getToken.token", "sku", "pickSku.sku"), 0);
    }

    private static Map<String, String> columnsOf(String... kv) {
        Map<String, String> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void runsMarkedRowsKeepsTheFailedOneAndResumesWithoutDuplicates() {
        Flow flow = service.create("t1", buyersFlow());
        assertTrue(flow.flowId().startsWith("flow-"));
        var request = req(12, 4, Map.of("baseUrl", TextNode.valueOf(base)));
        long deadline = System.currentTimeMillis() + 20_000;

        FlowRunner.Result first = service.run("t1", flow.flowId(), "buyers-1", request, deadline).orElseThrow();
        assertTrue(first.complete());
        assertEquals(12, first.rows());
        assertEquals(11, first.ok());
        assertEquals(1, first.failed());
        assertEquals(12, first.ran());
        assertEquals(0, first.resumed());

        DataSet stored = service.dataSet("t1", "buyers-1").orElseThrow();
        assertEquals(List.of("email", "buyerId", "token", "sku"), stored.columns());
        assertEquals(new DataSet.Counts(12, 11, 1), stored.counts());
        List<DataSet.Row> failed = stored.rows().stream().filter(r -> !r.ok()).toList();
        assertEquals(1, failed.size());
        assertEquals("unit createBuyer: HTTP 503 from POST " + base + "/buyers", failed.get(0).error());
        int failedRow = failed.get(0).row();
        for (int i = 0; i < 12; i++) {
            DataSet.Row r = stored.rows().get(i);
            assertEquals(i, r.row(), "rows in order");
            assertEquals("buyers-1#" + i, r.idempotencyKey());
            assertTrue(r.marked());
            if (i != failedRow) {
                assertEquals("buyer-" + i + "@shadow.example", r.values().get("email").asText());
                assertEquals("tok-" + r.values().get("buyerId").asText(), r.values().get("token").asText());
                assertEquals("SKU-7", r.values().get("sku").asText());
            }
        }
        assertTrue(registry.keys("t1", "datachunk#buyers-1#").size() > 1, "stored in several chunks");

        FlowRunner.Result second = service.run("t1", flow.flowId(), "buyers-1", request, deadline).orElseThrow();
        assertTrue(second.complete());
        assertEquals(12, second.ok());
        assertEquals(0, second.failed());
        assertEquals(11, second.resumed());
        assertEquals(1, second.ran());

        DataSet resumed = service.dataSet("t1", "buyers-1").orElseThrow();
        assertEquals(new DataSet.Counts(12, 12, 0), resumed.counts());
        assertEquals(2, resumed.rows().get(failedRow).attempts());
        assertEquals("buyer-" + failedRow + "@shadow.example", resumed.rows().get(failedRow).values().get("email").asText());
        // the server saw each row's creation succeed exactly once: 12 buyers, 13 create calls (one failed)
        assertEquals(12, created.size());
        created.forEach((email, n) -> assertEquals(1, n.get(), email));
        assertEquals(13, creates.get());
        assertEquals(12, new java.util.HashSet<>(idempotencyKeys).size());
        assertTrue(idempotencyKeys.contains("buyers-1#" + failedRow + "#createBuyer"));
        // every call carried the marker (first), other baggage members kept: 13 inventory + 13 creates + 12 tokens
        assertEquals(38, markers.size());
        for (String m : markers) {
            assertTrue(m.startsWith("richter-loadtest=1"), m);
        }
        assertEquals(13, Collections.frequency(markers, "richter-loadtest=1,tenant=t1"));
        // the first write's chunks were replaced, not left behind
        String writeId = registry.items.get("t1\u0000dataset#buyers-1").get("writeId").s();
        assertTrue(registry.keys("t1", "datachunk#buyers-1#").stream().allMatch(k -> k.contains("#" + writeId + "#")));
    }

    @Test
    void rowsNotStartedByTheDeadlineArePendingAndNothingIsStored() {
        Flow flow = service.create("t1", buyersFlow());
        var r = service.run("t1", flow.flowId(), "late", req(5, 2, Map.of("baseUrl", TextNode.valueOf(base))),
                System.currentTimeMillis() - 1).orElseThrow();
        assertFalse(r.complete());
        assertEquals(5, r.pending());
        assertEquals(0, r.ran());
        assertTrue(service.dataSet("t1", "late").isEmpty());
        assertEquals(0, creates.get());
    }

    @Test
    void anotherTeamSeesNeitherFlowNorDataSet() {
        Flow flow = service.create("t1", buyersFlow());
        assertTrue(service.get("t2", flow.flowId()).isEmpty());
        assertTrue(service.run("t2", flow.flowId(), null, req(1, 1, Map.of("baseUrl", TextNode.valueOf(base))),
                System.currentTimeMillis() + 5000).isEmpty());
        assertEquals(0, creates.get());
    }

    @Test
    void badRunInputsAreReportedByPath() {
        Flow flow = service.create("t1", buyersFlow());
        var e = assertThrows(FlowValidator.InvalidFlowException.class, () -> service.run("t1", flow.flowId(), "bad id!",
                req(0, 500, Map.of("baseUrl", TextNode.valueOf(base))), System.currentTimeMillis() + 5000));
        assertEquals(List.of("$.dataSetId", "$.rows", "$.concurrency"), e.problems().stream().map(FlowValidator.FieldProblem::path).toList());
        var e2 = assertThrows(FlowValidator.InvalidFlowException.class, () -> service.run("t1", flow.flowId(), null,
                req(1, 1, Map.of("baseUrl", (JsonNode) com.fasterxml.jackson.databind.node.IntNode.valueOf(3), "extra", TextNode.valueOf("x"))), System.currentTimeMillis() + 5000));
        assertEquals(List.of(new FlowValidator.FieldProblem("$.inputs.baseUrl", "type mismatch: a number, the flow takes a string"),
                new FlowValidator.FieldProblem("$.inputs.extra", "unknown slot: the flow declares no input 'extra'")), e2.problems());
    }

    @Test
    void aRunawayTransformFailsItsRowWithTheBudget() {
        Flow flow = new Flow(null, null, "runaway", Map.of(), List.of(new Flow.Step("big",
                LogicUnit.transform(Map.of(), Map.of("n", "number"), "{\"n\": $count([1..5000000].($ * 2))}"), Map.of())),
                Map.of("n", "big.n"), 0);
        Flow stored = service.create("t1", flow);
        var r = service.run("t1", stored.flowId(), "runaway", req(1, 1, Map.of()), System.currentTimeMillis() + 5000).orElseThrow();
        assertEquals(1, r.failed());
        String error = service.dataSet("t1", "runaway").orElseThrow().rows().get(0).error();
        assertTrue(error.startsWith("unit big: ") && error.contains("budget"), error);
    }

    @Test
    void validationNamesThePathOfEveryProblem() {
        Flow bad = new Flow(null, null, "bad", Map.of("baseUrl", "string"), List.of(
                new Flow.Step("a", LogicUnit.transform(Map.of("x", "number"), Map.of("y", "number"), "{\"y\": x}"), Map.of("x", "c.z")),
                new Flow.Step("b", LogicUnit.transform(Map.of("y", "number"), Map.of("z", "number"), "{\"z\": y}"), Map.of("y", "a.y")),
                new Flow.Step("c", LogicUnit.transform(Map.of("z", "number"), Map.of("z", "number"), "{\"z\": z}"), Map.of("z", "b.z")),
                new Flow.Step("d", LogicUnit.http(Map.of("n", "number"), Map.of("token", "strin"), "POST", "{{baseUrl}}/x",
                        Map.of(), "{", Map.of()), Map.of("n", "input.baseUrl", "token", "gen.uuid"))),
                Map.of("out", "d.nothing"), 0);
        var e = assertThrows(FlowValidator.InvalidFlowException.class, () -> FlowValidator.validate(bad));
        Map<String, String> byPath = new HashMap<>();
        e.problems().forEach(p -> byPath.merge(p.path(), p.reason(), (x, y) -> x + " | " + y));
        assertEquals("type mismatch: 'input.baseUrl' is a string, the slot takes a number", byPath.get("$.units[3].inputs.n"));
        assertEquals("unknown slot: the unit declares no input 'token' (inputs: n)", byPath.get("$.units[3].inputs.token"));
        assertEquals("unknown type 'strin': one of string, number, boolean, object, array", byPath.get("$.units[3].unit.outputs.token"));
        assertEquals("unknown slot '{{baseUrl}}': not an input slot of the unit", byPath.get("$.units[3].unit.url"));
        assertTrue(byPath.get("$.units[3].unit.body").startsWith("JSONata: S0"), byPath.get("$.units[3].unit.body"));
        assertEquals("unknown slot: unit 'd' has no output 'nothing'", byPath.get("$.columns.out"));
        assertEquals("cycle: a <- c <- b <- a (each unit needs the next one's output)", byPath.get("$.units[0].inputs.x"));
        assertService(service, bad);
    }

    /** Issue 24 finding 2: a call whose fixed host or port cannot be reached is refused when the flow is stored. */
    @Test
    void aUrlWithAPortOutOfRangeIsRefusedAtItsPath() {
        Flow bad = new Flow(null, null, "bad", Map.of(), List.of(
                new Flow.Step("d", LogicUnit.http(Map.of("n", "number"), Map.of(), "GET", "http://127.0.0.1:99999/x?q={{n}}",
                        Map.of(), null, Map.of()), Map.of("n", "gen.uuid"))),
                Map.of(), 0);
        var e = assertThrows(FlowValidator.InvalidFlowException.class, () -> FlowValidator.validate(bad));
        assertEquals(List.of(new FlowValidator.FieldProblem("$.units[0].unit.url",
                "'http://127.0.0.1:99999' port 99999 is out of range: a port is a number from 1 to 65535")),
                e.problems().stream().filter(p -> p.path().endsWith(".url")).toList());
    }

    private static void assertService(FlowService service, Flow bad) {
        assertThrows(FlowValidator.InvalidFlowException.class, () -> service.create("t1", bad));
    }

    @Test
    void validFlowRunsInDependencyOrder() {
        var checked = FlowValidator.validate(buyersFlow());
        assertEquals(List.of(0, 1, 2, 3), checked.order());
        Flow reversed = new Flow(null, null, "r", Map.of(), List.of(
                new Flow.Step("second", LogicUnit.transform(Map.of("v", "string"), Map.of("w", "string"), "{\"w\": v & \"!\"}"), Map.of("v", "first.v")),
                new Flow.Step("first", LogicUnit.transform(Map.of("id", "string"), Map.of("v", "string"), "{\"v\": id}"), Map.of("id", "gen.uuid"))),
                Map.of("w", "second.w"), 0);
        assertEquals(List.of(1, 0), FlowValidator.validate(reversed).order());
        var ignored = new ArrayList<>();
        assertTrue(ignored.isEmpty());
    }

    @Test
    void aResponseOverTheInputBudgetFailsTheRowWithoutReadingItAll() {
        Flow flow = service.create("t1", new Flow(null, null, "big", Map.of("baseUrl", "string"), List.of(new Flow.Step("get",
                LogicUnit.http(Map.of("baseUrl", "string"), Map.of("pad", "string"), "GET", "{{baseUrl}}/big", Map.of(), null,
                        Map.of("pad", "body.pad")), Map.of("baseUrl", "input.baseUrl"))), Map.of("pad", "get.pad"), 0));
        var r = service.run("t1", flow.flowId(), "big", req(1, 1, Map.of("baseUrl", TextNode.valueOf(base))),
                System.currentTimeMillis() + 5000).orElseThrow();
        assertEquals(1, r.failed());
        assertEquals("unit get: the response body of GET " + base + "/big is over 262144 bytes (the expressions' input budget); "
                + "it was not read further", service.dataSet("t1", "big").orElseThrow().rows().get(0).error());
    }

    @Test
    void callsGoOnlyUnderTheTeamsRegisteredBaseUrls() {
        Flow flow = service.create("t1", buyersFlow());
        var r = service.run("t1", flow.flowId(), "elsewhere", new FlowRunner.Request(2, 1, Map.of("baseUrl", TextNode.valueOf(base)),
                List.of("http://127.0.0.1:1/", base + "/api")), System.currentTimeMillis() + 5000).orElseThrow();
        assertEquals(2, r.failed());
        assertEquals("unit pickSku: GET " + base + "/inventory not sent: it is under no base URL of a service the team registered "
                + "(POST /services)", service.dataSet("t1", "elsewhere").orElseThrow().rows().get(0).error());
        assertEquals(0, markers.size(), "nothing reached the server");
        assertTrue(FlowRunner.allowed(java.net.URI.create("http://Shop:80/api/x"), List.of("http://shop/api")));
        assertTrue(FlowRunner.allowed(java.net.URI.create("https://shop/api/orders"), List.of("https://shop:443/api/")));
        assertFalse(FlowRunner.allowed(java.net.URI.create("http://shop/apix"), List.of("http://shop/api")));
        assertFalse(FlowRunner.allowed(java.net.URI.create("http://shop.evil/api"), List.of("http://shop/api")));
        assertFalse(FlowRunner.allowed(java.net.URI.create("http://shop:8080/api"), List.of("http://shop/api")));
    }

    /**
     * Issue 41: a unit call to a registered service whose host now resolves to a refused address (here: loopback, as on
     * AWS) is not sent; its row fails saying why, and the server got nothing.
     */
    @Test
    void aCallToAnAddressTheDeploymentRefusesIsNotSentAndItsRowSaysWhy() {
        var aws = new dev.richter.common.net.AllowedNetworks("", false, java.net.InetAddress::getAllByName);
        var refusing = new FlowService(store, new FlowRunner(HttpClient.newHttpClient(), Expressions.DEFAULT, Marker.DEFAULT,
                Duration.ofSeconds(5), System::currentTimeMillis, aws), System::currentTimeMillis);
        Flow flow = refusing.create("t1", buyersFlow());
        var r = refusing.run("t1", flow.flowId(), "loopback", req(2, 1, Map.of("baseUrl", TextNode.valueOf(base))),
                System.currentTimeMillis() + 5000).orElseThrow();
        assertEquals(2, r.failed());
        String error = refusing.dataSet("t1", "loopback").orElseThrow().rows().get(0).error();
        assertTrue(error.startsWith("unit pickSku: GET " + base + "/inventory not sent: 127.0.0.1 is loopback"), error);
        assertTrue(error.endsWith("(AllowedNetworks)"), error);
        assertEquals(0, markers.size(), "nothing reached the server");
    }
}
