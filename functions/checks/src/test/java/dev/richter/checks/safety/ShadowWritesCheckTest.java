package dev.richter.checks.safety;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.common.model.Marker;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.RegisteredService.Datastore;
import dev.richter.links.datastore.ShadowSpans;
import dev.richter.links.trace.Span;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@link ShadowWritesCheck} on the OpenTelemetry agent's real spans ({@link ShadowSpans}: produced by
 * {@code agent/src/test/java/dev/richter/agent/it/ShadowSpansFixtureIT}, see there and in {@link ShadowSpans} how).
 */
class ShadowWritesCheckTest {
    /** What the team declared: the shadows the agent document of the capture routed to, and billing's schema. */
    static final List<Datastore> DECLARED = List.of(new Datastore("table", "visits", "visits_shadow"),
            new Datastore("schema", "SALES", "SALES_SHADOW"), new Datastore("schema", "billing", "billing_shadow"),
            new Datastore("cache", "stock:", "shadow:stock:"), new Datastore("topic", "orders", "orders-shadow"));
    static final List<RegisteredService> SERVICES = List.of(
            new RegisteredService("t", "shop", "http://shop", "/h", null, DECLARED),
            new RegisteredService("t", "inventory", "http://inventory", "/h", null, DECLARED));

    private static List<CheckResult> check(List<Span> spans, String service) {
        return ShadowWritesCheck.check(spans, Set.of(service), SERVICES, Marker.DEFAULT);
    }

    /** The spans of traces none of whose spans carries {@code attribute}. */
    private static List<Span> withoutTracesHaving(List<Span> spans, String attribute) {
        Set<String> traces = spans.stream().filter(s -> s.attributes().containsKey(attribute)).map(Span::traceId)
                .collect(Collectors.toSet());
        return spans.stream().filter(s -> !traces.contains(s.traceId())).toList();
    }

    @Test
    void theExtensionsEnforcedRoutingPassesListingRefusalsAndReferenceReads() {
        List<Span> enforced = withoutTracesHaving(ShadowSpans.parse(ShadowSpans.SHOP).spans(), "richter.would_refuse");

        List<CheckResult> r = check(enforced, "shop");

        assertEquals(1, r.size(), r.toString());
        CheckResult summary = r.get(0);
        assertEquals(Outcome.PASS, summary.outcome(), summary.evidence());
        // 8 routed: two INSERT visits (one prepared: stamped on its SERVER span), two SELECTs of visits, the pooled
        // connection's INSERT INTO entries (schema SALES_SHADOW, stamped on its SERVER span), SET and GET stock:A1,
        // the record to orders; refused: the enforce-mode audit insert and its retry while the document reloaded,
        // H2's INSERT ... DIRECT (which the extension cannot parse), session:9, payments
        assertTrue(summary.evidence().matches("15 marked datastore calls in 15 marked traces: 8 to shadows; refused by the"
                + " agent extension \\(nothing sent\\): shop INSERT audit \\(trace [0-9a-f]{32}\\), shop INSERT visits"
                + " \\(trace [0-9a-f]{32}\\), shop SET session:9 \\(trace [0-9a-f]{32}\\), shop INSERT audit \\(trace"
                + " [0-9a-f]{32}\\), shop PUBLISH payments \\(trace [0-9a-f]{32}\\); reference data read \\(no declared"
                + " shadow\\): shop cache config:flag, shop table customers"), summary.evidence());
    }

    @Test
    void reportModeLettingMarkedCallsThroughFailsNamingTraceSpanServiceAndTarget() {
        List<CheckResult> r = check(ShadowSpans.parse(ShadowSpans.SHOP).spans(), "shop");

        List<CheckResult> failed = r.stream().filter(c -> c.outcome() == Outcome.FAIL).toList();
        assertEquals(List.of("shop cache session:9", "shop table audit", "shop topic payments", "marked datastore calls"),
                failed.stream().map(CheckResult::subject).toList(), r.toString());
        assertTrue(failed.get(1).evidence().matches("trace [0-9a-f]{32} span [0-9a-f]{16} shop INSERT audit \\(unrouted\\):"
                + " report mode let a marked call through: Richter isolation would refuse a marked call to exit 'table"
                + " audit' \\(report mode\\): a marked write to table 'audit', which has no shadow table \\(kind table\\) and is none"),
                failed.get(1).evidence());
        assertTrue(failed.get(3).evidence().startsWith("18 marked datastore calls in 18 marked traces: 8 to shadows, 3 calls"
                + " failed (3 distinct); refused by the agent extension (nothing sent): shop INSERT audit (trace "),
                failed.get(3).evidence());
    }

    @Test
    void withoutTheExtensionMarkedWritesAndReadsReachProductionAndARealReadOfTheShadowFails() {
        List<CheckResult> r = check(ShadowSpans.parse(ShadowSpans.INVENTORY).spans(), "inventory");

        Map<String, String> bySubject = new HashMap<>();
        r.forEach(c -> bySubject.put(c.subject(), c.outcome() + " " + c.evidence()));
        // H2's MERGE ... KEY and INSERT ... DIRECT do not parse: their table attribute names visits, but what else
        // they write is unknown, so each FAILs by its statement (unread), not as one more write to visits
        assertEquals(Set.of("inventory table visits", "inventory table visits_shadow", "inventory table invoices",
                "inventory cache stock:B2", "inventory topic orders", "marked datastore calls",
                "inventory table MERGE INTO visits KEY(page) VALUES (?)",
                "inventory table INSERT INTO visits (page) DIRECT SELECT name FROM customers"), bySubject.keySet(), r.toString());
        List<String> evidence = r.stream().filter(c -> c.outcome() == Outcome.FAIL)
                .map(c -> c.evidence().replaceAll("trace [0-9a-f]{32} span [0-9a-f]{16} ", "")).toList();
        assertEquals(List.of(
                "inventory INSERT visits (production, shadow visits_shadow): marked write reached production",
                "inventory SELECT visits (production, shadow visits_shadow): marked read of production: marked reads must"
                        + " see shadow data (2 calls)",
                "inventory MERGE MERGE INTO visits KEY(page) VALUES (?) (unread): cannot prove isolation of a marked call:"
                        + " statement does not parse as SQL (Encountered unexpected token: \"VALUES\" \"VALUES\")",
                "inventory INSERT INSERT INTO visits (page) DIRECT SELECT name FROM customers (unread): cannot prove"
                        + " isolation of a marked call: statement does not parse as SQL (Encountered unexpected token:"
                        + " \"DIRECT\" <S_IDENTIFIER>)",
                "inventory SELECT visits_shadow (shadow): unmarked call touched a shadow: real traffic must never see"
                        + " shadow data",
                "inventory INSERT invoices (production, shadow billing_shadow): marked write reached production",
                "inventory SET stock:B2 (production, shadow shadow:stock:): marked write reached production",
                "inventory PUBLISH orders (production, shadow orders-shadow): marked write reached production",
                "9 marked datastore calls in 9 marked traces: 0 to shadows, 9 calls failed (8 distinct); refused by the"
                        + " agent extension (nothing sent): none; reference data read (no declared shadow): inventory table"
                        + " customers"), evidence);
    }

    @Test
    void aMarkedDynamoDbWriteToItsShadowTablePassesAndOneToAnUndeclaredTableFails() {
        List<Span> spans = ShadowSpans.parse(ShadowSpans.ORDER_DYNAMODB).spans();
        var declared = List.of(new RegisteredService("t", "order", "http://order", "/h", null,
                List.of(new Datastore("dynamodb", "orders", "orders_shadow"))));

        List<CheckResult> r = ShadowWritesCheck.check(spans, Set.of("order"), declared, Marker.DEFAULT);

        assertEquals(1, r.size(), r.toString());
        assertEquals(Outcome.PASS, r.get(0).outcome(), r.get(0).evidence());
        assertTrue(r.get(0).evidence().startsWith("3 marked datastore calls in 3 marked traces: 3 to shadows"),
                r.get(0).evidence());

        var undeclared = List.of(new RegisteredService("t", "order", "http://order", "/h", null,
                List.of(new Datastore("dynamodb", "carts", "carts_shadow"))));
        List<CheckResult> failed = ShadowWritesCheck.check(spans, Set.of("order"), undeclared, Marker.DEFAULT).stream()
                .filter(c -> c.outcome() == Outcome.FAIL).toList();
        assertEquals(List.of("order dynamodb orders_shadow", "marked datastore calls"),
                failed.stream().map(CheckResult::subject).toList(), failed.toString());
    }

    @Test
    void aMarkedStatementThatDoesNotParseWithoutATableAttributeCannotBeProvenIsolated() {
        // the real span of H2's INSERT ... DIRECT SELECT, as an instrumentation that records no table would export it
        List<Span> spans = ShadowSpans.parse(ShadowSpans.INVENTORY).spans().stream()
                .filter(s -> s.attributes().getOrDefault("db.query.text", "").contains("DIRECT"))
                .map(s -> {
                    Map<String, String> a = new HashMap<>(s.attributes());
                    a.remove("db.collection.name");
                    return new Span(s.traceId(), s.spanId(), s.parentSpanId(), s.links(), s.service(), s.operation(),
                            s.kind(), s.peerService(), a, s.startEpochNanos(), s.durationNanos());
                }).toList();

        List<CheckResult> r = check(spans, "inventory");

        assertEquals(Outcome.FAIL, r.get(0).outcome());
        assertTrue(r.get(0).evidence().matches("trace [0-9a-f]{32} span [0-9a-f]{16} inventory INSERT INSERT INTO visits"
                + " \\(page\\) DIRECT SELECT name FROM customers \\(unread\\): cannot prove isolation of a marked call:"
                + " statement does not parse as SQL \\(Encountered unexpected token: \"DIRECT\" <S_IDENTIFIER>.*\\)"),
                r.get(0).evidence());
        assertEquals(List.of(Outcome.FAIL, Outcome.FAIL), r.stream().map(CheckResult::outcome).toList(), "and the summary");
    }

    @Test
    void noMarkedTraceWarns() {
        List<Span> unmarked = withoutTracesHaving(ShadowSpans.parse(ShadowSpans.SHOP).spans(), "richter-loadtest");

        List<CheckResult> r = check(unmarked, "shop");

        assertEquals(List.of(Outcome.WARN), r.stream().map(CheckResult::outcome).toList(), r.toString());
    }
}
