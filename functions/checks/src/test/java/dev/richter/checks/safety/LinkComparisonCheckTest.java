package dev.richter.checks.safety;

import static dev.richter.checks.safety.SafetyFixtures.span;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.common.model.Marker;
import dev.richter.links.LinkComparison;
import dev.richter.links.graph.Dimension;
import dev.richter.links.graph.Edge;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.SpanKind;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LinkComparisonCheckTest {
    static final Map<String, String> MK = Map.of("richter-loadtest", "1");

    /** order → inventory → {@code third}, marked or not. */
    static List<Span> trace(String id, boolean marked, String third) {
        Map<String, String> a = marked ? MK : Map.of();
        return List.of(
                span(id, "1", "", "order", "POST /orders", SpanKind.SERVER, "", a, 0, 10),
                span(id, "2", "1", "order", "POST", SpanKind.CLIENT, "", a, 1, 8),
                span(id, "3", "2", "inventory", "POST /reserve", SpanKind.SERVER, "", a, 2, 6),
                span(id, "4", "3", "inventory", "POST", SpanKind.CLIENT, "", a, 3, 4),
                span(id, "5", "4", third, "POST /x", SpanKind.SERVER, "", a, 4, 2));
    }

    static List<Span> concat(List<Span> a, List<Span> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }

    @Test
    void sameLinksPass() {
        List<CheckResult> r = LinkComparisonCheck.check(concat(trace("m", true, "payment"), trace("r", false, "payment")),
                Marker.DEFAULT, Dimension.SERVICE);
        assertEquals(List.of(Outcome.PASS), r.stream().map(CheckResult::outcome).toList(), r.toString());
    }

    @Test
    void extraEdgeUnderMarkedTrafficFailsAndMissingEdgeWarns() {
        List<CheckResult> r = LinkComparisonCheck.check(concat(trace("m", true, "payment-sandbox"),
                trace("r", false, "payment")), Marker.DEFAULT, Dimension.SERVICE);
        assertEquals(List.of(Outcome.FAIL, Outcome.WARN), r.stream().map(CheckResult::outcome).toList(), r.toString());
        assertEquals("order", r.get(0).subject());
        assertTrue(r.get(0).evidence().startsWith("edge inventory -> payment-sandbox only under marked traffic"),
                r.get(0).evidence());
        assertTrue(r.get(1).evidence().startsWith("edge inventory -> payment of real traffic not exercised"),
                r.get(1).evidence());
    }

    @Test
    void edgeIntoAMockedExitMayBeMissingUnderMarkedTraffic() {
        dev.richter.links.trace.ParsedTraces t = SafetyFixtures.traces("shop-mocked-payment.otlp.json");
        dev.richter.links.Exit payment = new dev.richter.links.Exit("inventory", "inventory POST /reserve", "payment",
                "payment POST /charge", 1, 0, true, false, "");
        List<CheckResult> without = SafetyChecks.linkComparison(t, Marker.DEFAULT, Dimension.INTERFACE);
        assertEquals(List.of(Outcome.WARN), without.stream().map(CheckResult::outcome).toList(), without.toString());
        List<CheckResult> with = SafetyChecks.linkComparison(t, Marker.DEFAULT, Dimension.INTERFACE, List.of(payment));
        assertEquals(List.of(Outcome.PASS), with.stream().map(CheckResult::outcome).toList(), with.toString());
        assertTrue(with.get(0).evidence().contains("1 edges into mock-required exits answered by mocks"),
                with.get(0).evidence());
    }

    @Test
    void noCommonEntryWarns() {
        assertEquals(Outcome.WARN, CheckResult.worst(
                LinkComparisonCheck.check(trace("m", true, "payment"), Marker.DEFAULT, Dimension.INTERFACE)));
    }

    @Test
    void storedComparisonMapsExtraToFailMissingAndDepthToWarn() {
        LinkComparison c = new LinkComparison(Dimension.SERVICE, "team-a", "team-a#marked",
                List.of(new Edge("inventory", "payment")), List.of(new Edge("inventory", "payment-sandbox")),
                List.of(new LinkComparison.DepthChange("order", "payment", 2, 3)));
        List<CheckResult> r = SafetyChecks.linkComparison(c);
        assertEquals(List.of(Outcome.FAIL, Outcome.WARN, Outcome.WARN), r.stream().map(CheckResult::outcome).toList());
        assertEquals("inventory -> payment-sandbox", r.get(0).subject());
        assertEquals(Outcome.PASS, CheckResult.worst(SafetyChecks.linkComparison(
                new LinkComparison(Dimension.SERVICE, "a", "b", List.of(), List.of(), List.of()))));
    }
}
