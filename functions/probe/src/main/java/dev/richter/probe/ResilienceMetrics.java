package dev.richter.probe;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A module's own resilience policies as probe metrics, from the series Resilience4j publishes through Micrometer
 * ({@code resilience4j-micrometer}'s {@code TaggedCircuitBreakerMetrics}, {@code TaggedBulkheadMetrics},
 * {@code TaggedRateLimiterMetrics}; Spring Boot's {@code /actuator/prometheus} exposes them with these names):
 * <ul>
 *   <li>{@code resilience4j_circuitbreaker_state{name, state}}: 1 for the breaker's current state, 0 for the others
 *       ({@code closed}, {@code open}, {@code half_open}, {@code forced_open}, {@code disabled}, {@code metrics_only});</li>
 *   <li>{@code resilience4j_circuitbreaker_not_permitted_calls_total{name, kind="not_permitted"}}: the calls the
 *       breaker did not let through since the JVM started (a counter), each answered by the fallback or failed at
 *       once;</li>
 *   <li>{@code resilience4j_bulkhead_available_concurrent_calls{name}} and
 *       {@code resilience4j_bulkhead_max_allowed_concurrent_calls{name}};</li>
 *   <li>{@code resilience4j_ratelimiter_available_permissions{name}} and
 *       {@code resilience4j_ratelimiter_waiting_threads{name}}.</li>
 * </ul>
 *
 * <p>Output keys, one per named policy: {@value #BREAKER_OPEN}{@code <name>} (1 when the breaker is {@code open} or
 * {@code forced_open}: calls are not permitted and the fallback answers; 0 otherwise), {@value #BULKHEAD_IN_USE}
 * {@code <name>} (1 − available / max, 0..1), {@value #RATE_LIMITER_WAITING}{@code <name>} (threads waiting for a
 * permission), {@value #BREAKER_NOT_PERMITTED}{@code <name>} (the counter as scraped; the report takes its increase over
 * each step as the answers a fallback gave). A series that is absent, NaN or negative gives no key: missing evidence,
 * never a closed breaker.
 */
public final class ResilienceMetrics {
    /** Key prefix: a circuit breaker not permitting calls (1) or permitting them (0). */
    public static final String BREAKER_OPEN = "breakerOpen:";
    /** Key prefix: calls a circuit breaker did not permit since its JVM started (a counter). */
    public static final String BREAKER_NOT_PERMITTED = "breakerNotPermitted:";
    /** Key prefix: share of a bulkhead's concurrent calls in use, 0..1. */
    public static final String BULKHEAD_IN_USE = "bulkheadInUse:";
    /** Key prefix: threads waiting for a rate limiter's permission. */
    public static final String RATE_LIMITER_WAITING = "rateLimiterWaiting:";

    private ResilienceMetrics() {}

    /** The resilience metrics present in {@code samples}, keyed as the class says, in name order. */
    public static Map<String, Double> extract(List<MetricSample> samples) {
        Map<String, Double> out = new TreeMap<>();
        Map<String, double[]> bulkheads = new LinkedHashMap<>();
        for (MetricSample s : samples) {
            String name = s.labels().get("name");
            if (name == null || Double.isNaN(s.value()) || Double.isInfinite(s.value()) || s.value() < 0) {
                continue;
            }
            switch (s.name()) {
                case "resilience4j_circuitbreaker_state" -> {
                    String state = s.labels().getOrDefault("state", "");
                    if (s.value() >= 1) {
                        out.put(BREAKER_OPEN + name, state.equals("open") || state.equals("forced_open") ? 1.0 : 0.0);
                    }
                }
                case "resilience4j_bulkhead_available_concurrent_calls" ->
                        bulkheads.computeIfAbsent(name, k -> new double[] {-1, -1})[0] = s.value();
                case "resilience4j_bulkhead_max_allowed_concurrent_calls" ->
                        bulkheads.computeIfAbsent(name, k -> new double[] {-1, -1})[1] = s.value();
                case "resilience4j_ratelimiter_waiting_threads" -> out.put(RATE_LIMITER_WAITING + name, s.value());
                case "resilience4j_circuitbreaker_not_permitted_calls_total", "resilience4j_circuitbreaker_not_permitted_calls" ->
                        out.merge(BREAKER_NOT_PERMITTED + name, s.value(), Double::sum);
                default -> { }
            }
        }
        bulkheads.forEach((name, v) -> {
            if (v[0] >= 0 && v[1] > 0) {
                out.put(BULKHEAD_IN_USE + name, Math.max(0, Math.min(1, 1 - v[0] / v[1])));
            }
        });
        return out;
    }
}
