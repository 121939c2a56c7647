package dev.richter.checks.safety;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.RegisteredService.Datastore;
import dev.richter.links.datastore.DatastoreDiscovery;
import dev.richter.links.datastore.DiscoveredDatastore;
import dev.richter.links.datastore.ShadowSpans;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link DiscoveredDatastoresCheck} on what the link builder discovers in the agent's real spans ({@link ShadowSpans}). */
class DiscoveredDatastoresCheckTest {
    private static Map<String, List<DiscoveredDatastore>> discovered(String resource, String service) {
        return Map.of(service, DatastoreDiscovery.discover(ShadowSpans.parse(resource).spans()));
    }

    private static List<String> lines(List<CheckResult> r) {
        return r.stream().map(c -> c.outcome() + " " + c.subject()).toList();
    }

    @Test
    void aWrittenDatastoreWithoutDeclaredShadowFailsAndAReadOnlyOneWarns() {
        List<RegisteredService> services = List.of(new RegisteredService("t", "shop", "http://shop", "/h", null,
                List.of(new Datastore("table", "visits", "visits_shadow"), new Datastore("cache", "stock:", "shadow:stock:"),
                        new Datastore("topic", "orders", "orders-shadow"))));

        List<CheckResult> r = DiscoveredDatastoresCheck.check(services, discovered(ShadowSpans.SHOP, "shop"));

        assertEquals(List.of("WARN shop cache config:", "WARN shop table customers", "FAIL shop table audit",
                "FAIL shop table entries", "FAIL shop cache session:", "FAIL shop topic payments"), lines(r));
        assertTrue(r.get(2).evidence().matches("shop table mem:shop/audit \\(h2, last seen 20\\d\\d-.*Z\\) is written in the"
                + " traces but shop declares no shadow table for it: marked writes would reach it"), r.get(2).evidence());
    }

    @Test
    void aWriteTheExtensionRefusedIsDiscoveredAsAWriteOfItsTable() {
        // inventory's INSERT INTO reservation_audit was refused: no JDBC span, only the refusal on the server span
        List<DiscoveredDatastore> found = DatastoreDiscovery.discover(
                SafetyFixtures.traces("shop-spring-refused-audit-insert.otlp.json").spans());
        DiscoveredDatastore audit = found.stream().filter(d -> d.name().equalsIgnoreCase("reservation_audit")).findFirst()
                .orElseThrow(() -> new AssertionError(found.toString()));
        assertEquals("inventory", audit.service());
        assertEquals("table", audit.kind());
        assertTrue(audit.writes(), "a refusal is evidence of a write");
        List<CheckResult> r = DiscoveredDatastoresCheck.check(List.of(new RegisteredService("t", "inventory", "http://i",
                "/h", null, List.of())), Map.of("inventory", found));
        assertTrue(r.stream().anyMatch(c -> c.outcome() == CheckResult.Outcome.FAIL
                && c.subject().equalsIgnoreCase("inventory table reservation_audit")), lines(r).toString());
    }

    @Test
    void aWriteNotSeenForAWeekWhileTheServiceKeptBeingTracedWarnsAndANewSightingFailsAgain() {
        long now = 1_796_000_000_000L;
        long eightDays = 8 * 86_400_000L;
        List<RegisteredService> services = List.of(new RegisteredService("t", "inventory", "http://i", "/h", null,
                List.of(new Datastore("table", "stock", "stock_shadow"))));
        DiscoveredDatastore stock = new DiscoveredDatastore("inventory", "table", "stock", "h2", "", true, now);
        DiscoveredDatastore audit = new DiscoveredDatastore("inventory", "table", "reservation_audit", "", "", true,
                now - eightDays);
        List<CheckResult> stale = DiscoveredDatastoresCheck.check(services, Map.of("inventory", List.of(stock, audit)));
        assertEquals(List.of("WARN inventory table reservation_audit"), lines(stale));
        assertTrue(stale.get(0).evidence().contains("was written in the traces, but not in the 7 days before inventory's"
                + " newest sighting"), stale.get(0).evidence());
        DiscoveredDatastore again = new DiscoveredDatastore("inventory", "table", "reservation_audit", "", "", true,
                now - 60_000);
        assertEquals(List.of("FAIL inventory table reservation_audit"),
                lines(DiscoveredDatastoresCheck.check(services, Map.of("inventory", List.of(stock, again)))));
    }

    @Test
    void allMappedPassesAndADiscoveredShadowIsNotAProductionDatastore() {
        List<RegisteredService> services = List.of(new RegisteredService("t", "inventory", "http://i", "/h", null,
                List.of(new Datastore("table", "visits", "visits_shadow"), new Datastore("table", "customers", "customers_shadow"),
                        new Datastore("schema", "billing", "billing_shadow"), new Datastore("cache", "stock:", "shadow:stock:"),
                        new Datastore("topic", "orders", "orders-shadow"))));

        List<CheckResult> r = DiscoveredDatastoresCheck.check(services, discovered(ShadowSpans.INVENTORY, "inventory"));

        assertEquals(List.of("PASS inventory"), lines(r));
        assertEquals("5 discovered datastores, each with a declared shadow", r.get(0).evidence(),
                "visits, customers, invoices (schema billing), stock:, orders; visits_shadow is a shadow");
    }

    @Test
    void nothingDiscoveredWarns() {
        List<RegisteredService> services = new ArrayList<>(List.of(new RegisteredService("t", "shop", "http://shop", "/h",
                null, List.of())));

        List<CheckResult> r = DiscoveredDatastoresCheck.check(services, Map.of());

        assertEquals(List.of("WARN discovered datastores"), lines(r));
        assertTrue(r.get(0).evidence().startsWith("no datastore discovered in the traces of [shop]"), r.get(0).evidence());
    }
}
