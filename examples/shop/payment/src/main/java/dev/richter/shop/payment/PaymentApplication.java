package dev.richter.shop.payment;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The shop's external payment provider: the link's exit, outside the test scope. Every charge that reaches it is a
 * real charge: it counts them ({@code GET /admin/charges} → {@code {"charges": N, "scores": M}}, and the Micrometer counter
 * {@code payment_charges_total}), which is how the demo proves that no load-test charge got here.
 */
@SpringBootApplication
@RestController
public class PaymentApplication {
    private final AtomicLong charges = new AtomicLong();
    private final AtomicLong scores = new AtomicLong();
    private final Counter counter;

    public PaymentApplication(MeterRegistry registry) {
        this.counter = Counter.builder("payment.charges").description("charges that reached the provider").register(registry);
    }

    public static void main(String[] args) {
        SpringApplication.run(PaymentApplication.class, args);
    }

    /** {@code POST /charge {"reservationId", "amountCents"}} → 200 {@code {"chargeId"}}; 400 without an amount. */
    @PostMapping("/charge")
    public ResponseEntity<Map<String, Object>> charge(@RequestBody Map<String, Object> body) {
        if (!(body.get("amountCents") instanceof Number amount) || amount.longValue() <= 0) {
            return ResponseEntity.badRequest().body(Map.of("error", "amountCents: a positive number is required"));
        }
        charges.incrementAndGet();
        counter.increment();
        return ResponseEntity.ok(Map.of("chargeId", "ch-" + UUID.randomUUID()));
    }

    /**
     * {@code POST /score {"orderId"}} → 200 {@code {"score": 0}}: the provider's fraud scorer, the exit that the
     * variant {@code SHOP_FRAUD_URL} adds to order without a mock; counted like the charges.
     */
    @PostMapping("/score")
    public Map<String, Object> score(@RequestBody Map<String, Object> body) {
        scores.incrementAndGet();
        return Map.of("score", 0);
    }

    /** {@code GET /admin/charges} → {@code {"charges": N, "scores": M}}: every charge and fraud score since start. */
    @GetMapping("/admin/charges")
    public Map<String, Object> charges() {
        return Map.of("charges", charges.get(), "scores", scores.get());
    }
}
