package dev.richter.report;

/**
 * One probe round's reading of a circuit breaker's not-permitted counter, as the fault decider stored it with the
 * round's evidence (the probe metric {@code breakerNotPermitted:<name>}, from Resilience4j's
 * {@code resilience4j_circuitbreaker_not_permitted_calls_total}).
 *
 * @param module       the module whose scrape showed it
 * @param atMs         the round's time, epoch ms
 * @param breaker      the breaker's name
 * @param notPermitted calls it had not permitted since its JVM started
 */
public record BreakerCount(String module, long atMs, String breaker, double notPermitted) {
    /** The probe metric's key prefix ({@code ResilienceMetrics.BREAKER_NOT_PERMITTED}). */
    public static final String KEY_PREFIX = "breakerNotPermitted:";
}
