package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link ShopLedger}'s arithmetic, and its reading of inventory's real Prometheus scrape. */
class ShopLedgerTest {
    private static final Map<String, Long> ROWS = Map.of("reservations", 20L, "reservations_shadow", 0L, "stock", 3L,
            "stock_shadow", 3L, "reservation_audit", 0L);

    private static ShopLedger reading(Map<String, Long> rows, long shadowStock, Map<String, Long> items,
                                      Map<String, Long> idle, long shadowKeys, long cacheOps, long readAtMs) {
        return new ShopLedger(rows, Map.of("stock", 1000L, "stock_shadow", shadowStock), items, idle, shadowKeys,
                cacheOps, 20, 0, readAtMs);
    }

    @Test
    void inventorysScrapeCountsThePriceCachesGetsAndLoads() throws IOException {
        String scrape;
        try (InputStream in = getClass().getResourceAsStream("/shop/inventory-prometheus.txt")) {
            scrape = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        // the real scrape of inventory after one unmarked order (a miss, then Spring's put, which Caffeine's
        // statistics do not count) and three marked ones (on the extension's shadow cache: not counted)
        assertEquals(1, ShopLedger.priceCacheOps(scrape));
        IOException none = assertThrows(IOException.class, () -> ShopLedger.priceCacheOps("up 1\n"));
        assertTrue(none.getMessage().contains("cache=\"prices\""), none.getMessage());
    }

    @Test
    void aDifferenceCountsWhatTheRunDidAtEachStoresProductionSide() {
        ShopLedger before = reading(ROWS, 1000, Map.of("orders", 20L, "orders_shadow", 0L),
                Map.of("stock:A1", 5L, "stock:B2", 7L), 0, 21, 1_000_000);
        Map<String, Long> after = new java.util.HashMap<>(ROWS);
        after.put("reservations_shadow", 120L);
        // 130 s later: stock:A1 idle since before the run, stock:B2 touched 3 s ago, stock:C3 new
        ShopLedger run = reading(after, 880, Map.of("orders", 20L, "orders_shadow", 120L),
                Map.of("stock:A1", 135L, "stock:B2", 3L, "stock:C3", 40L), 2, 21, 1_130_000).minus(before);

        assertEquals(Map.of("stock:B2", 3L, "stock:C3", 40L), run.redisKeys(), "keys read or written during the run");
        assertEquals(Map.of("orders", 0L, "orders_shadow", 120L), run.items());
        assertEquals(0, run.priceCacheOps());
        assertEquals(2, run.productionEffects(), "the two Redis keys");
        assertEquals("isolation: 0 marked rows in production (reservations), 120 in shadow (reservations_shadow); stock"
                + " taken: 0 units in production (stock), 120 in shadow (stock_shadow); DynamoDB: 0 items in production"
                + " (orders), 120 in shadow (orders_shadow); Redis: 2 production keys touched (stock:*), 2 shadow keys"
                + " (shadow:stock:*); price cache: 0 production reads or writes; 0 marked calls reached payment; 0"
                + " refused", run.isolationLine(0));
    }

    @Test
    void aKeyIdleForTheWholeRunWithinRedissSecondIsNotCounted() {
        ShopLedger before = reading(ROWS, 1000, Map.of(), Map.of("stock:A1", 0L), 0, 0, 1_000_000);
        // read 10.5 s apart: 9 s idle is within the second of Redis's idle clock of the 10 s between the readings
        ShopLedger run = reading(ROWS, 1000, Map.of(), Map.of("stock:A1", 9L), 0, 0, 1_010_500).minus(before);
        assertEquals(Map.of(), run.redisKeys());
        ShopLedger touched = reading(ROWS, 1000, Map.of(), Map.of("stock:A1", 8L), 0, 0, 1_010_500).minus(before);
        assertEquals(Map.of("stock:A1", 8L), touched.redisKeys());
    }
}
