package dev.richter.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code /links}: the entries, the tree below a node, the exits below an entry and their mock-required mark, through
 * the Lambda handler on the links library's fake of the links table, after {@code POST /traces} of real spans: team
 * t1 the demo shop's one marked order (the OpenTelemetry agent's OTLP export of gateway, order and inventory, whose
 * payment call goes to the uninstrumented {@code 127.0.0.1}), team t2 Zipkin's yelp trace of the shared corpus. Every
 * answer, errors included, conforms to its schema in openapi.json.
 */
class LinkRoutesTest {
    private static final String ENTRY = "gateway POST /orders";
    private static final String PAYMENT_EXIT_FROM = "order POST /orders";
    private static final String PAYMENT_EXIT_TO = "127.0.0.1 POST";

    private final RegistryApiHarness api = new RegistryApiHarness();

    @BeforeEach
    void ingestTheShopForT1AndYelpForT2() throws IOException {
        for (String service : List.of("gateway", "order", "inventory")) {
            assertEquals(201, api.call("POST /services", "t1", Map.of(), Map.of(), json(
                    "{\"name\": \"" + service + "\", \"baseUrl\": \"http://" + service + ".internal:8080\"}")).get("statusCode"));
        }
        byte[] shop;
        try (InputStream in = getClass().getResourceAsStream("/trace/shop-spring-one-order.otlp.json")) {
            shop = in.readAllBytes();
        }
        JsonNode ingested = answer("POST /traces", "t1", Map.of("file", "shop-spring-one-order.otlp.json"), shop, 200,
                "IngestResult");
        assertEquals(12, ingested.path("spansParsed").asInt());
        byte[] yelp = Files.readAllBytes(Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"),
                "traces/zipkin/yelp.json"));
        assertEquals(16, answer("POST /traces", "t2", Map.of("file", "yelp.json"), yelp, 200, "IngestResult")
                .path("spansParsed").asInt());
    }

    /** Issue 42 item 8: an entry grouped by route keeps the raw paths it was called with as its samples. */
    @Test
    void anEntryGroupedByRouteListsItsRawPathsAsSamples() {
        StringBuilder spans = new StringBuilder();
        for (int owner = 1; owner <= 7; owner++) {
            spans.append(owner == 1 ? "" : ",").append("{\"traceId\":\"0000000000000000000000000000000").append(owner)
                    .append("\",\"spanId\":\"a00000000000000").append(owner).append("\",\"name\":\"GET /owners/{ownerId}\","
                            + "\"kind\":2,\"startTimeUnixNano\":\"1700000000000000000\",\"endTimeUnixNano\":"
                            + "\"1700000000010000000\",\"attributes\":[{\"key\":\"http.route\",\"value\":{\"stringValue\":"
                            + "\"/owners/{ownerId}\"}},{\"key\":\"url.path\",\"value\":{\"stringValue\":\"/owners/")
                    .append(owner).append("\"}}]}");
        }
        byte[] doc = ("{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":"
                + "{\"stringValue\":\"customers\"}}]},\"scopeSpans\":[{\"spans\":[" + spans + "]}]}]}")
                .getBytes(StandardCharsets.UTF_8);
        answer("POST /traces", "t4", Map.of("file", "owners.otlp.json"), doc, 200, "IngestResult");
        JsonNode entries = answer("GET /links/entries", "t4", Map.of(), null, 200, "LinkEntries");
        assertEquals(List.of("customers GET /owners/{ownerId}"), strings(entries.path("entries")));
        assertEquals(List.of("/owners/1", "/owners/2", "/owners/3", "/owners/4", "/owners/5"),
                strings(entries.path("samples").path("customers GET /owners/{ownerId}")), "the first five, in order");
        assertEquals(0, answer("GET /links/entries", "t4", Map.of("dimension", "service"), null, 200, "LinkEntries")
                .path("samples").size(), "service entries have no paths");
    }

    @Test
    void entriesAreTheTeamsOwnInEitherDimension() {
        JsonNode interfaces = answer("GET /links/entries", "t1", Map.of(), null, 200, "LinkEntries");
        assertEquals("interface", interfaces.path("dimension").asText(), "the default");
        assertEquals(List.of(ENTRY), strings(interfaces.path("entries")),
                "the gateway's route-named SERVER span reads as the path it served");
        assertEquals(List.of("gateway"), strings(answer("GET /links/entries", "t1", Map.of("dimension", "service"), null,
                200, "LinkEntries").path("entries")));
        assertEquals(List.of("routing post /location/update/v4"), strings(answer("GET /links/entries", "t2", Map.of(),
                null, 200, "LinkEntries").path("entries")), "t2 sees only its own");
        assertEquals(List.of(), strings(answer("GET /links/entries", "t3", Map.of(), null, 200, "LinkEntries")
                .path("entries")), "a team with no trace has no entry");

        assertEquals(List.of("/orders"), strings(interfaces.path("samples").path(ENTRY)), "the path it was called with");
        assertEquals(1, interfaces.path("samples").size(), interfaces.toString());

        JsonNode bad = answer("GET /links/entries", "t1", Map.of("dimension", "method"), null, 400, "Error");
        assertEquals(List.of("query.dimension: must be service or interface, got 'method'"), problems(bad));
    }

    @Test
    void theTreeBelowTheEntryHasEveryNodeWithItsDepthAndEveryEdgeWithItsCalls() {
        JsonNode tree = answer("GET /links/tree", "t1", Map.of("node", ENTRY), null, 200, "LinkTree");
        assertEquals(ENTRY, tree.path("root").asText());
        assertEquals(10, tree.path("maxDepth").asInt(), "the default depth");
        assertEquals(0, tree.path("rootCycleDepth").asInt());
        List<String> nodes = new ArrayList<>();
        tree.path("nodes").forEach(n -> nodes.add(n.path("depth").asInt() + " " + n.path("node").asText() + " <- "
                + n.path("parent").asText()));
        assertEquals(List.of("1 order POST /orders <- gateway POST /orders", "2 127.0.0.1 POST <- order POST /orders",
                "2 inventory POST /reserve <- order POST /orders",
                "3 h2://127.0.0.1:18092/shop INSERT reservations <- inventory POST /reserve",
                "3 h2://127.0.0.1:18092/shop SELECT stock <- inventory POST /reserve",
                "3 h2://127.0.0.1:18092/shop UPDATE stock <- inventory POST /reserve", "3 redis CLIENT <- inventory POST /reserve",
                "3 redis SETEX <- inventory POST /reserve"), nodes);
        assertEquals(List.of("gateway POST /orders -> order POST /orders x1",
                "inventory POST /reserve -> h2://127.0.0.1:18092/shop INSERT reservations x1",
                "inventory POST /reserve -> h2://127.0.0.1:18092/shop SELECT stock x1",
                "inventory POST /reserve -> h2://127.0.0.1:18092/shop UPDATE stock x1",
                "inventory POST /reserve -> redis CLIENT x2", "inventory POST /reserve -> redis SETEX x1",
                "order POST /orders -> 127.0.0.1 POST x1", "order POST /orders -> inventory POST /reserve x1"),
                edges(tree), "redis CLIENT: two connection spans on the one edge");
        assertEquals("inventory", tree.path("edges").get(4).path("fromService").asText());
        assertEquals("redis", tree.path("edges").get(4).path("toService").asText());

        JsonNode shallow = answer("GET /links/tree", "t1", Map.of("node", ENTRY, "maxDepth", "1"), null, 200, "LinkTree");
        assertEquals(1, shallow.path("nodes").size());
        assertEquals(List.of("gateway POST /orders -> order POST /orders x1"), edges(shallow));

        JsonNode services = answer("GET /links/tree", "t1", Map.of("node", "order", "dimension", "service"), null, 200,
                "LinkTree");
        assertEquals(List.of("inventory -> h2://127.0.0.1:18092/shop x3", "inventory -> redis x3", "order -> 127.0.0.1 x1",
                "order -> inventory x1"), edges(services), "service dimension, below order only: its H2 and Redis calls");
        assertEquals("service", services.path("dimension").asText());

        JsonNode leaf = answer("GET /links/tree", "t1", Map.of("node", "redis SETEX"), null, 200, "LinkTree");
        assertEquals(0, leaf.path("nodes").size(), "a leaf of the graph is found, with nothing below it");
        assertEquals(0, leaf.path("edges").size());
    }

    @Test
    void anotherTeamsNodeOrANodeOfNoGraphIsNotFound() {
        JsonNode other = answer("GET /links/tree", "t1", Map.of("node", "routing post /location/update/v4"), null, 404,
                "Error");
        assertEquals("NotFound", other.path("error").asText());
        assertEquals("node 'routing post /location/update/v4' not found in the team's interface links "
                + "(GET /links/entries?dimension=interface lists the entries)", other.path("message").asText());
        answer("GET /links/tree", "t2", Map.of("node", ENTRY), null, 404, "Error");
        answer("GET /links/tree", "t1", Map.of("node", "order"), null, 404, "Error");
        answer("GET /links/exits", "t2", Map.of("entry", ENTRY), null, 404, "Error");
        answer("GET /links/exits", "t1", Map.of("entry", "routing"), null, 404, "Error");
    }

    @Test
    void badQueryParametersAreEachNamedAtTheirPath() {
        JsonNode missing = answer("GET /links/tree", "t1", Map.of(), null, 400, "Error");
        assertEquals("ValidationFailed", missing.path("error").asText());
        assertEquals(List.of("query.node: required: a node of the team's links, e.g. 'order POST /orders' "
                + "(GET /links/entries lists the entries)"), problems(missing));

        JsonNode all = answer("GET /links/tree", "t1", Map.of("node", " ", "dimension", "x", "maxDepth", "33"), null, 400,
                "Error");
        assertEquals(List.of("query.node", "query.dimension", "query.maxDepth"), paths(all));
        assertEquals("must be an integer from 1 to 32 (edges; closure rows deeper than 32 are not stored), got '33'",
                all.path("errors").get(2).path("reason").asText());
        assertEquals(List.of("query.maxDepth"), paths(answer("GET /links/tree", "t1",
                Map.of("node", ENTRY, "maxDepth", "zero"), null, 400, "Error")));
        assertEquals(List.of("query.entry"), paths(answer("GET /links/exits", "t1", Map.of(), null, 400, "Error")));
    }

    @Test
    void theExitsBelowTheEntryLeaveTheRegisteredServices() {
        JsonNode doc = answer("GET /links/exits", "t1", Map.of("entry", ENTRY), null, 200, "LinkExits");
        assertEquals("interface", doc.path("dimension").asText());
        assertEquals(List.of("gateway", "inventory", "order"), strings(doc.path("scope")), "by name, as registered");
        assertEquals(List.of("inventory POST /reserve -> h2://127.0.0.1:18092/shop INSERT reservations x1 false",
                "inventory POST /reserve -> h2://127.0.0.1:18092/shop SELECT stock x1 false",
                "inventory POST /reserve -> h2://127.0.0.1:18092/shop UPDATE stock x1 false",
                "inventory POST /reserve -> redis CLIENT x2 false", "inventory POST /reserve -> redis SETEX x1 false",
                "order POST /orders -> 127.0.0.1 POST x1 false"), exits(doc));

        JsonNode belowInventory = answer("GET /links/exits", "t1", Map.of("entry", "inventory"), null, 200, "LinkExits");
        assertEquals("service", belowInventory.path("dimension").asText(), "not an interface node: a service");
        assertEquals(5, belowInventory.path("exits").size(), "inventory's calls only: not order's payment call");

        assertEquals(0, answer("GET /links/exits", "t2", Map.of("entry", "routing post /location/update/v4"), null, 200,
                "LinkExits").path("exits").size(), "t2 registered no service: nothing is in its scope");
    }

    @Test
    void markingAnExitMockRequiredIsReadBackAuditedAndClearedAgain() {
        JsonNode marked = answer("PUT /links/exits/mock", "t1", Map.of(), json("{\"from\": \"" + PAYMENT_EXIT_FROM
                + "\", \"to\": \"" + PAYMENT_EXIT_TO + "\", \"mockRequired\": true}"), 200, "LinkExit");
        assertEquals(PAYMENT_EXIT_TO, marked.path("toNode").asText());
        assertEquals("127.0.0.1", marked.path("toService").asText());
        assertTrue(marked.path("mockRequired").asBoolean());
        assertEquals("user-of-t1", marked.path("annotatedBy").asText());
        assertEquals("order POST /orders -> 127.0.0.1 POST x1 true",
                exits(answer("GET /links/exits", "t1", Map.of("entry", ENTRY), null, 200, "LinkExits")).get(5));

        JsonNode cleared = answer("PUT /links/exits/mock", "t1", Map.of(), json("{\"from\": \"" + PAYMENT_EXIT_FROM
                + "\", \"to\": \"" + PAYMENT_EXIT_TO + "\", \"mockRequired\": false}"), 200, "LinkExit");
        assertEquals(false, cleared.path("mockRequired").asBoolean());
        assertEquals("order POST /orders -> 127.0.0.1 POST x1 false",
                exits(answer("GET /links/exits", "t1", Map.of("entry", ENTRY), null, 200, "LinkExits")).get(5));

        JsonNode audit = answer("GET /audit", "t1", Map.of(), null, 200, "AuditPage");
        List<JsonNode> marks = new ArrayList<>();
        audit.path("items").forEach(i -> {
            if (i.path("action").asText().equals("MarkExitMock")) {
                marks.add(i);
            }
        });
        assertEquals(2, marks.size());
        // the two may share a millisecond, the audit log's order within one: tell them apart by what they wrote
        JsonNode set = marks.stream().filter(m -> m.path("after").path("mockRequired").asBoolean()).findFirst().orElseThrow();
        JsonNode clear = marks.stream().filter(m -> !m.path("after").path("mockRequired").asBoolean()).findFirst().orElseThrow();
        for (JsonNode m : marks) {
            assertEquals("order POST /orders -> 127.0.0.1 POST", m.path("target").asText());
            assertEquals("user-of-t1", m.path("caller").asText());
            assertEquals(PAYMENT_EXIT_TO, m.path("after").path("subject").asText(), "the mark is kept on the called node");
        }
        assertTrue(set.path("before").isNull(), "the first mark had no annotation before it");
        assertEquals(true, clear.path("before").path("mockRequired").asBoolean());
        assertEquals("user-of-t1", clear.path("before").path("annotatedBy").asText());
    }

    @Test
    void anUnknownOrAnotherTeamsExitIsNotFoundAndBadMarksAreRefusedAtTheirPaths() {
        String body = "{\"from\": \"" + PAYMENT_EXIT_FROM + "\", \"to\": \"" + PAYMENT_EXIT_TO + "\", \"mockRequired\": true}";
        JsonNode other = answer("PUT /links/exits/mock", "t2", Map.of(), json(body), 404, "Error");
        assertEquals("exit 'order POST /orders -> 127.0.0.1 POST' not found among the team's exits "
                + "(GET /links/exits?entry=<node> lists them)", other.path("message").asText());
        answer("PUT /links/exits/mock", "t1", Map.of(), json("{\"from\": \"gateway POST /orders\", \"to\": \""
                + PAYMENT_EXIT_TO + "\", \"mockRequired\": true}"), 404, "Error");
        answer("PUT /links/exits/mock", "t1", Map.of(), json("{\"from\": \"order POST /orders\", \"to\": "
                + "\"inventory POST /reserve\", \"mockRequired\": true}"), 404, "Error");

        JsonNode bad = answer("PUT /links/exits/mock", "t1", Map.of(), json(
                "{\"from\": \" \", \"mockRequired\": \"yes\", \"note\": 1}"), 400, "Error");
        assertEquals(List.of("$", "$.from", "$.mockRequired", "$.note"), paths(bad));
        assertEquals("InvalidJson", answer("PUT /links/exits/mock", "t1", Map.of(), json("{\"from\":"), 400, "Error")
                .path("error").asText());
        assertEquals(0, answer("GET /audit", "t1", Map.of(), null, 200, "AuditPage").path("items").findValues("action")
                .stream().filter(a -> a.asText().equals("MarkExitMock")).count(), "nothing refused is audited");
        assertEquals("order POST /orders -> 127.0.0.1 POST x1 false",
                exits(answer("GET /links/exits", "t1", Map.of("entry", ENTRY), null, 200, "LinkExits")).get(5),
                "nor marked");
    }

    /** Calls the route, asserts the status and that the answer conforms to {@code schema} of openapi.json. */
    private JsonNode answer(String route, String team, Map<String, String> query, byte[] body, int status, String schema) {
        var r = api.call(route, team, Map.of(), new LinkedHashMap<>(query), body);
        assertEquals(status, r.get("statusCode"), route + " " + query + ": " + r.get("body"));
        JsonNode doc = RegistryApiHarness.body(r);
        api.assertConforms(schema, doc);
        return doc;
    }

    private static byte[] json(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> strings(JsonNode array) {
        return Json.MAPPER.convertValue(array, Json.MAPPER.getTypeFactory().constructCollectionType(List.class, String.class));
    }

    private static List<String> edges(JsonNode tree) {
        List<String> out = new ArrayList<>();
        tree.path("edges").forEach(e -> out.add(e.path("from").asText() + " -> " + e.path("to").asText() + " x"
                + e.path("callCount").asLong()));
        return out;
    }

    private static List<String> exits(JsonNode doc) {
        List<String> out = new ArrayList<>();
        doc.path("exits").forEach(e -> out.add(e.path("fromNode").asText() + " -> " + e.path("toNode").asText() + " x"
                + e.path("callCount").asLong() + " " + e.path("mockRequired").asBoolean()));
        return out;
    }

    private static List<String> paths(JsonNode error) {
        List<String> out = new ArrayList<>();
        error.path("errors").forEach(e -> out.add(e.path("path").asText()));
        return out;
    }

    private static List<String> problems(JsonNode error) {
        List<String> out = new ArrayList<>();
        error.path("errors").forEach(e -> out.add(e.path("path").asText() + ": " + e.path("reason").asText()));
        return out;
    }
}
