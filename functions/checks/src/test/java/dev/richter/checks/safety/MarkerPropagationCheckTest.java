package dev.richter.checks.safety;

import static dev.richter.checks.safety.SafetyFixtures.span;
import static dev.richter.checks.safety.SafetyFixtures.with;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.common.model.Marker;
import dev.richter.links.trace.ParsedTraces;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.SpanKind;
import dev.richter.links.trace.SpanRef;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MarkerPropagationCheckTest {
    static final Set<String> SHOP_SCOPE = Set.of("order", "inventory");
    static final Marker M = Marker.DEFAULT;

    @Test
    void corpusBug02ReportsFirstUnmarkedSpanAndDownstreamEdgeAsAsyncHop() {
        ParsedTraces t = SafetyFixtures.corpus("bugs/02-baggage-lost-async-executor.zipkin.json");
        // the micrometer app's marker is the baggage field lt.mark, recorded as tag baggage.lt.mark
        Marker ltMark = new Marker("baggage", "lt.mark", "1");
        Set<String> scope = Set.of("order-svc", "stock-svc");

        List<MarkerLoss> losses = MarkerPropagationCheck.losses(t.spans(), scope, ltMark);
        assertEquals(1, losses.size(), losses.toString());
        MarkerLoss l = losses.get(0);
        assertEquals("async-enrich", l.operation());
        assertEquals("order-svc", l.service());
        assertEquals("taskExecutor-1", l.thread());
        assertEquals("order-svc->stock-svc", l.edge());
        assertEquals(MarkerLoss.Hop.ASYNC, l.hop());
        assertEquals("order-svc 'post /orders'", l.lastMarked());

        List<CheckResult> r = MarkerPropagationCheck.check(t.spans(), scope, ltMark);
        assertEquals(1, r.size());
        assertEquals(Outcome.FAIL, r.get(0).outcome());
        String ev = r.get(0).evidence();
        assertTrue(ev.startsWith("marker lost at async hop"), ev);
        assertTrue(ev.contains("order-svc 'async-enrich'") && ev.contains("thread taskExecutor-1")
                && ev.contains("edge order-svc->stock-svc"), ev);
    }

    @Test
    void corpusBug03ConsumerLinkedToProducerIsNotANewEntry() {
        ParsedTraces t = SafetyFixtures.corpus("bugs/03-kafka-link-not-parent.otlp.json");
        Set<String> scope = Set.of("order-svc", "billing-svc");
        // as published: nothing is marked; the linked consumer must not count as a (marked or unmarked) entry
        List<CheckResult> raw = MarkerPropagationCheck.check(t.spans(), scope, M);
        assertEquals(Outcome.WARN, CheckResult.worst(raw), raw.toString());

        // the producer's trace marked, the consumer kept the marker through the record headers: PASS, link followed
        List<Span> both = t.spans().stream().map(s -> with(s, "richter-loadtest", "1")).toList();
        List<CheckResult> pass = MarkerPropagationCheck.check(both, scope, M);
        assertEquals(List.of(Outcome.PASS), pass.stream().map(CheckResult::outcome).toList(), pass.toString());
        assertTrue(pass.get(0).evidence().contains("1 marked traces") && pass.get(0).evidence().contains("1 span links followed"),
                pass.get(0).evidence());

        // the consumer lost it: FAIL at the messaging hop, edge order-svc->billing-svc (through the link)
        List<Span> producerOnly = t.spans().stream()
                .map(s -> s.service().equals("order-svc") ? with(s, "richter-loadtest", "1") : s).toList();
        List<MarkerLoss> losses = MarkerPropagationCheck.losses(producerOnly, scope, M);
        assertEquals(1, losses.size(), losses.toString());
        assertEquals(MarkerLoss.Hop.MESSAGING, losses.get(0).hop());
        assertEquals("billing-svc", losses.get(0).service());
        assertEquals("orders process", losses.get(0).operation());
        assertEquals("order-svc->billing-svc", losses.get(0).edge());
    }

    @Test
    void realShopCaptureHealthyPasses() {
        ParsedTraces t = SafetyFixtures.traces("shop-healthy.otlp.json");
        List<CheckResult> r = MarkerPropagationCheck.check(t.spans(), SHOP_SCOPE, M);
        assertEquals(List.of(Outcome.PASS), r.stream().map(CheckResult::outcome).toList(), r.toString());
        assertTrue(r.get(0).evidence().startsWith("1 marked traces from 1 entries [order POST /orders]"), r.get(0).evidence());
    }

    @Test
    void realShopCaptureWithBrokenAsyncMarkerFailsOnInventoryToPayment() {
        ParsedTraces t = SafetyFixtures.traces("shop-broken-async-marker.otlp.json");
        List<MarkerLoss> losses = MarkerPropagationCheck.losses(t.spans(), SHOP_SCOPE, M);
        assertEquals(1, losses.size(), losses.toString()); // the unmarked request's orphan is not blamed on marked traffic
        MarkerLoss l = losses.get(0);
        assertEquals(MarkerLoss.Hop.NEW_TRACE, l.hop());
        assertEquals("inventory", l.service());
        assertEquals("inventory->payment", l.edge());
        assertEquals("inventory 'POST /reserve'", l.lastMarked());
        assertEquals("order POST /orders", l.entry());
        List<CheckResult> r = MarkerPropagationCheck.check(t.spans(), SHOP_SCOPE, M);
        assertEquals(Outcome.FAIL, CheckResult.worst(r));
        assertTrue(r.get(0).evidence().contains("edge inventory->payment runs without the marker"), r.get(0).evidence());
    }

    @Test
    void orphanWorkIsBlamedOnlyOnTheMarkedRequestInProgressAndNeverForRichtersOwnThreads() {
        Map<String, String> mk = Map.of("richter-loadtest", "1", "thread.name", "http-1");
        List<Span> spans = List.of(
                span("m", "1", "", "inventory", "POST /reserve", SpanKind.SERVER, "", mk, 100, 50),
                span("u", "2", "", "inventory", "POST /reserve", SpanKind.SERVER, "", Map.of(), 200, 50),
                // started during the unmarked request: not marked traffic's loss
                span("o1", "3", "", "inventory", "POST", SpanKind.CLIENT, "payment", Map.of("thread.name", "pool-1"), 210, 5),
                // the SDK's config refresh during the marked request: Richter's own work
                span("o2", "4", "", "inventory", "GET", SpanKind.CLIENT, "127.0.0.1",
                        Map.of("thread.name", "richter-exit-mocks-refresh"), 110, 5),
                // a detached call during the marked request: the loss
                span("o3", "5", "", "inventory", "POST", SpanKind.CLIENT, "payment", Map.of("thread.name", "pool-2"), 120, 5));
        List<MarkerLoss> losses = MarkerPropagationCheck.losses(spans, Set.of("inventory"), M);
        assertEquals(1, losses.size(), losses.toString());
        assertEquals("o3", losses.get(0).traceId());
        assertEquals("m", losses.get(0).markedTraceId());
        assertEquals("inventory->payment", losses.get(0).edge());
    }

    @Test
    void remoteLossNamesTheEdgeAndStopsAtIt() {
        Map<String, String> mk = Map.of("richter-loadtest", "1");
        List<Span> spans = List.of(
                span("t1", "a", "", "gw", "GET /x", SpanKind.SERVER, "", mk, 0, 50),
                span("t1", "b", "a", "gw", "GET", SpanKind.CLIENT, "", mk, 1, 40),
                span("t1", "c", "b", "api", "GET /x", SpanKind.SERVER, "", Map.of(), 2, 30),
                span("t1", "d", "c", "api", "SELECT", SpanKind.CLIENT, "db", Map.of(), 3, 10));
        List<MarkerLoss> losses = MarkerPropagationCheck.losses(spans, Set.of("gw", "api"), M);
        assertEquals(1, losses.size());
        assertEquals(MarkerLoss.Hop.REMOTE, losses.get(0).hop());
        assertEquals("gw->api", losses.get(0).edge());
        assertEquals("c", losses.get(0).spanId());
    }

    @Test
    void spansBeyondTheScopeBoundaryNeedNoMarkerAndBaggageListFormCounts() {
        Map<String, String> viaList = Map.of("baggage", "tenant=a, richter-loadtest = 1;ttl=3");
        List<Span> spans = List.of(
                span("t1", "a", "", "gw", "GET /x", SpanKind.SERVER, "", viaList, 0, 50),
                span("t1", "b", "a", "gw", "POST", SpanKind.CLIENT, "", viaList, 1, 40),
                span("t1", "c", "b", "stripe", "POST /v1/charges", SpanKind.SERVER, "", Map.of(), 2, 30),
                span("t1", "d", "c", "stripe-internal", "x", SpanKind.SERVER, "", Map.of(), 3, 10));
        List<CheckResult> r = MarkerPropagationCheck.check(spans, Set.of("gw"), M);
        assertEquals(Outcome.PASS, CheckResult.worst(r), r.toString());
        assertTrue(r.get(0).evidence().contains("1 spans beyond the scope boundary"), r.get(0).evidence());
    }

    @Test
    void percentEncodedBaggageValueIsDecoded() {
        Span s = span("t", "a", "", "gw", "op", SpanKind.SERVER, "", Map.of("baggage", "richter-loadtest=%31"), 0, 1);
        assertTrue(MarkerOnSpan.carries(s, M));
        Span bad = span("t", "a", "", "gw", "op", SpanKind.SERVER, "", Map.of("baggage", "x=%zz,richter-loadtest=1"), 0, 1);
        assertTrue(MarkerOnSpan.carries(bad, M), "a malformed member drops only itself");
    }

    @Test
    void linkedConsumerWithMissingProducerParentIsStillWalked() {
        Map<String, String> mk = Map.of("richter-loadtest", "1");
        List<Span> spans = List.of(
                span("p", "1", "", "order-svc", "POST /orders", SpanKind.SERVER, "", mk, 0, 10),
                span("p", "2", "1", "order-svc", "orders publish", SpanKind.PRODUCER, "kafka", mk, 1, 1),
                span("c", "3", "", "billing-svc", "orders process", SpanKind.CONSUMER, "", Map.of(), 5, 2,
                        new SpanRef("p", "2")),
                span("c", "4", "3", "billing-svc", "INSERT", SpanKind.CLIENT, "postgres", Map.of(), 6, 1));
        List<MarkerLoss> losses = MarkerPropagationCheck.losses(spans, Set.of("order-svc", "billing-svc"), M);
        assertEquals(1, losses.size());
        assertEquals("order-svc->billing-svc", losses.get(0).edge());
        assertEquals(1, losses.get(0).markedTraces(), "the consumer's trace is not a second entry");
    }
}
