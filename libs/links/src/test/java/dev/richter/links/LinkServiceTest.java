package dev.richter.links;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.links.datastore.DiscoveredDatastore;
import dev.richter.links.datastore.ShadowSpans;
import dev.richter.links.graph.Dimension;
import dev.richter.links.graph.Edge;
import dev.richter.links.store.LinkRepository;
import dev.richter.links.store.NodeAnnotation;
import dev.richter.links.trace.TraceFormatException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** LinkService over an in-memory fake of the DynamoDB calls LinkRepository makes. */
class LinkServiceTest {
    private final FakeDynamoDb ddb = new FakeDynamoDb();
    private final LinkService service = new LinkService(new LinkRepository(ddb, "links"), 32,
            Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC));

    @Test
    void ingestThenTreeUpstreamAndExits() {
        IngestResult r = service.ingest("teamA", "yelp.json", Corpus.bytes("traces/zipkin/yelp.json"));
        assertEquals(16, r.spansParsed());
        assertEquals(10, r.serviceEdgesObserved());
        assertEquals(25, r.edgesAdded(), "10 service + 15 interface edges");
        assertTrue(r.closureItemsWritten() >= 25);
        assertEquals(List.of("routing"), r.serviceEntries());

        // routing → unknown → yelp_main/api_proxy → yelp-main → {memcache, mysql, mobile_api → …}
        LinkTree tree = service.tree("teamA", Dimension.SERVICE, "routing", 10);
        Map<String, Integer> depth = tree.nodes().stream()
                .collect(Collectors.toMap(LinkTree.TreeNode::node, LinkTree.TreeNode::depth));
        assertEquals(Map.of("unknown", 1, "yelp-main", 1, "yelp_main/api_proxy", 2, "memcache", 2, "mysql", 2,
                "mobile_api", 2, "spectre", 3, "blt", 3), depth);
        LinkTree.TreeNode spectre = tree.nodes().stream().filter(n -> n.node().equals("spectre")).findFirst().orElseThrow();
        assertEquals("mobile_api", spectre.parent());
        assertEquals(0, tree.rootCycleDepth());
        assertEquals(2, service.tree("teamA", Dimension.SERVICE, "routing", 1).nodes().size());

        LinkTree up = service.upstream("teamA", Dimension.SERVICE, "memcache", 10);
        assertEquals(Set.of("routing", "unknown", "yelp_main/api_proxy", "yelp-main", "mobile_api"),
                up.nodes().stream().map(LinkTree.TreeNode::node).collect(Collectors.toSet()));

        List<Exit> exits = service.exits("teamA", Set.of("routing", "unknown", "yelp_main/api_proxy", "yelp-main",
                "mobile_api", "spectre"));
        assertEquals(Set.of("memcache", "mysql", "blt"), exits.stream().map(Exit::toService).collect(Collectors.toSet()));
        assertEquals(8, exits.size(), "interface-level: memcache 3 from yelp-main + 2 from mobile_api, mysql 2, blt 1");
    }

    @Test
    void annotationsSurviveReingestAndMarkExits() {
        service.ingest("teamA", "yelp.json", Corpus.bytes("traces/zipkin/yelp.json"));
        service.annotate("teamA", new NodeAnnotation("mysql", true, true, "shadow schema not ready", "alice", 1L));
        service.ingest("teamA", "yelp.json", Corpus.bytes("traces/zipkin/yelp.json"));
        List<Exit> exits = service.exits("teamA", Set.of("yelp-main"));
        Exit mysql = exits.stream().filter(e -> e.toService().equals("mysql")).findFirst().orElseThrow();
        assertTrue(mysql.mockRequired());
        assertTrue(mysql.coreDependency());
        assertEquals("alice", mysql.annotatedBy());
        assertFalse(exits.stream().filter(e -> e.toService().equals("memcache")).anyMatch(Exit::mockRequired));
    }

    @Test
    void exitsBelowANodeAreTheExitsOfWhatItReachesInEitherDimension() {
        service.ingest("teamA", "yelp.json", Corpus.bytes("traces/zipkin/yelp.json"));
        Set<String> scope = Set.of("routing", "unknown", "yelp_main/api_proxy", "yelp-main", "mobile_api", "spectre");
        String mobile = "mobile_api post /location/update/v4";
        List<String> expected = List.of(mobile + " -> blt post", mobile + " -> memcache get_multi mobile_api_nonce",
                mobile + " -> memcache set mobile_api_nonce");
        assertEquals(expected, service.exitsBelow("teamA", Dimension.INTERFACE, mobile, scope).stream()
                .map(x -> x.fromNode() + " -> " + x.toNode()).toList());
        assertEquals(expected, service.exitsBelow("teamA", Dimension.SERVICE, "mobile_api", scope).stream()
                .map(x -> x.fromNode() + " -> " + x.toNode()).toList(), "the service's interface exits");
        assertEquals(service.exits("teamA", scope), service.exitsBelow("teamA", Dimension.INTERFACE,
                "routing post /location/update/v4", scope), "the entry reaches every exit of the trace");
        assertEquals(List.of(), service.exitsBelow("teamA", Dimension.INTERFACE, "blt post", scope), "a leaf calls nothing");
        assertEquals(List.of(), service.exitsBelow("teamB", Dimension.INTERFACE, mobile, scope), "team-scoped");
    }

    @Test
    void edgesAmongATreesNodesCarryTheirCallsAndHasNodeKnowsLeavesButNotOtherTeams() {
        service.ingest("teamA", "yelp.json", Corpus.bytes("traces/zipkin/yelp.json"));
        LinkTree tree = service.tree("teamA", Dimension.SERVICE, "yelp-main", 1);
        Set<String> nodes = new java.util.HashSet<>(Set.of("yelp-main"));
        tree.nodes().forEach(n -> nodes.add(n.node()));
        assertEquals(List.of("mobile_api -> memcache x2", "yelp-main -> memcache x3", "yelp-main -> mobile_api x1",
                "yelp-main -> mysql x2"), service.edgesAmong("teamA", Dimension.SERVICE, nodes).stream()
                        .map(e -> e.from() + " -> " + e.to() + " x" + e.callCount()).toList(),
                "the tree's edges, and the one between two of its nodes (mobile_api also calls memcache)");
        assertTrue(service.hasNode("teamA", Dimension.SERVICE, "routing"), "an entry");
        assertTrue(service.hasNode("teamA", Dimension.SERVICE, "blt"), "a leaf: only a row above it");
        assertTrue(service.hasNode("teamA", Dimension.INTERFACE, "blt post"));
        assertFalse(service.hasNode("teamA", Dimension.INTERFACE, "blt"), "a service is no interface node");
        assertFalse(service.hasNode("teamB", Dimension.SERVICE, "routing"), "team-scoped");
    }

    @Test
    void markingAnExitMockRequiredKeepsTheRestOfItsAnnotationAndClearingItOverridesItsService() {
        service.ingest("teamA", "yelp.json", Corpus.bytes("traces/zipkin/yelp.json"));
        service.annotate("teamA", new NodeAnnotation("mysql begin", true, false, "core", "alice", 1L));
        NodeAnnotation set = service.markMockRequired("teamA", "mysql begin", true, "bob");
        assertEquals(new NodeAnnotation("mysql begin", true, true, "core", "bob",
                Instant.parse("2026-01-01T00:00:00Z").toEpochMilli()), set);
        assertEquals(set, service.annotation("teamA", "mysql begin").orElseThrow());
        assertTrue(service.exits("teamA", Set.of("yelp-main")).stream()
                .filter(e -> e.toNode().equals("mysql begin")).allMatch(Exit::mockRequired));

        service.annotate("teamA", new NodeAnnotation("mysql", false, true, "", "alice", 1L));
        service.markMockRequired("teamA", "mysql commit", false, "bob");
        Map<String, Boolean> marks = service.exits("teamA", Set.of("yelp-main")).stream()
                .filter(e -> e.toService().equals("mysql")).collect(Collectors.toMap(Exit::toNode, Exit::mockRequired));
        assertEquals(Map.of("mysql begin", true, "mysql commit", false), marks, "the node's own mark wins over its service's");
        assertTrue(service.annotation("teamB", "mysql begin").isEmpty(), "team-scoped");
    }

    @Test
    void reingestAddsCallsButNoStructure() {
        IngestResult first = service.ingest("t", "k.json", Corpus.bytes("traces/zipkin/messaging-kafka.json"));
        int items = ddb.items.size();
        IngestResult second = service.ingest("t", "k.json", Corpus.bytes("traces/zipkin/messaging-kafka.json"));
        assertEquals(4, first.edgesAdded());
        assertEquals(0, second.edgesAdded());
        assertEquals(items, ddb.items.size());
        LinkTree t = service.tree("t", Dimension.SERVICE, "servicea", 5);
        assertEquals(12, t.nodes().stream().filter(n -> n.node().equals("kafka")).findFirst().orElseThrow().callCount());
    }

    @Test
    void rejectedDocumentWritesNothing() {
        assertThrows(TraceFormatException.class,
                () -> service.ingest("t", "m.json", Corpus.bytes("traces/otlp/otlp-metrics.json")));
        byte[] truncated = java.util.Arrays.copyOf(Corpus.bytes("traces/zipkin/yelp.json"), 4000);
        TraceFormatException e = assertThrows(TraceFormatException.class, () -> service.ingest("t", "y.json", truncated));
        assertTrue(e.line() > 1);
        assertEquals(0, ddb.batchCalls);
        assertTrue(ddb.items.isEmpty());
    }

    @Test
    void unprocessedItemsAreRetried() {
        ddb.dropOnce = true;
        service.ingest("t", "y.json", Corpus.bytes("traces/zipkin/yelp.json"));
        assertEquals(10, service.tree("t", Dimension.SERVICE, "routing", 10).nodes().size() + 2,
                "all rows arrived despite the dropped item (8 nodes below routing)");
    }

    @Test
    void cyclesAcrossIngestsAreRecorded() {
        service.ingest("t", "ab", zipkinCall("a", "b", "01"));
        service.ingest("t", "ba", zipkinCall("b", "a", "02"));
        LinkTree t = service.tree("t", Dimension.SERVICE, "a", 10);
        assertEquals(2, t.rootCycleDepth(), "a → b → a");
        assertEquals(List.of("b"), t.nodes().stream().map(LinkTree.TreeNode::node).toList());
    }

    @Test
    void compareRealAndMarkedTraffic() {
        service.ingest("teamA", "yelp.json", Corpus.bytes("traces/zipkin/yelp.json"));
        // marked traffic reached fewer services, plus one new one
        service.ingest("teamA#marked", "a", zipkinCall("routing", "yelp-main", "01"));
        service.ingest("teamA#marked", "b", zipkinCall("yelp-main", "shadow-db", "02"));
        LinkComparison c = service.compare("teamA", "teamA#marked", Dimension.SERVICE);
        assertTrue(c.missingEdges().contains(new Edge("mobile_api", "spectre")));
        assertEquals(List.of(new Edge("yelp-main", "shadow-db")), c.extraEdges());
        assertFalse(c.same());
        assertTrue(service.compare("teamA", "teamA", Dimension.SERVICE).same());
        // team ids containing '#' do not collide with node names
        assertEquals(9, service.tree("teamA", Dimension.SERVICE, "routing", 10).nodes().size() + 1);
    }

    @Test
    void compareReportsChangedDepths() {
        service.ingest("base", "1", zipkinChain("e", "x", "y"));
        service.ingest("cand", "1", zipkinChain("e", "y"));
        service.ingest("cand", "2", zipkinChain("e", "x"));
        LinkComparison c = service.compare("base", "cand", Dimension.SERVICE);
        assertEquals(List.of(new LinkComparison.DepthChange("e", "y", 2, 1)), c.changedDepths());
    }

    /** Issue 42 item 8: an entry's stored samples are kept, a later batch's new ones appended, five at most. */
    @Test
    void entrySamplesMergeAcrossIngestsUpToFive() {
        LinkRepository repository = new LinkRepository(ddb, "links");
        String entry = "gateway GET /api/owners/{id}";
        repository.writeEntries("teamA", Dimension.INTERFACE, List.of(entry),
                Map.of(entry, List.of("/api/owners/1", "/api/owners/2")), 1);
        repository.writeEntries("teamA", Dimension.INTERFACE, List.of(entry, "gateway GET /health"),
                Map.of(entry, List.of("/api/owners/2", "/api/owners/3", "/api/owners/4", "/api/owners/5",
                        "/api/owners/6")), 2);
        assertEquals(Map.of(entry, List.of("/api/owners/1", "/api/owners/2", "/api/owners/3", "/api/owners/4",
                "/api/owners/5")), service.entrySamples("teamA", Dimension.INTERFACE));
        repository.writeEntries("teamA", Dimension.INTERFACE, List.of(entry), Map.of(), 3);
        assertEquals(List.of("/api/owners/1", "/api/owners/2", "/api/owners/3", "/api/owners/4", "/api/owners/5"),
                service.entrySamples("teamA", Dimension.INTERFACE).get(entry), "a batch without samples keeps them");
        assertEquals(List.of("gateway GET /api/owners/{id}", "gateway GET /health"),
                service.entries("teamA", Dimension.INTERFACE));
    }

    /** Bug 22: a payload with base64 ids is rejected before anything is written: 0 spans, no service node. */
    @Test
    void bug22Base64IdsWriteNothing() {
        assertThrows(TraceFormatException.class,
                () -> service.ingest("teamA", "22.json", Corpus.bytes("bugs/22-otlp-base64-ids.json")));
        assertTrue(ddb.items.isEmpty(), "no item written");
        assertTrue(service.entries("teamA", Dimension.SERVICE).isEmpty());
        assertTrue(service.tree("teamA", Dimension.SERVICE, "checkout", 5).nodes().isEmpty());

        IngestResult control = service.ingest("teamA", "22-control.json", TraceCorpusTest.bug22Control());
        assertEquals(2, control.spansParsed());
        assertEquals(1, control.serviceEdgesObserved());
        assertEquals(List.of("checkout"), control.serviceEntries());
    }

    /** A span without a service name keeps its edges (under unknown_service) and is reported as a repair. */
    @Test
    void missingServiceNameIsRepairedAndKeepsEdges() {
        String doc = """
                [{"traceId":"463ac35c9f6413ad","id":"0000000000000001","kind":"SERVER","name":"get /a",
                  "localEndpoint":{"serviceName":"a"}},
                 {"traceId":"463ac35c9f6413ad","id":"0000000000000002","parentId":"0000000000000001",
                  "kind":"SERVER","name":"get /x"},
                 {"traceId":"463ac35c9f6413ad","id":"0000000000000003","parentId":"0000000000000002",
                  "kind":"SERVER","name":"get /b","localEndpoint":{"serviceName":"b"}}]""";
        IngestResult r = service.ingest("teamA", "z.json", doc.getBytes(StandardCharsets.UTF_8));
        assertEquals(3, r.spansParsed());
        assertEquals(0, r.spansSkipped());
        assertEquals(Map.of("missing service name", 1), r.spansRepairedByReason());
        assertEquals(2, r.serviceEdgesObserved(), "a → unknown_service → b");
        assertEquals(Set.of("unknown_service", "b"), service.tree("teamA", Dimension.SERVICE, "a", 5).nodes().stream()
                .map(LinkTree.TreeNode::node).collect(Collectors.toSet()));
    }

    /** A Zipkin SERVER root in {@code from} with a CLIENT/SERVER shared span into {@code to}. */
    static byte[] zipkinCall(String from, String to, String trace) {
        return zipkinChain(from, to);
    }

    /** A chain of SERVER spans, each the child of the previous (one trace). */
    static byte[] zipkinChain(String... services) {
        StringBuilder b = new StringBuilder("[");
        String trace = Integer.toHexString(String.join(",", services).hashCode());
        for (int i = 0; i < services.length; i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append("{\"traceId\":\"").append(trace).append("\",\"id\":\"").append(i + 1).append('"');
            if (i > 0) {
                b.append(",\"parentId\":\"").append(i).append('"');
            }
            b.append(",\"kind\":\"SERVER\",\"name\":\"get /").append(services[i])
                    .append("\",\"localEndpoint\":{\"serviceName\":\"").append(services[i]).append("\"}}");
        }
        return b.append(']').toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The demo shop's marked order (see MiddlewareInventoryTest for the hand count), ingested twice: counts add up. */
    @Test
    void ingestRecordsEachServicesMiddlewareAndSumsItsCalls() throws Exception {
        byte[] order = resourceBytes("trace/shop-spring-one-order.otlp.json");
        service.ingest("teamA", "order.json", order);
        service.ingest("teamA", "order.json", order);
        Map<String, List<dev.richter.links.middleware.MiddlewareUse>> stored = service.middleware("teamA");
        assertEquals(Set.of("gateway", "order", "inventory"), stored.keySet());
        dev.richter.links.middleware.MiddlewareUse client = stored.get("gateway").stream()
                .filter(u -> u.library().equals("reactor-netty HttpClient")).findFirst().orElseThrow();
        assertEquals(List.of(2L, 2L, 0L, true, "io.opentelemetry.reactor-netty-1.0", "2.22.0-alpha", "1.0+ (guarded: 1.x)",
                        "http-client"),
                List.of(client.calls(), client.markedCalls(), client.markedCallsIsolated(), client.guarded(),
                        client.scopeName(), client.scopeVersion(), client.versions(), client.role()));
        assertEquals(List.of("JDBC h2 6", "Jedis redis 6", "Tomcat (jakarta Servlet)  2"), stored.get("inventory").stream()
                .map(u -> u.library() + " " + u.system() + " " + u.calls()).sorted().toList());
        assertEquals(Map.of(), service.middleware("teamB"), "team-scoped");
    }

    @Test
    void ingestRecordsTheDatastoresEachServiceTouchesOnceAndKeepsThemCurrent() throws Exception {
        IngestResult first = service.ingest("teamA", ShadowSpans.SHOP, resourceBytes(ShadowSpans.SHOP));
        assertEquals(9, first.datastoresSeen());
        assertEquals(0, first.datastoresDropped());
        service.ingest("teamA", ShadowSpans.INVENTORY, resourceBytes(ShadowSpans.INVENTORY));
        IngestResult again = service.ingest("teamA", ShadowSpans.SHOP, resourceBytes(ShadowSpans.SHOP));
        assertEquals(first.itemsWritten(), again.itemsWritten() + 9, "closure rows are rewritten, datastores only when changed");

        Map<String, List<DiscoveredDatastore>> stored = service.datastores("teamA");
        assertEquals(Set.of("shop", "inventory"), stored.keySet());
        assertEquals(List.of("cache config:", "cache session:", "cache stock:", "table audit", "table customers",
                "table entries", "table visits", "topic orders", "topic payments"),
                stored.get("shop").stream().map(d -> d.kind() + " " + d.name()).sorted().toList());
        DiscoveredDatastore visits = stored.get("inventory").stream().filter(d -> d.name().equals("visits")).findFirst()
                .orElseThrow();
        assertEquals(new DiscoveredDatastore("inventory", "table", "visits", "h2database", "mem:shop", true,
                visits.lastSeenMs()), visits);
        assertTrue(visits.lastSeenMs() > Instant.parse("2026-01-01T00:00:00Z").toEpochMilli(), "the span's own time");
        assertEquals(Map.of(), service.datastores("teamB"), "team-scoped");
    }

    @Test
    void aServiceKeepsAtMostTheCapOfDatastoresAndCountsTheRestDropped() {
        StringBuilder spans = new StringBuilder("[");
        for (int i = 0; i < LinkService.MAX_DATASTORES_PER_SERVICE + 5; i++) {
            spans.append(i == 0 ? "" : ",").append("""
                    {"traceId":"%032x","id":"%016x","name":"set","kind":"CLIENT","timestamp":1700000000000000,
                     "duration":10,"localEndpoint":{"serviceName":"cart"},
                     "tags":{"db.system":"redis","db.statement":"SET space%d:k ?"}}""".formatted(i + 1, i + 1, i));
        }
        IngestResult r = service.ingest("t", "many.json", spans.append(']').toString().getBytes(StandardCharsets.UTF_8));
        assertEquals(LinkService.MAX_DATASTORES_PER_SERVICE + 5, r.datastoresSeen());
        assertEquals(5, r.datastoresDropped());
        assertEquals(LinkService.MAX_DATASTORES_PER_SERVICE, service.datastores("t").get("cart").size());
    }

    private static byte[] resourceBytes(String name) throws java.io.IOException {
        try (var in = LinkServiceTest.class.getResourceAsStream("/" + name)) {
            return in.readAllBytes();
        }
    }
}
