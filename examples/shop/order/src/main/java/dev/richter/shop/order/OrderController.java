package dev.richter.shop.order;

import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadRegistry;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterRegistry;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.Map;
import java.util.UUID;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;
import org.springframework.web.client.RestTemplate;

/**
 * {@code POST /orders {"sku", "qty"}}: reserves the stock at inventory ({@link RestTemplate}), then charges the payment
 * provider ({@link RestClient}), then records the order in DynamoDB ({@link PlacedOrders}).
 * <ul>
 *   <li>201 {@code {"orderId", "reservationId", "chargeId", "status": "PLACED"}};</li>
 *   <li>429 with {@code Retry-After: 1} above the rate limiter ({@code orders}) or the bulkhead ({@code orders});</li>
 *   <li>200 {@code {"orderId", "status": "ACCEPTED", "degraded": true, "reason"}} when inventory fails, times out or
 *       its circuit breaker is open: the fallback accepts the order for later instead of failing it;</li>
 *   <li>inventory's own 4xx answer (unknown sku, short stock) as it is; 400 for a bad body; 502 when the charge
 *       fails.</li>
 * </ul>
 * The variant {@code SHOP_INVENTORY_BREAKER_FORCED_OPEN=true} forces the inventory breaker open at start
 * ({@link CircuitBreaker#transitionToForcedOpenState()}, as an operator would through Resilience4j's actuator endpoint):
 * every order then gets the degraded 200, and inventory is never called.
 *
 * <p>The variant {@code SHOP_ORDER_COLD_ORDERS=<n>} (with {@code SHOP_ORDER_COLD_MS=<ms>}, default 600) makes order
 * slow while it is cold, as a JVM is until its JIT compiler and caches have seen enough calls: the first {@code n}
 * orders it takes (marked or not) each wait {@code ms × (n − i) / n} milliseconds before any work, inside the bulkhead
 * (16 at once). So its capacity grows with the orders it has served: about 16 / 0.6 s = 26 orders a second when
 * started, the rate limiter's 50 once warm. A restart makes it cold again.
 *
 * <p>Each order placed (201) counts in the business metric {@code orders.placed} (Prometheus
 * {@code orders_placed_total}). The variant {@code SHOP_ORDER_COUNT_STOPS_AFTER=<n>} stops counting after the first
 * {@code n} orders while every answer stays 201: the business metric falls with every probe green.
 */
@RestController
public class OrderController {
    private static final ParameterizedTypeReference<Map<String, Object>> JSON = new ParameterizedTypeReference<>() {};

    private final RestTemplate inventory;
    private final RestClient payment;
    private final PlacedOrders placedOrdersTable;
    private final String fraudUrl;
    private final boolean asyncPayment;
    private final RateLimiter rateLimiter;
    private final Bulkhead bulkhead;
    private final CircuitBreaker inventoryBreaker;
    private final Counter ordersCreated;
    private final long countStopsAfter;
    private final AtomicLong placedOrders = new AtomicLong();
    private final long coldOrders;
    private final long coldMs;
    private final AtomicLong taken = new AtomicLong();

    public OrderController(RestTemplate inventory, @Qualifier("paymentClient") RestClient payment,
                           PlacedOrders placedOrdersTable,
                           @Value("${shop.fraud-url}") String fraudUrl,
                           @Value("${shop.async-payment}") boolean asyncPayment,
                           @Value("${shop.inventory-breaker-forced-open}") boolean breakerForcedOpen,
                           @Value("${shop.order-count-stops-after}") long countStopsAfter,
                           @Value("${shop.cold-orders}") long coldOrders, @Value("${shop.cold-ms}") long coldMs,
                           RateLimiterRegistry rateLimiters, BulkheadRegistry bulkheads, CircuitBreakerRegistry breakers,
                           MeterRegistry meters) {
        this.inventory = inventory;
        this.payment = payment;
        this.placedOrdersTable = placedOrdersTable;
        this.fraudUrl = fraudUrl;
        this.asyncPayment = asyncPayment;
        this.rateLimiter = rateLimiters.rateLimiter("orders");
        this.bulkhead = bulkheads.bulkhead("orders");
        this.inventoryBreaker = breakers.circuitBreaker("inventory");
        this.ordersCreated = Counter.builder("orders.placed").description("orders placed (201)").register(meters);
        this.countStopsAfter = countStopsAfter;
        this.coldOrders = coldOrders;
        this.coldMs = coldMs;
        if (breakerForcedOpen) {
            inventoryBreaker.transitionToForcedOpenState();
        }
    }

    @PostMapping("/orders")
    public ResponseEntity<Map<String, Object>> place(@RequestBody Map<String, Object> body) {
        if (!rateLimiter.acquirePermission()) {
            return shed("rate limit of " + rateLimiter.getRateLimiterConfig().getLimitForPeriod() + " orders a second");
        }
        if (!bulkhead.tryAcquirePermission()) {
            return shed("bulkhead full: " + bulkhead.getBulkheadConfig().getMaxConcurrentCalls() + " orders at once");
        }
        try {
            warmUp();
            return placeWithinLimits(body);
        } finally {
            bulkhead.onComplete();
        }
    }

    /** The cold variant's wait: {@code coldMs × (coldOrders − i) / coldOrders} ms for the i-th order taken, none after. */
    private void warmUp() {
        long i = taken.getAndIncrement();
        if (i < coldOrders) {
            try {
                Thread.sleep(coldMs * (coldOrders - i) / coldOrders);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private ResponseEntity<Map<String, Object>> placeWithinLimits(Map<String, Object> body) {
        if (!(body.get("sku") instanceof String sku) || !(body.get("qty") instanceof Number qty) || qty.intValue() <= 0) {
            return ResponseEntity.badRequest().body(Map.of("error", "sku and a positive qty are required"));
        }
        String orderId = "o-" + UUID.randomUUID();
        Map<String, Object> reservation;
        try {
            HttpHeaders headers = new HttpHeaders();
            headers.setContentType(MediaType.APPLICATION_JSON);
            var request = new HttpEntity<>(Map.of("orderId", orderId, "sku", sku, "qty", qty.intValue()), headers);
            reservation = inventoryBreaker.executeSupplier(
                    () -> inventory.exchange("/reserve", HttpMethod.POST, request, JSON).getBody());
        } catch (HttpClientErrorException e) {
            return ResponseEntity.status(e.getStatusCode()).contentType(MediaType.APPLICATION_JSON)
                    .body(Map.of("error", "inventory: " + e.getResponseBodyAsString()));
        } catch (CallNotPermittedException e) {
            return degraded(orderId, "inventory circuit breaker open");
        } catch (RestClientException e) {
            return degraded(orderId, "inventory failed: " + e.getMessage());
        }
        try {
            if (!fraudUrl.isBlank()) {
                payment.post().uri(fraudUrl + "/score").contentType(MediaType.APPLICATION_JSON)
                        .body(Map.of("orderId", orderId)).retrieve().toBodilessEntity();
            }
            Map<String, Object> charge = asyncPayment ? chargeOnItsOwnThread(reservation) : charge(reservation);
            Map<String, Object> placed = new LinkedHashMap<>();
            placed.put("orderId", orderId);
            placed.put("reservationId", reservation.get("reservationId"));
            placed.put("chargeId", charge.get("chargeId"));
            placed.put("status", "PLACED");
            placedOrdersTable.record(orderId, sku, qty.intValue(), charge.get("chargeId"));
            if (countStopsAfter <= 0 || placedOrders.incrementAndGet() <= countStopsAfter) {
                ordersCreated.increment();
            }
            return ResponseEntity.status(HttpStatus.CREATED).body(placed);
        } catch (RestClientException e) {
            return ResponseEntity.status(HttpStatus.BAD_GATEWAY).body(Map.of("error", "payment failed: " + e.getMessage()));
        } catch (software.amazon.awssdk.core.exception.SdkException e) {
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                    .body(Map.of("error", "the order could not be recorded: " + e.getMessage()));
        }
    }

    private Map<String, Object> charge(Map<String, Object> reservation) {
        return payment.post().uri("/charge").contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("reservationId", reservation.get("reservationId"), "amountCents", reservation.get("amountCents")))
                .retrieve().body(JSON);
    }

    /** The charge on a plain thread started for it (variant {@code SHOP_ASYNC_PAYMENT=1}), waited for. */
    private Map<String, Object> chargeOnItsOwnThread(Map<String, Object> reservation) {
        var result = new java.util.concurrent.CompletableFuture<Map<String, Object>>();
        new Thread(() -> {
            try {
                result.complete(charge(reservation));
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        }, "charge").start();
        try {
            return result.join();
        } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof RestClientException r ? r : new RestClientException("charge failed", e.getCause());
        }
    }

    private static ResponseEntity<Map<String, Object>> shed(String reason) {
        return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS).header("Retry-After", "1")
                .body(Map.of("error", "shed: " + reason));
    }

    private static ResponseEntity<Map<String, Object>> degraded(String orderId, String reason) {
        return ResponseEntity.ok(Map.of("orderId", orderId, "status", "ACCEPTED", "degraded", true, "reason", reason));
    }
}
