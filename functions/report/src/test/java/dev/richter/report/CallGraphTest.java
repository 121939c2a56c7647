package dev.richter.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.CheckResult;
import dev.richter.links.graph.ClosurePair;
import dev.richter.links.store.NodeAnnotation;
import dev.richter.links.store.StoredEdge;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CallGraphTest {
    static final String ENTRY = "order POST /orders";
    static final String RESERVE = "inventory POST /reserve";
    static final String STOCK = "stock GET /stock";
    static final String STOCK_DB = "stock-db SELECT";
    static final String CHARGE = "payment POST /charge";
    static final String FRAUD = "fraud POST /score";

    static StoredEdge edge(String from, String to, long calls) {
        return new StoredEdge(from, to, CallGraph.service(from), CallGraph.service(to), calls, 1);
    }

    static ClosurePair row(String descendant, int depth, String via) {
        return new ClosurePair(ENTRY, descendant, depth, 1, depth == 1 ? 10 : 0, 1, via);
    }

    /** The shop's links, a marker loss below inventory and a payment exit answered by its mock in the pre-test. */
    static CallGraph shop() {
        return shop(List.of(
                new CheckResult("marker-propagation", CheckResult.Outcome.FAIL, ENTRY, "marker lost at remote call: first span without"
                        + " richter-loadtest=1 is stock 'GET /stock' (span 00f067aa0ba902b7, trace 4bf92f3577b34da6a3ce929d0e0e4736),"
                        + " below marked inventory 'POST /reserve'; in 3 of 20 marked traces of order POST /orders"),
                new CheckResult("mocked-exit", CheckResult.Outcome.PASS, CHARGE, "20 marked calls answered by the mock (richter.mock=true), 0 real")));
    }

    /** The shop's links with these dynamic checks. */
    static CallGraph shop(List<CheckResult> checks) {
        List<ClosurePair> rows = List.of(row(RESERVE, 1, ENTRY), row(STOCK, 2, RESERVE), row(FRAUD, 2, RESERVE),
                row(STOCK_DB, 3, STOCK));
        List<StoredEdge> edges = List.of(edge(ENTRY, RESERVE, 300), edge(RESERVE, STOCK, 300), edge(RESERVE, FRAUD, 12),
                edge(STOCK, STOCK_DB, 300), edge("search GET /items", "catalog GET /items", 5));
        return CallGraph.build(List.of(ENTRY), List.of(), Map.of(ENTRY, rows), edges, Map.of(),
                List.of(new CallGraph.RequiredExit("inventory", "payment", CHARGE)), Set.of("order", "inventory", "stock", "stock-db"),
                checks);
    }

    static CallGraph.CallEdge find(CallGraph g, String from, String to) {
        return g.edges().stream().filter(e -> e.from().equals(from) && e.to().equals(to)).findFirst().orElseThrow();
    }

    @Test
    void eachEdgeCarriesCallsMarkerAndMockStatus() {
        CallGraph g = shop();
        assertEquals(List.of(ENTRY, RESERVE, FRAUD, CHARGE, STOCK, STOCK_DB), g.nodes().stream().map(CallGraph.Node::id).toList());
        CallGraph.CallEdge first = find(g, ENTRY, RESERVE);
        assertEquals(300, first.calls());
        assertEquals(CallGraph.MarkerStatus.PROPAGATED, first.marker());
        assertEquals(CallGraph.MockStatus.REAL, first.mock());
        assertFalse(first.exit() || first.highlighted());
        CallGraph.CallEdge lost = find(g, RESERVE, STOCK);
        assertEquals(CallGraph.MarkerStatus.LOST, lost.marker(), "named by the check");
        assertTrue(lost.highlighted());
        assertEquals(CallGraph.MarkerStatus.LOST, find(g, STOCK, STOCK_DB).marker(), "everything below a loss runs unmarked");
        CallGraph.CallEdge fraud = find(g, RESERVE, FRAUD);
        assertTrue(fraud.exit() && fraud.mock() == CallGraph.MockStatus.REAL && fraud.highlighted(), "a real exit");
        CallGraph.CallEdge charge = find(g, RESERVE, CHARGE);
        assertTrue(charge.exit());
        assertEquals(CallGraph.MockStatus.MOCKED, charge.mock(), "a configured mock-required exit its mock answered");
        assertEquals(20, charge.calls(), "known from the mocked-exit check: the marked calls its mock answered");
        assertFalse(g.edges().stream().anyMatch(e -> e.from().startsWith("search")), "edges of other entries stay out");
    }

    @Test
    void anExitReachedForRealIsRealEvenWhenAMockIsRequired() {
        var checks = List.of(new CheckResult("mocked-exit", CheckResult.Outcome.FAIL, CHARGE, "3 marked calls reached " + CHARGE + " for real"));
        CallGraph g = CallGraph.build(List.of(ENTRY), List.of(), Map.of(ENTRY, List.of(row(CHARGE, 1, ENTRY))),
                List.of(edge(ENTRY, CHARGE, 3)), Map.of(CHARGE, new NodeAnnotation(CHARGE, false, true, "", "alice", 1)),
                List.of(), Set.of("order"), checks);
        CallGraph.CallEdge e = find(g, ENTRY, CHARGE);
        assertEquals(CallGraph.MockStatus.REAL, e.mock());
        assertEquals(CallGraph.MarkerStatus.NOT_VERIFIED, e.marker(), "no marker-propagation result");
        assertTrue(e.highlighted());
    }

    @Test
    void thePlanEntriesMatchRoutesAndTemplatesAndNameTheMissing() {
        var plan = new dev.richter.common.model.Plan("p", "t1", "p", List.of(new dev.richter.common.model.Plan.ScenarioSpec("s", "order", 1,
                List.of(new dev.richter.common.model.Plan.RequestSpec("POST", "/orders?x=1", Map.of(), null, null),
                        new dev.richter.common.model.Plan.RequestSpec("get", "/orders/42", Map.of(), null, null),
                        new dev.richter.common.model.Plan.RequestSpec("DELETE", "/orders/42", Map.of(), null, null)))),
                new dev.richter.common.model.Plan.StepSpec(1, 1), List.of(), null, List.of(), 50, 1000, 0);
        var found = CallGraph.planEntries(plan, List.of(ENTRY, "order GET /orders/{id}", "order GET /actuator/health", "inventory POST /reserve"));
        assertEquals(List.of(ENTRY, "order GET /orders/{id}"), found.get(true));
        assertEquals(List.of("order DELETE /orders/42"), found.get(false));
    }

    @Test
    void bigGraphsCollapseBelowADepthAndCountWhatTheyHide() {
        List<ClosurePair> rows = new ArrayList<>();
        List<StoredEdge> edges = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String mid = "svc" + i + " GET /a";
            rows.add(row(mid, 1, ENTRY));
            edges.add(edge(ENTRY, mid, 10));
            for (int j = 0; j < 10; j++) {
                String leaf = "leaf" + i + "x" + j + " GET /b";
                rows.add(row(leaf, 2, mid));
                edges.add(edge(mid, leaf, 1));
            }
        }
        Set<String> scope = new java.util.HashSet<>(Set.of("order", "svc0", "svc1", "svc2", "svc3", "svc4"));
        CallGraph g = CallGraph.build(List.of(ENTRY), List.of(), Map.of(ENTRY, rows), edges, Map.of(), List.of(), scope, List.of());
        assertEquals(1, g.collapsedBelowDepth());
        assertEquals(50, g.hiddenNodes());
        assertEquals(6, g.nodes().size());
        CallGraph.Node svc0 = g.nodes().stream().filter(n -> n.id().equals("svc0 GET /a")).findFirst().orElseThrow();
        assertEquals(10, svc0.hiddenBelow());
        assertEquals("10 real exits", svc0.hiddenNote(), "the leaves are out of scope and not mocked");
        String svg = CallGraphSvg.render(g);
        assertTrue(svg.contains("+10 below (10 real exits)"), svg);
    }

    @Test
    void theSvgHighlightsLostAndRealExitEdgesAndEscapesNames() {
        String svg = CallGraphSvg.render(shop());
        assertTrue(svg.startsWith("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"callgraph\""));
        assertEquals(2, svg.split("class=\"cg-edge e-lost\"", -1).length - 1);
        assertEquals(1, svg.split("class=\"cg-edge e-real\"", -1).length - 1);
        assertEquals(1, svg.split("class=\"cg-edge e-mock\"", -1).length - 1);
        assertTrue(svg.contains("300 calls \u00b7 marker lost"));
        CallGraph odd = CallGraph.build(List.of("a <b>"), List.of(), Map.of(), List.of(), Map.of(), List.of(), Set.of("a"), List.of());
        assertTrue(CallGraphSvg.render(odd).contains("&lt;b&gt;"));
    }
}
