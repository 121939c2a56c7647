package dev.richter.checks.safety;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.common.model.Marker;
import dev.richter.links.middleware.MiddlewareUse;
import dev.richter.links.trace.InstrumentationScope;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.SpanKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link GuardedMiddlewareCheck} on the demo shop's capture with the agent extension ({@code
 * shop-spring-extension-mocked-payment.otlp.json}: two marked {@code POST /orders}). Counted by hand: the gateway
 * (Spring Cloud Gateway) sends each to order through 1 reactor-netty-1.0 CLIENT span (2 in all), whose child is
 * order's tomcat-10.0 SERVER span; order makes 2 apache-httpclient-5.0 calls per order (4), inventory 3 jdbc and 3
 * jedis-4.0 calls per order (6 each).
 */
class GuardedMiddlewareCheckTest {
    private static final String CAPTURE = "shop-spring-extension-mocked-payment.otlp.json";

    private static Map<String, CheckResult> bySubject(List<CheckResult> results) {
        Map<String, CheckResult> out = new java.util.TreeMap<>();
        results.forEach(r -> out.put(r.subject(), r));
        return out;
    }

    /** The demo passes: the gateway's reactor-netty client is guarded by the extension's reactor-netty client module. */
    @Test
    void theShopsGatewayClientIsGuarded() {
        List<Span> spans = IsolationEnforcedCheckTest.proven(CAPTURE, IsolationEnforcedCheckTest.SCOPE);
        CheckResult gateway = bySubject(GuardedMiddlewareCheck.check(spans, IsolationEnforcedCheckTest.SCOPE,
                Marker.DEFAULT)).get("gateway");
        assertEquals(Outcome.PASS, gateway.outcome(), gateway.evidence());
        assertEquals("guarded: reactor-netty / Netty 4.1 server 4.1.x (io.opentelemetry.netty-4.1 2.22.0-alpha), 2 marked"
                + " calls, reactor-netty HttpClient 1.0+ (guarded: 1.x) (io.opentelemetry.reactor-netty-1.0 2.22.0-alpha), 2"
                + " marked calls", gateway.evidence(), "in the order the capture first shows them");
    }

    /**
     * The capture with the gateway's client as an unguarded one (a bare Netty 4.1 client,
     * {@link dev.richter.links.middleware.MiddlewareFixtures#withUnguardedClient}) passes: order, which proves its
     * isolation, vouches for each of its marked calls.
     */
    @Test
    void anUnguardedClientPassesWhenEveryMarkedCallReachedAnIsolatingService() {
        List<Span> spans = unguarded(IsolationEnforcedCheckTest.proven(CAPTURE, IsolationEnforcedCheckTest.SCOPE));
        Map<String, CheckResult> r = bySubject(GuardedMiddlewareCheck.check(spans, IsolationEnforcedCheckTest.SCOPE,
                Marker.DEFAULT));
        assertEquals(Set.of("gateway", "order", "inventory"), r.keySet());
        r.values().forEach(c -> assertEquals(Outcome.PASS, c.outcome(), c.evidence()));
        assertEquals("not guarded, vouched for by its callees: Netty 4.1 client 4.1.x"
                + " (io.opentelemetry.netty-4.1 2.22.0-alpha), 2 marked calls (" + GuardedMiddlewareCheck.VOUCHED
                + "); guarded: reactor-netty / Netty 4.1 server 4.1.x (io.opentelemetry.netty-4.1 2.22.0-alpha), 2 marked calls",
                r.get("gateway").evidence());
        assertEquals("guarded: JDBC any driver (io.opentelemetry.jdbc 2.22.0-alpha), 6 marked calls, Jedis 4.0+"
                + " (guarded: 7) (io.opentelemetry.jedis-4.0 2.22.0-alpha), 6 marked calls, Tomcat (jakarta Servlet) 10.0+"
                + " (io.opentelemetry.tomcat-10.0 2.22.0-alpha), 2 marked calls", r.get("inventory").evidence(),
                "in the order the capture first shows them");
    }

    /** Without order's proof (or with order out of scope) an unguarded client FAILs, named with its version. */
    @Test
    void anUnguardedClientWhoseCalleeProvesNothingFailsNamingLibraryVersionAndService() {
        List<Span> spans = unguarded(IsolationEnforcedCheckTest.proven(CAPTURE, Set.of("gateway", "inventory")));
        CheckResult gateway = bySubject(GuardedMiddlewareCheck.check(spans, IsolationEnforcedCheckTest.SCOPE,
                Marker.DEFAULT)).get("gateway");
        assertEquals(Outcome.FAIL, gateway.outcome());
        assertEquals("not guarded by Richter's agent extension, on marked traffic: Netty 4.1 client 4.1.x"
                + " (io.opentelemetry.netty-4.1 2.22.0-alpha), 2 marked calls; guarded: reactor-netty / Netty 4.1"
                + " server 4.1.x (io.opentelemetry.netty-4.1 2.22.0-alpha), 2 marked calls", gateway.evidence());
        List<Span> proven = unguarded(IsolationEnforcedCheckTest.proven(CAPTURE, IsolationEnforcedCheckTest.SCOPE));
        assertEquals(Outcome.FAIL, bySubject(GuardedMiddlewareCheck.check(proven, Set.of("gateway", "inventory"),
                Marker.DEFAULT)).get("gateway").outcome(), "order proves its isolation, but is not in scope");
    }

    /** An unguarded store always FAILs on marked traffic: inventory's Redis calls as if Redisson had made them. */
    @Test
    void anUnguardedStoreOnMarkedTrafficAlwaysFails() {
        List<Span> spans = new ArrayList<>();
        for (Span s : IsolationEnforcedCheckTest.proven(CAPTURE, IsolationEnforcedCheckTest.SCOPE)) {
            spans.add(s.scope().name().equals("io.opentelemetry.jedis-4.0")
                    ? new Span(s.traceId(), s.spanId(), s.parentSpanId(), s.links(), s.service(), s.operation(), s.kind(),
                            s.peerService(), s.attributes(), s.startEpochNanos(), s.durationNanos(),
                            new InstrumentationScope("io.opentelemetry.redisson-3.17", "2.22.0-alpha"))
                    : s);
        }
        CheckResult inventory = bySubject(GuardedMiddlewareCheck.check(spans, IsolationEnforcedCheckTest.SCOPE,
                Marker.DEFAULT)).get("inventory");
        assertEquals(Outcome.FAIL, inventory.outcome());
        assertEquals(true, inventory.evidence().startsWith("not guarded by Richter's agent extension, on marked traffic:"
                + " Redisson 3.17+ (io.opentelemetry.redisson-3.17 2.22.0-alpha), 6 marked calls; guarded: "), inventory.evidence());
    }

    /** Unmarked traffic through an unguarded client is listed, never failed; a gRPC server on marked traffic WARNs. */
    @Test
    void unmarkedUnguardedPassesAndAnUngatedServerWarns() {
        Span unmarkedRedisson = new Span("t1", "a1", "", List.of(), "cart", "GET", SpanKind.CLIENT, "redis",
                Map.of("db.system", "redis"), 0, 0, new InstrumentationScope("io.opentelemetry.redisson-3.17", "2.22.0-alpha"));
        Span markedGrpc = new Span("t2", "b1", "", List.of(), "cart", "shop.Cart/Get", SpanKind.SERVER, "",
                Map.of("richter-loadtest", "1"), 0, 0, new InstrumentationScope("io.opentelemetry.grpc-1.6", "2.22.0-alpha"));
        CheckResult cart = GuardedMiddlewareCheck.check(List.of(unmarkedRedisson, markedGrpc), Set.of("cart"),
                Marker.DEFAULT).get(0);
        assertEquals(Outcome.WARN, cart.outcome());
        assertEquals("server not gated (no 503 before the isolation document loads): gRPC server 1.6+"
                + " (io.opentelemetry.grpc-1.6 2.22.0-alpha), 1 marked calls; not guarded, not on marked traffic:"
                + " Redisson 3.17+ (io.opentelemetry.redisson-3.17 2.22.0-alpha)", cart.evidence());
    }

    /** The static gate reads earlier ingests' records and WARNs where the dynamic check FAILs. */
    @Test
    void recordedUnguardedUseWarnsInTheStaticGate() {
        MiddlewareUse redisson = new MiddlewareUse("cart", "Redisson", "3.17+", "store", "io.opentelemetry.redisson-3.17",
                "2.22.0-alpha", "redis", false, 10, 3, 0, 1L);
        MiddlewareUse outOfScope = new MiddlewareUse("billing", "Redisson", "3.17+", "store", "io.opentelemetry.redisson-3.17",
                "2.22.0-alpha", "redis", false, 10, 3, 0, 1L);
        List<CheckResult> r = GuardedMiddlewareCheck.checkRecorded(Map.of("cart", List.of(redisson),
                "billing", List.of(outOfScope)), Set.of("cart"));
        assertEquals(1, r.size());
        assertEquals(new CheckResult(GuardedMiddlewareCheck.NAME, Outcome.WARN, "cart", "not guarded by Richter's agent"
                + " extension, on marked traffic in earlier ingested traces (the pre-test's check decides): Redisson 3.17+"
                + " (io.opentelemetry.redisson-3.17 2.22.0-alpha), 3 marked calls"), r.get(0));
        assertEquals(List.of(new CheckResult(GuardedMiddlewareCheck.NAME, Outcome.PASS, "recorded traces",
                "no client, store or server of a scope service seen in the recorded spans")),
                GuardedMiddlewareCheck.checkRecorded(Map.of(), Set.of("cart")));
    }

    private static List<Span> unguarded(List<Span> spans) {
        return dev.richter.links.middleware.MiddlewareFixtures.withUnguardedClient(spans);
    }
}
