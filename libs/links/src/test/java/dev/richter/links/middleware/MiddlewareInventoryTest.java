package dev.richter.links.middleware;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.Marker;
import dev.richter.links.middleware.MiddlewareUse.Standing;
import dev.richter.links.trace.InstrumentationScope;
import dev.richter.links.trace.ParsedTraces;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.TraceDocuments;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The middleware each service really uses, read from real recordings. {@code shop-spring-one-order.otlp.json} is one
 * marked order through the demo shop (Spring Boot 3, OpenTelemetry Java agent 2.22.0): counted by hand, the gateway
 * recorded 1 netty-4.1 SERVER span and 1 reactor-netty-1.0 CLIENT span (to order), order 1 tomcat-10.0 SERVER and 2
 * apache-httpclient-5.0 CLIENT spans (inventory, payment), inventory 1 tomcat-10.0 SERVER, 3 jdbc spans ({@code
 * db.system=h2}) and 3 jedis-4.0 spans ({@code db.system=redis}); every span carries {@code richter-loadtest=1}.
 * The recording predates the extension's proof, so no span carries {@code richter.isolation.active}.
 */
class MiddlewareInventoryTest {
    private static final Path CORPUS = Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"));

    private static List<Span> shop() throws IOException {
        try (InputStream in = MiddlewareInventoryTest.class.getResourceAsStream("/trace/shop-spring-one-order.otlp.json")) {
            return TraceDocuments.parse("shop", in.readAllBytes()).spans();
        }
    }

    private static Map<String, MiddlewareUse> byServiceAndLibrary(List<MiddlewareUse> uses) {
        Map<String, MiddlewareUse> out = new TreeMap<>();
        uses.forEach(u -> out.put(u.service() + " / " + u.library(), u));
        return out;
    }

    /** Spans with the extension's proof stamped on the SERVER spans of {@code proving}. */
    private static List<Span> withProof(List<Span> spans, Set<String> proving) {
        return spans.stream().map(s -> {
            if (s.kind() != dev.richter.links.trace.SpanKind.SERVER || !proving.contains(s.service())) {
                return s;
            }
            Map<String, String> a = new HashMap<>(s.attributes());
            a.put(MiddlewareInventory.ISOLATION_ACTIVE, "true");
            return new Span(s.traceId(), s.spanId(), s.parentSpanId(), s.links(), s.service(), s.operation(), s.kind(),
                    s.peerService(), a, s.startEpochNanos(), s.durationNanos(), s.scope());
        }).toList();
    }

    @Test
    void theShopsClientsStoresAndServersFromItsSpans() throws IOException {
        Map<String, MiddlewareUse> uses = byServiceAndLibrary(MiddlewareInventory.of(shop(), Marker.DEFAULT, s -> true));
        assertEquals(Set.of("gateway / reactor-netty / Netty 4.1 server", "gateway / reactor-netty HttpClient",
                "order / Tomcat (jakarta Servlet)", "order / Apache HttpClient 5",
                "inventory / Tomcat (jakarta Servlet)", "inventory / JDBC", "inventory / Jedis"), uses.keySet());
        MiddlewareUse client = uses.get("gateway / reactor-netty HttpClient");
        assertEquals(new MiddlewareUse("gateway", "reactor-netty HttpClient", "1.0+ (guarded: 1.x)", "http-client",
                "io.opentelemetry.reactor-netty-1.0", "2.22.0-alpha", "", true, 1, 1, 0, client.lastSeenMs()), client);
        assertEquals(Standing.GUARDED, client.verdict(), "the extension's reactor-netty client module");
        MiddlewareUse jdbc = uses.get("inventory / JDBC");
        assertEquals(List.of("h2", 3L, 3L, true, Standing.GUARDED),
                List.of(jdbc.system(), jdbc.calls(), jdbc.markedCalls(), jdbc.guarded(), jdbc.verdict()));
        MiddlewareUse jedis = uses.get("inventory / Jedis");
        assertEquals(List.of("redis", 3L, "io.opentelemetry.jedis-4.0", Standing.GUARDED),
                List.of(jedis.system(), jedis.calls(), jedis.scopeName(), jedis.verdict()));
        assertEquals(2L, uses.get("order / Apache HttpClient 5").markedCalls());
    }

    /** An unguarded client passes only when every marked call reached an in-scope service that proved isolation. */
    @Test
    void anUnguardedClientIsVouchedForOnlyByAnInScopeCalleeWithProof() throws IOException {
        List<Span> proven = MiddlewareFixtures.withUnguardedClient(withProof(shop(), Set.of("order", "inventory")));
        MiddlewareUse inScope = byServiceAndLibrary(MiddlewareInventory.of(proven, Marker.DEFAULT,
                Set.of("gateway", "order", "inventory")::contains)).get("gateway / Netty 4.1 client");
        assertEquals(1L, inScope.markedCallsIsolated());
        assertEquals(Standing.CALLEE_ISOLATED, inScope.verdict());
        MiddlewareUse outOfScope = byServiceAndLibrary(MiddlewareInventory.of(proven, Marker.DEFAULT,
                Set.of("gateway", "inventory")::contains)).get("gateway / Netty 4.1 client");
        assertEquals(Standing.UNGUARDED_ON_MARKED_TRAFFIC, outOfScope.verdict(), "order is not in scope");
        MiddlewareUse noProof = byServiceAndLibrary(MiddlewareInventory.of(MiddlewareFixtures.withUnguardedClient(withProof(shop(),
                Set.of("inventory"))), Marker.DEFAULT, s -> true)).get("gateway / Netty 4.1 client");
        assertEquals(Standing.UNGUARDED_ON_MARKED_TRAFFIC, noProof.verdict(), "order carries no proof");
    }

    /** Unmarked traffic: the same spans (an unguarded client's) without the marker are listed, never judged. */
    @Test
    void unmarkedTrafficIsListedNotJudged() throws IOException {
        List<Span> unmarked = MiddlewareFixtures.withUnguardedClient(shop()).stream().map(s -> {
            Map<String, String> a = new HashMap<>(s.attributes());
            a.remove(Marker.DEFAULT.key());
            return new Span(s.traceId(), s.spanId(), s.parentSpanId(), s.links(), s.service(), s.operation(), s.kind(),
                    s.peerService(), a, s.startEpochNanos(), s.durationNanos(), s.scope());
        }).toList();
        MiddlewareUse client = byServiceAndLibrary(MiddlewareInventory.of(unmarked, Marker.DEFAULT, s -> true))
                .get("gateway / Netty 4.1 client");
        assertEquals(0L, client.markedCalls());
        assertEquals(Standing.NOT_ON_MARKED_TRAFFIC, client.verdict());
    }

    /**
     * Without scopes, attributes decide and nothing is guarded. Zipkin corpus {@code messaging-kafka.json} (Brave):
     * servicea has 9 PRODUCER {@code send} and 4 CONSUMER {@code poll} spans, serviceb 3 {@code poll}, all with {@code
     * kafka.topic}; {@code simple-db-p6.json}: 4 CLIENT spans with {@code sql.query} (p6spy). X-Ray {@code
     * ddbSample.json}: 2 {@code aws} subsegments (DescribeTable, PutItem) of service DDB.
     */
    @Test
    void tracesWithoutScopesAreClassifiedByAttributesAndNeverGuarded() throws IOException {
        Map<String, MiddlewareUse> kafka = byServiceAndLibrary(MiddlewareInventory.of(corpus("traces/zipkin/messaging-kafka.json"),
                Marker.DEFAULT, s -> true));
        assertEquals(Set.of("servicea / kafka producer client (instrumentation not named)",
                "servicea / kafka consumer client (instrumentation not named)",
                "serviceb / kafka consumer client (instrumentation not named)"), kafka.keySet());
        assertEquals(9L, kafka.get("servicea / kafka producer client (instrumentation not named)").calls());
        assertEquals(4L, kafka.get("servicea / kafka consumer client (instrumentation not named)").calls());
        assertTrue(kafka.values().stream().noneMatch(MiddlewareUse::guarded));
        Map<String, MiddlewareUse> db = byServiceAndLibrary(MiddlewareInventory.of(corpus("traces/zipkin/simple-db-p6.json"),
                Marker.DEFAULT, s -> true));
        MiddlewareUse p6 = db.get("bootifulmeters / database client (instrumentation not named)");
        assertEquals(List.of(4L, "store", false), List.of(p6.calls(), p6.role(), p6.guarded()));
        Map<String, MiddlewareUse> xray = byServiceAndLibrary(MiddlewareInventory.of(corpus("traces/xray/ddbSample.json"),
                Marker.DEFAULT, s -> true));
        MiddlewareUse aws = xray.get("DDB / AWS SDK (X-Ray for Go)");
        assertEquals(List.of(2L, "store", false, "X-Ray for Go", "1.1.0"),
                List.of(aws.calls(), aws.role(), aws.guarded(), aws.scopeName(), aws.scopeVersion()));
    }

    private static List<Span> corpus(String relative) throws IOException {
        ParsedTraces t = TraceDocuments.parse(relative, Files.readAllBytes(CORPUS.resolve(relative)));
        return t.spans();
    }

    /** The rows name the scopes opentelemetry-java-instrumentation v2.22.0 records, and each client once per kind. */
    @Test
    void tableRowsAreTheAgentsScopeNames() {
        Map<String, Boolean> guarded = GuardedMiddleware.ROWS.stream().filter(r -> r.kinds().isEmpty()
                || r.kinds().contains(dev.richter.links.trace.SpanKind.CLIENT)
                || r.kinds().contains(dev.richter.links.trace.SpanKind.PRODUCER))
                .collect(Collectors.toMap(GuardedMiddleware.ScopeRow::scopeName, GuardedMiddleware.ScopeRow::guarded, (a, b) -> a));
        Map<String, Boolean> expected = new TreeMap<>(Map.ofEntries(
                Map.entry("io.opentelemetry.java-http-client", true), Map.entry("io.opentelemetry.http-url-connection", true),
                Map.entry("io.opentelemetry.apache-httpclient-5.0", true), Map.entry("io.opentelemetry.okhttp-3.0", true),
                Map.entry("io.opentelemetry.jdbc", true), Map.entry("io.opentelemetry.jedis-4.0", true),
                Map.entry("io.opentelemetry.kafka-clients-0.11", true),
                Map.entry("io.opentelemetry.apache-httpclient-4.0", true), Map.entry("io.opentelemetry.apache-httpclient-4.3", true),
                Map.entry("io.opentelemetry.netty-4.1", false),
                Map.entry("io.opentelemetry.reactor-netty-1.0", true), Map.entry("io.opentelemetry.lettuce-5.1", true),
                Map.entry("io.opentelemetry.lettuce-5.0", false),
                Map.entry("io.opentelemetry.aws-sdk-2.2", true), Map.entry("io.opentelemetry.aws-sdk-1.11", false),
                Map.entry("io.opentelemetry.grpc-1.6", true)));
        expected.forEach((scope, g) -> assertEquals(g, guarded.get(scope), scope));
        Span consumer = new Span("t", "s", "", List.of(), "svc", "poll", dev.richter.links.trace.SpanKind.CONSUMER, "",
                Map.of("messaging.system", "kafka"), 0, 0, new InstrumentationScope("io.opentelemetry.kafka-clients-0.11", "2.22.0-alpha"));
        GuardedMiddleware.Library lib = GuardedMiddleware.classify(consumer).orElseThrow();
        assertEquals(List.of("Kafka consumer", true, MiddlewareRole.STORE), List.of(lib.library(), lib.guarded(), lib.role()),
                "the extension's shadow consumers");
    }
}
