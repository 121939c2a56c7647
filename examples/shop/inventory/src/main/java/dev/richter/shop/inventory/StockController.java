package dev.richter.shop.inventory;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * Inventory's endpoints.
 * <ul>
 *   <li>{@code POST /reserve {"orderId", "sku", "qty"}} → 200 {@code {"reservationId", "amountCents"}}: takes
 *       {@code qty} off {@code stock}, records the reservation in {@code reservations} and refreshes the cached stock
 *       ({@code stock:<sku>} in Redis, for {@code shop.cache-ttl-s}); the amount is the unit price ({@link Prices},
 *       cached in-process) times {@code qty}; 404 for an unknown sku, 409 when the stock is short, 400 for a bad
 *       body.</li>
 *   <li>{@code GET /stock/{sku}} → 200 {@code {"sku", "qty", "cached"}}: from Redis, else from the database (then
 *       cached); 404 for an unknown sku.</li>
 * </ul>
 * The variant {@code SHOP_INVENTORY_FAIL_AFTER=<n>} answers 503 to every reservation after the first {@code n} since
 * start, as a dependency that runs out under load would; order's breaker then opens and its fallback answers.
 */
@RestController
public class StockController {
    private final JdbcTemplate db;
    private final StringRedisTemplate redis;
    private final Prices prices;
    private final Duration cacheTtl;
    private final boolean auditReservations;
    private final long storeLatencyMs;
    private final long failAfter;
    private final java.util.concurrent.atomic.AtomicLong reserveCalls = new java.util.concurrent.atomic.AtomicLong();

    public StockController(JdbcTemplate db, StringRedisTemplate redis, Prices prices,
                           @Value("${shop.cache-ttl-s}") long cacheTtlS,
                           @Value("${shop.audit-reservations}") boolean auditReservations,
                           @Value("${shop.store-latency-ms}") long storeLatencyMs,
                           @Value("${shop.fail-after}") long failAfter) {
        this.db = db;
        this.redis = redis;
        this.prices = prices;
        this.cacheTtl = Duration.ofSeconds(cacheTtlS);
        this.auditReservations = auditReservations;
        this.storeLatencyMs = storeLatencyMs;
        this.failAfter = failAfter;
    }

    @PostMapping("/reserve")
    @Transactional
    public ResponseEntity<Map<String, Object>> reserve(@RequestBody Map<String, Object> body) throws InterruptedException {
        if (!(body.get("sku") instanceof String sku) || !(body.get("qty") instanceof Number qtyNumber)
                || qtyNumber.intValue() <= 0 || !(body.get("orderId") instanceof String orderId)) {
            return ResponseEntity.badRequest().body(Map.of("error", "orderId, sku and a positive qty are required"));
        }
        if (failAfter > 0 && reserveCalls.incrementAndGet() > failAfter) {
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body(Map.of("error", "reservations exhausted"));
        }
        int qty = qtyNumber.intValue();
        Long unitCents = prices.centsOf(sku);
        List<Long> rows = db.queryForList("SELECT qty FROM stock WHERE sku = ?", Long.class, sku);
        if (unitCents == null || rows.isEmpty()) {
            return ResponseEntity.status(HttpStatus.NOT_FOUND).body(Map.of("error", "unknown sku " + sku));
        }
        int updated = db.update("UPDATE stock SET qty = qty - ? WHERE sku = ? AND qty >= ?", qty, sku, qty);
        if (updated == 0) {
            return ResponseEntity.status(HttpStatus.CONFLICT).body(Map.of("error", "stock of " + sku + " is short"));
        }
        String id = "r-" + UUID.randomUUID();
        db.update("INSERT INTO reservations (id, order_id, sku, qty, created_at) VALUES (?, ?, ?, ?, ?)",
                id, orderId, sku, qty, Timestamp.from(Instant.now()));
        if (auditReservations) {
            db.update("INSERT INTO reservation_audit (reservation_id, note) VALUES (?, ?)", id, "reserved " + qty + " " + sku);
        }
        if (storeLatencyMs > 0) {
            Thread.sleep(storeLatencyMs);
        }
        long left = rows.get(0) - qty;
        redis.opsForValue().set("stock:" + sku, Long.toString(left), cacheTtl);
        long amount = unitCents * qty;
        return ResponseEntity.ok(Map.of("reservationId", id, "amountCents", amount));
    }

    @GetMapping("/stock/{sku}")
    public ResponseEntity<Map<String, Object>> stock(@PathVariable String sku) {
        String cached = redis.opsForValue().get("stock:" + sku);
        if (cached != null) {
            return ResponseEntity.ok(Map.of("sku", sku, "qty", Long.parseLong(cached), "cached", true));
        }
        List<Long> qty = db.queryForList("SELECT qty FROM stock WHERE sku = ?", Long.class, sku);
        if (qty.isEmpty()) {
            return ResponseEntity.status(HttpStatus.NOT_FOUND).body(Map.of("error", "unknown sku " + sku));
        }
        redis.opsForValue().set("stock:" + sku, Long.toString(qty.get(0)), cacheTtl);
        return ResponseEntity.ok(Map.of("sku", sku, "qty", qty.get(0), "cached", false));
    }
}
