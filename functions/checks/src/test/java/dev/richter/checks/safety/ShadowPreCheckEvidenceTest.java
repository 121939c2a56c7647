package dev.richter.checks.safety;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.links.trace.Span;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link ShadowPreCheckEvidence} on the agent extension's own pre-check spans from the demo shop's inventory (Spring
 * Boot, HikariCP, H2 in server mode), captured from its logging-otlp exporter: a round on the database at :18092 with
 * the shop's shadows (both pass), and one on a second shop at :28092 whose document mapped reservations to a shadow
 * that does not exist.
 */
class ShadowPreCheckEvidenceTest {
    static final String DB1 = "jdbc:h2:tcp://127.0.0.1:18092/shop";
    static final String DB2 = "jdbc:h2:tcp://127.0.0.1:28092/shop";

    static List<Span> spans() {
        return SafetyFixtures.traces("shop-spring-shadow-prechecks.otlp.json").spans();
    }

    @Test
    void eachTableOfEachDatabasesRoundIsOneResultWithTheDatabasesReason() {
        List<CheckResult> r = ShadowPreCheckEvidence.check(spans(), Set.of("gateway", "order", "inventory"), "the test");
        assertEquals(List.of("PASS inventory reservations -> reservations_shadow", "PASS inventory stock -> stock_shadow",
                        "FAIL inventory reservations -> reservations_gone", "PASS inventory stock -> stock_shadow"),
                r.stream().map(c -> c.outcome() + " " + c.subject()).toList());
        assertEquals("the shadow table 'reservations_gone' does not exist (catalog SHOP, schema PUBLIC) (" + DB2 + " at ",
                r.get(2).evidence().substring(0, r.get(2).evidence().indexOf(" at ") + 4));
        assertEquals(ShadowPreCheckEvidence.NAME, r.get(0).name());
    }

    @Test
    void onlyTheLatestRoundOfADatabaseCounts() {
        // the failing round, as if it had run on the first database before the passing one: fixed since
        List<Span> spans = spans().stream().map(s -> {
            if (!DB2.equals(s.attributes().get("richter.precheck.database"))) {
                return s;
            }
            Map<String, String> a = new HashMap<>(s.attributes());
            a.put("richter.precheck.database", DB1);
            return new Span(s.traceId(), s.spanId(), s.parentSpanId(), s.links(), s.service(), s.operation(), s.kind(),
                    s.peerService(), a, 1_000L, s.durationNanos());
        }).toList();
        List<CheckResult> r = ShadowPreCheckEvidence.check(spans, Set.of("inventory"), "the test");
        assertEquals(List.of(Outcome.PASS, Outcome.PASS), r.stream().map(CheckResult::outcome).toList(), r.toString());
    }

    @Test
    void noRoundOfAScopeServiceIsAWarnNotAPass() {
        List<CheckResult> r = ShadowPreCheckEvidence.check(spans(), Set.of("gateway", "order"), "the last 24 h of dir x");
        assertEquals(1, r.size());
        assertEquals(Outcome.WARN, r.get(0).outcome());
        assertEquals("no shadow pre-check of gateway, order in the last 24 h of dir x: the agent extension runs one when a"
                + " service with table shadows (kind table) connects to its database", r.get(0).evidence());
    }
}
