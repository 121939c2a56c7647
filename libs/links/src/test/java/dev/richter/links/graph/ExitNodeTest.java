package dev.richter.links.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.links.datastore.DatastoreDiscovery;
import dev.richter.links.datastore.ShadowSpans;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.TraceDocuments;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Database exits are named by system, host, database and table, on the agent's real JDBC spans: the demo shop's
 * order ({@code trace/shop-spring-one-order.otlp.json}, agent 2.x old db semconv, H2 over TCP) and the two
 * {@link ShadowSpans} documents (one per db semconv, the same H2 database). Boot-time variants are those spans with
 * the attributes the agent writes for Spring Boot's in-memory database ({@code db.name} {@code mem:<uuid>}, no
 * {@code server.*}) and for a {@code schema.sql} statement.
 */
class ExitNodeTest {
    private static List<Span> order() throws IOException {
        try (InputStream in = ExitNodeTest.class.getResourceAsStream("/trace/shop-spring-one-order.otlp.json")) {
            return TraceDocuments.parse("order", in.readAllBytes()).spans();
        }
    }

    private static Set<String> peers(List<Span> spans, Dimension d) {
        return EdgeExtractor.extract(spans, List.of()).edges(d).keySet().stream().map(Edge::to)
                .filter(n -> n.startsWith("h2") || n.startsWith("127.0.0.1"))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** A copy of {@code s} with {@code changes} applied to its attributes ({@code null} removes one). */
    private static Span with(Span s, String spanId, Map<String, String> changes) {
        Map<String, String> a = new HashMap<>(s.attributes());
        changes.forEach((k, v) -> {
            if (v == null) {
                a.remove(k);
            } else {
                a.put(k, v);
            }
        });
        return new Span(s.traceId(), spanId, s.parentSpanId(), s.links(), s.service(), s.operation(), s.kind(),
                dev.richter.links.trace.PeerService.of(a), Map.copyOf(a), s.startEpochNanos(), s.durationNanos());
    }

    @Test
    void aDatabaseExitIsNamedBySystemHostDatabaseAndTableNotByTheHostAlone() throws IOException {
        List<Span> spans = order();
        assertEquals(Set.of("127.0.0.1", "h2://127.0.0.1:18092/shop"), peers(spans, Dimension.SERVICE),
                "127.0.0.1 is the payment service's HTTP exit; the database on that host is another");
        assertEquals(Set.of("127.0.0.1 POST", "h2://127.0.0.1:18092/shop INSERT reservations", "h2://127.0.0.1:18092/shop SELECT stock",
                "h2://127.0.0.1:18092/shop UPDATE stock"), peers(spans, Dimension.INTERFACE));
    }

    @Test
    void bothDbSemanticConventionsNameTheSameDatabaseTheSame() {
        Set<String> shop = ShadowSpans.parse(ShadowSpans.SHOP).spans().stream().map(Span::peerService)
                .filter(p -> p.startsWith("h2")).collect(Collectors.toCollection(TreeSet::new));
        Set<String> inventory = ShadowSpans.parse(ShadowSpans.INVENTORY).spans().stream().map(Span::peerService)
                .filter(p -> p.startsWith("h2")).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(Set.of("h2://127.0.0.1:40475/mem:ledger", "h2://127.0.0.1:40475/mem:shop"), shop);
        assertEquals(Set.of("h2://127.0.0.1:40475/mem:billing", "h2://127.0.0.1:40475/mem:shop"), inventory,
                "db.system.name h2database is db.system h2");
    }

    @Test
    void anInMemoryDatabaseWithAPerJvmRandomNameKeepsOneNameAcrossRestarts() throws IOException {
        Span select = order().stream().filter(s -> s.operation().equals("SELECT shop.stock")).findFirst().orElseThrow();
        Map<String, String> embedded = new HashMap<>();
        embedded.put("server.address", null);
        embedded.put("server.port", null);
        embedded.put("db.connection_string", "h2:mem:");
        embedded.put("db.name", "mem:8f4b6a1e-3c2d-4e5f-9a8b-7c6d5e4f3a2b");
        Span firstJvm = with(select, "00000000000000a1", embedded);
        embedded.put("db.name", "mem:0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6");
        Span secondJvm = with(select, "00000000000000a2", embedded);
        assertEquals("h2:///mem:* SELECT stock", ExitNode.of(firstJvm));
        assertEquals(ExitNode.of(firstJvm), ExitNode.of(secondJvm));
        assertEquals(firstJvm.peerService(), secondJvm.peerService());
    }

    @Test
    void schemaStatementsAtBootAreNoExitsAndDiscoverNoDatastore() throws IOException {
        List<Span> spans = new java.util.ArrayList<>(order());
        Span insert = spans.stream().filter(s -> s.operation().startsWith("INSERT")).findFirst().orElseThrow();
        spans.add(with(insert, "00000000000000b1", Map.of("db.operation", "CREATE TABLE", "db.sql.table", "audit",
                "db.statement", "CREATE TABLE audit (id BIGINT PRIMARY KEY, what VARCHAR(?))")));
        Map<String, String> noOperation = new HashMap<>();
        noOperation.put("db.operation", null);
        noOperation.put("db.sql.table", null);
        noOperation.put("db.statement", "ALTER TABLE stock ADD COLUMN note VARCHAR(?)");
        spans.add(with(insert, "00000000000000b2", noOperation));
        spans.add(with(insert, "00000000000000b3", Map.of("db.operation", "TRUNCATE", "db.sql.table", "ledger",
                "db.statement", "TRUNCATE TABLE ledger")));
        assertEquals(Set.of("127.0.0.1 POST", "h2://127.0.0.1:18092/shop INSERT reservations",
                "h2://127.0.0.1:18092/shop SELECT stock", "h2://127.0.0.1:18092/shop UPDATE stock"),
                peers(spans, Dimension.INTERFACE));
        assertEquals(3, EdgeExtractor.extract(spans, List.of()).serviceEdges().entrySet().stream()
                .filter(e -> e.getKey().to().startsWith("h2")).mapToLong(e -> e.getValue().calls()).sum(),
                "the SELECT, UPDATE and INSERT of the order; the three schema statements count no call");
        Set<String> tables = DatastoreDiscovery.discover(spans).stream().map(d -> d.name())
                .collect(Collectors.toCollection(TreeSet::new));
        assertTrue(tables.containsAll(Set.of("stock", "reservations")), tables.toString());
        assertTrue(tables.stream().noneMatch(t -> t.equals("audit") || t.equals("ledger")), tables.toString());
    }
}
