package dev.richter.checks.safety;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.RegisteredService.Datastore;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShadowStorageCheckTest {
    static final ShadowRegistry REGISTRY = new ShadowRegistry(List.of(
            new ShadowRegistry.StorageTarget("table", "orders", "v7"),
            new ShadowRegistry.StorageTarget("table", "orders_shadow", "v7"),
            new ShadowRegistry.StorageTarget("schema", "inventory", "V42__add_reservation_ttl"),
            new ShadowRegistry.StorageTarget("schema", "inventory_shadow", "V41__reservations"),
            new ShadowRegistry.StorageTarget("cache", "stock:", ""),
            new ShadowRegistry.StorageTarget("cache", "shadow:stock:", ""),
            new ShadowRegistry.StorageTarget("topic", "orders", "3"),
            new ShadowRegistry.StorageTarget("topic", "orders-shadow", "3")));

    private static List<CheckResult> check(Datastore... d) {
        return SafetyChecks.shadowStorage(
                List.of(new RegisteredService("team-a", "svc", "http://127.0.0.1:1", "/h", null, List.of(d))), REGISTRY);
    }

    @Test
    void existingDistinctShadowWithSameSchemaPasses() {
        List<CheckResult> r = check(new Datastore("table", "orders", "orders_shadow"),
                new Datastore("topic", "orders", "orders-shadow"));
        assertEquals(List.of(Outcome.PASS, Outcome.PASS), r.stream().map(CheckResult::outcome).toList(), r.toString());
        assertEquals("svc table orders", r.get(0).subject());
    }

    @Test
    void shadowEqualToProductionMissingOrUnknownFails() {
        List<CheckResult> r = check(new Datastore("table", "orders", "orders"),
                new Datastore("table", "orders", ""),
                new Datastore("table", "orders", "orders_shadoww"));
        assertEquals(List.of(Outcome.FAIL, Outcome.FAIL, Outcome.FAIL), r.stream().map(CheckResult::outcome).toList());
        assertTrue(r.get(0).evidence().contains("marked writes would land in production"), r.get(0).evidence());
        assertTrue(r.get(2).evidence().contains("'orders_shadoww' does not exist"), r.get(2).evidence());
    }

    @Test
    void schemaVersionMismatchFailsAndUnknownVersionWarns() {
        List<CheckResult> r = check(new Datastore("schema", "inventory", "inventory_shadow"),
                new Datastore("cache", "stock:", "shadow:stock:"),
                new Datastore("table", "payments", "orders_shadow"));
        assertEquals(List.of(Outcome.FAIL, Outcome.WARN, Outcome.WARN), r.stream().map(CheckResult::outcome).toList(),
                r.toString());
        assertEquals("shadow schema 'inventory_shadow' has schema version V41__reservations, production 'inventory' has "
                + "V42__add_reservation_ttl", r.get(0).evidence());
    }
}
