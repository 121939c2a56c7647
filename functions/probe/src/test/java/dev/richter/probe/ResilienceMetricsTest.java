package dev.richter.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.bulkhead.BulkheadRegistry;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedBulkheadMetrics;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.github.resilience4j.micrometer.tagged.TaggedRateLimiterMetrics;
import io.github.resilience4j.ratelimiter.RateLimiterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The series as Resilience4j's own Micrometer binders write them, scraped from Micrometer's Prometheus registry (what
 * a Spring Boot service's {@code /actuator/prometheus} serves), in both exposition formats.
 */
class ResilienceMetricsTest {
    static final String TEXT = "text/plain;version=0.0.4";
    static final String OPENMETRICS = "application/openmetrics-text;version=1.0.0";

    record Policies(PrometheusMeterRegistry registry, CircuitBreakerRegistry breakers, BulkheadRegistry bulkheads) {}

    static Policies policies() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        CircuitBreakerRegistry breakers = CircuitBreakerRegistry.ofDefaults();
        breakers.circuitBreaker("inventory");
        breakers.circuitBreaker("payment");
        BulkheadRegistry bulkheads = BulkheadRegistry.of(BulkheadConfig.custom().maxConcurrentCalls(16).build());
        bulkheads.bulkhead("orders");
        RateLimiterRegistry limiters = RateLimiterRegistry.ofDefaults();
        limiters.rateLimiter("orders");
        TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(breakers).bindTo(registry);
        TaggedBulkheadMetrics.ofBulkheadRegistry(bulkheads).bindTo(registry);
        TaggedRateLimiterMetrics.ofRateLimiterRegistry(limiters).bindTo(registry);
        return new Policies(registry, breakers, bulkheads);
    }

    static Map<String, Double> scraped(Policies p, String format) throws Exception {
        return ResilienceMetrics.extract(PrometheusTextParser.parse(p.registry().scrape(format)).samples());
    }

    @Test
    void closedBreakersAnIdleBulkheadAndNoWaitersReadAsSuch() throws Exception {
        for (String format : new String[] {TEXT, OPENMETRICS}) {
            Map<String, Double> m = scraped(policies(), format);
            assertEquals(Map.of("breakerOpen:inventory", 0.0, "breakerOpen:payment", 0.0, "bulkheadInUse:orders", 0.0,
                    "rateLimiterWaiting:orders", 0.0, "breakerNotPermitted:inventory", 0.0, "breakerNotPermitted:payment", 0.0),
                    m, format);
        }
    }

    @Test
    void aBreakerOpenedOrForcedOpenIsOneAndABulkheadInUseIsItsShare() throws Exception {
        for (String format : new String[] {TEXT, OPENMETRICS}) {
            Policies p = policies();
            p.breakers().circuitBreaker("inventory").transitionToForcedOpenState();
            p.breakers().circuitBreaker("payment").transitionToOpenState();
            Bulkhead orders = p.bulkheads().bulkhead("orders");
            for (int i = 0; i < 4; i++) {
                assertTrue(orders.tryAcquirePermission());
            }
            Map<String, Double> m = scraped(p, format);
            assertEquals(1.0, m.get("breakerOpen:inventory"), format + " " + m);
            assertEquals(1.0, m.get("breakerOpen:payment"), format + " " + m);
            assertEquals(0.25, m.get("bulkheadInUse:orders"), 1e-9, format + " " + m);
            p.breakers().circuitBreaker("payment").transitionToHalfOpenState();
            assertEquals(0.0, scraped(p, format).get("breakerOpen:payment"), "half open lets calls through");
        }
    }

    @Test
    void theCallsAnOpenBreakerDidNotPermitAreCounted() throws Exception {
        for (String format : new String[] {TEXT, OPENMETRICS}) {
            Policies p = policies();
            var inventory = p.breakers().circuitBreaker("inventory");
            inventory.transitionToOpenState();   // as after its failure threshold (a forced open state counts nothing)
            int fallbacks = 0;
            for (int i = 0; i < 7; i++) {
                try {
                    inventory.executeSupplier(() -> "stock");
                } catch (io.github.resilience4j.circuitbreaker.CallNotPermittedException notPermitted) {
                    fallbacks++;   // where a service's fallback answers instead
                }
            }
            assertEquals(7, fallbacks);
            Map<String, Double> m = scraped(p, format);
            assertEquals(7.0, m.get("breakerNotPermitted:inventory"), format + " " + m);
            assertEquals(0.0, m.get("breakerNotPermitted:payment"), format + " " + m);
        }
    }

    @Test
    void noResilienceSeriesGiveNoKeysAtAll() throws Exception {
        assertEquals(Map.of(), ResilienceMetrics.extract(PrometheusTextParser.parse(
                "# TYPE process_cpu_usage gauge\nprocess_cpu_usage 0.5\nresilience4j_circuitbreaker_state{name=\"x\",state=\"open\"} NaN\n")
                .samples()));
    }
}
