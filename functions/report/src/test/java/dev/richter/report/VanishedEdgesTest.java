package dev.richter.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.Marker;
import dev.richter.links.graph.ClosurePair;
import dev.richter.links.store.StoredEdge;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.SpanKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The call graph below {@code gateway POST /orders} is gateway → order → inventory (both in scope) and order → payment
 * (an exit). Each marked trace is shaped as the OpenTelemetry Java agent writes a call: the caller's CLIENT span, the
 * callee's SERVER span as its child.
 */
class VanishedEdgesTest {
    static final String ENTRY = "gateway POST /orders";
    static final String ORDER = "order POST /orders";
    static final String RESERVE = "inventory POST /reserve";
    static final String CHARGE = "payment POST /charge";
    static final long T0 = 1_796_000_000_000L;

    static CallGraph graph(List<CheckResult> checks) {
        List<StoredEdge> edges = List.of(new StoredEdge(ENTRY, ORDER, "gateway", "order", 50, 0),
                new StoredEdge(ORDER, RESERVE, "order", "inventory", 50, 0),
                new StoredEdge(ORDER, CHARGE, "order", "payment", 50, 0));
        List<ClosurePair> rows = List.of(new ClosurePair(ENTRY, ORDER, 1, 1, 0, 0, ENTRY),
                new ClosurePair(ENTRY, RESERVE, 2, 1, 0, 0, ORDER), new ClosurePair(ENTRY, CHARGE, 2, 1, 0, 0, ORDER));
        return CallGraph.build(List.of(ENTRY), List.of(), Map.of(ENTRY, rows), edges, Map.of(), List.of(),
                Set.of("gateway", "order", "inventory"), checks);
    }

    /** One marked trace at {@code startMs}: gateway → order, and order → inventory when {@code reserves}. */
    static List<Span> trace(int n, long startMs, boolean reserves) {
        String t = String.format("%032x", 0xabc000L + n);
        long s = startMs * 1_000_000;
        Map<String, String> m = Map.of("richter-loadtest", "1");
        List<Span> out = new ArrayList<>();
        out.add(new Span(t, id(n, 1), "", List.of(), "gateway", "POST /orders", SpanKind.SERVER, "", m, s, 9_000_000));
        out.add(new Span(t, id(n, 2), id(n, 1), List.of(), "gateway", "POST", SpanKind.CLIENT, "127.0.0.1", m, s + 1, 8_000_000));
        out.add(new Span(t, id(n, 3), id(n, 2), List.of(), "order", "POST /orders", SpanKind.SERVER, "", m, s + 2, 7_000_000));
        if (reserves) {
            out.add(new Span(t, id(n, 4), id(n, 3), List.of(), "order", "POST", SpanKind.CLIENT, "127.0.0.1", m, s + 3, 3_000_000));
            out.add(new Span(t, id(n, 5), id(n, 4), List.of(), "inventory", "POST /reserve", SpanKind.SERVER, "", m, s + 4, 2_000_000));
        }
        return out;
    }

    static String id(int n, int k) {
        return String.format("%012x%04x", n, k);
    }

    /** Windows: pre-test [T0, T0+10 s), step 1 [T0+20 s, +30 s), step 2 [T0+40 s, +50 s). */
    static List<TraceEvidence.StepWindow> windows() {
        return List.of(new TraceEvidence.StepWindow("formal", 1, T0 + 40_000, T0 + 50_000),
                new TraceEvidence.StepWindow("pre-test", 0, T0, T0 + 10_000),
                new TraceEvidence.StepWindow("formal", 0, T0 + 20_000, T0 + 30_000));
    }

    /** {@code total} traces in the window starting at {@code fromMs}, the first {@code reserving} of them reaching inventory. */
    static List<Span> traces(int first, long fromMs, int total, int reserving) {
        List<Span> out = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            out.addAll(trace(first + i, fromMs + 10L * i, i < reserving));
        }
        return out;
    }

    @Test
    void aPathThatFallsAwayUnderLoadIsNamedFromTheStepWhereItFellWithTheLaterStepsSummed() {
        List<Span> spans = new ArrayList<>(traces(0, T0, 10, 10));
        spans.addAll(traces(100, T0 + 20_000, 20, 8));
        spans.addAll(traces(200, T0 + 40_000, 30, 0));
        VanishedEdges.Coverage c = VanishedEdges.of(spans, windows(), Marker.DEFAULT, graph(List.of()));
        assertEquals(1, c.vanished().size(), c.vanished().toString());
        VanishedEdges v = c.vanished().get(0);
        assertEquals(new VanishedEdges(ENTRY, "order", "inventory", "formal", 0, 12 + 30, 50, 1.0), v);
        assertEquals("order → inventory not called in 42 of 50 gateway POST /orders requests from step 1 (before: 100 %)", v.line());
        assertEquals(Set.of("gateway->order", "order->inventory"), c.crossedByEntry().get(ENTRY));
    }

    @Test
    void aPathNoMarkedTraceEverTookWhileTheLinksShowItHasVanishedFromTheFirstStep() {
        List<Span> spans = new ArrayList<>(traces(0, T0, 9, 0));
        VanishedEdges.Coverage c = VanishedEdges.of(spans, windows(), Marker.DEFAULT, graph(List.of()));
        assertEquals(List.of(new VanishedEdges(ENTRY, "order", "inventory", "pre-test", 0, 9, 9, 1.0)), c.vanished());
        assertEquals(Set.of("gateway->order"), c.crossed());
    }

    @Test
    void aConditionalPathThatKeepsItsShareIsNotReported() {
        List<Span> spans = new ArrayList<>(traces(0, T0, 10, 5));
        spans.addAll(traces(100, T0 + 20_000, 20, 9));
        spans.addAll(traces(200, T0 + 40_000, 30, 14));
        VanishedEdges.Coverage c = VanishedEdges.of(spans, windows(), Marker.DEFAULT, graph(List.of()));
        assertEquals(List.of(), c.vanished(), "45 %-50 % of the traces reserve at every step: the same path");
    }

    @Test
    void stepsWithTooFewTracesOrTooFewMissingCountForNothing() {
        List<Span> spans = new ArrayList<>(traces(0, T0, 4, 0)); // under MIN_TRACES
        spans.addAll(traces(100, T0 + 20_000, 20, 18)); // 2 missing: under MIN_MISSING; sets the baseline at 90 %
        spans.addAll(traces(200, T0 + 40_000, 20, 17)); // 85 %: within MAX_SHARE_DROP of 90 %
        assertEquals(List.of(), VanishedEdges.of(spans, windows(), Marker.DEFAULT, graph(List.of())).vanished());
    }

    @Test
    void aShedOrFailedAnswerIsNoFallbackAndCountsForNoPath() {
        // the rate limiter's 429s answer without calling inventory: the shedding finding's evidence, not degradation
        List<Span> spans = new ArrayList<>(traces(0, T0, 10, 10));
        for (int i = 0; i < 20; i++) {
            boolean shed = i >= 12;
            for (Span s : trace(100 + i, T0 + 20_000 + 10L * i, !shed)) {
                Map<String, String> a = new java.util.HashMap<>(s.attributes());
                if (!s.hasParent()) {
                    a.put(i % 2 == 0 ? "http.response.status_code" : "http.status_code", shed ? "429" : "201");
                }
                spans.add(new Span(s.traceId(), s.spanId(), s.parentSpanId(), s.links(), s.service(), s.operation(), s.kind(),
                        s.peerService(), a, s.startEpochNanos(), s.durationNanos()));
            }
        }
        VanishedEdges.Coverage c = VanishedEdges.of(spans, windows(), Marker.DEFAULT, graph(List.of()));
        assertEquals(List.of(), c.vanished(), "12 answered 201 and reached inventory; the 8 shed answered 429");
    }

    @Test
    void unmarkedTracesAndExitsAreLeftOut() {
        List<Span> spans = new ArrayList<>();
        for (Span s : traces(0, T0, 10, 0)) {
            spans.add(new Span(s.traceId(), s.spanId(), s.parentSpanId(), s.links(), s.service(), s.operation(), s.kind(),
                    s.peerService(), Map.of(), s.startEpochNanos(), s.durationNanos()));
        }
        VanishedEdges.Coverage c = VanishedEdges.of(spans, windows(), Marker.DEFAULT, graph(List.of()));
        assertEquals(List.of(), c.vanished(), "real traffic is not the run's evidence");
        assertEquals(Set.of("gateway->order", "order->inventory"), VanishedEdges.expectedPairs(graph(List.of())).get(ENTRY),
                "order→payment is an exit: its calls are mocked for marked traffic");
    }

    @Test
    void anEdgeNoMarkedTraceCrossedIsNotVerifiedInsteadOfPropagated() {
        List<CheckResult> passed = List.of(new CheckResult("marker-propagation", CheckResult.Outcome.PASS, ENTRY,
                "10 marked traces carried the marker on every in-scope span"));
        CallGraph g = graph(passed);
        assertTrue(g.edges().stream().allMatch(e -> e.marker() == CallGraph.MarkerStatus.PROPAGATED), g.edges().toString());
        CallGraph seen = g.withCrossings(Set.of("gateway->order"));
        for (CallGraph.CallEdge e : seen.edges()) {
            CallGraph.MarkerStatus expected = e.to().equals(RESERVE) ? CallGraph.MarkerStatus.NOT_VERIFIED
                    : CallGraph.MarkerStatus.PROPAGATED;
            assertEquals(expected, e.marker(), e.toString());
        }
    }
}
