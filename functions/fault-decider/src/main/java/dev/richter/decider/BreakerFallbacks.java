package dev.richter.decider;

import dev.richter.common.model.HealthReport;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The answers a module's circuit breakers gave by their fallback, per second, from the probe's readings of
 * Resilience4j's not-permitted counters ({@code breakerNotPermitted:<name>}, the probe's {@code ResilienceMetrics}
 * from {@code resilience4j_circuitbreaker_not_permitted_calls_total}). A fallback answers 200 with a stand-in for
 * the work, so the load driver counts it as a success unless the plan's checks catch it: these counts let the abort
 * policy's error rate count it as the report's success rate does ({@code Fallbacks} in the report).
 *
 * <p>Each round, the increase of each breaker's counter since the previous round is the fallbacks in between; the
 * module's figure is the largest breaker's increase (one request passing two breakers of the module is one fallback),
 * spread over the seconds between the two readings in proportion to their overlap. A counter that fell (the JVM
 * restarted) counts from 0. The first reading of a breaker only sets its start. Attribution to seconds the load
 * driver has not flushed yet is kept until they are: the newest {@value #KEEP_S} seconds are kept.
 *
 * <p>A breaker counts every caller of its JVM, so on a service shared with production the figure can include
 * production calls: the abort policy then counts more failures than the load met, and stops sooner, never later.
 *
 * @param lastReading  each breaker's counter at the last round
 * @param lastReadAtMs epoch ms of the last round's reading, 0 before the first
 * @param bySecond     fallbacks attributed to each epoch second
 */
public record BreakerFallbacks(Map<String, Double> lastReading, long lastReadAtMs, TreeMap<Long, Double> bySecond) {
    /** Seconds of attribution kept, newest first. */
    public static final int KEEP_S = 120;
    /** The probe metric key prefix of a breaker's not-permitted counter. */
    public static final String KEY_PREFIX = "breakerNotPermitted:";

    public BreakerFallbacks {
        lastReading = lastReading == null ? Map.of() : Map.copyOf(lastReading);
        bySecond = bySecond == null ? new TreeMap<>() : new TreeMap<>(bySecond);
    }

    /** No reading yet. */
    public static BreakerFallbacks empty() {
        return new BreakerFallbacks(Map.of(), 0, new TreeMap<>());
    }

    /**
     * The state after a round whose probe reports of this module were {@code probes}, read at {@code nowMs}.
     * Reports without breaker counters leave the state as it is (missing evidence, not zero fallbacks).
     */
    public BreakerFallbacks next(List<HealthReport> probes, long nowMs) {
        Map<String, Double> reading = new TreeMap<>();
        for (HealthReport r : probes) {
            r.metrics().forEach((k, v) -> {
                if (k.startsWith(KEY_PREFIX) && v != null && !v.isNaN() && v >= 0) {
                    reading.merge(k.substring(KEY_PREFIX.length()), v, Math::max);
                }
            });
        }
        if (reading.isEmpty()) {
            return this;
        }
        double increase = 0;
        for (var e : reading.entrySet()) {
            Double before = lastReading.get(e.getKey());
            if (before != null) {
                increase = Math.max(increase, e.getValue() >= before ? e.getValue() - before : e.getValue());
            }
        }
        TreeMap<Long, Double> next = new TreeMap<>(bySecond);
        if (increase > 0 && lastReadAtMs > 0 && nowMs > lastReadAtMs) {
            double perMs = increase / (nowMs - lastReadAtMs);
            for (long s = Math.floorDiv(lastReadAtMs, 1000); s * 1000 < nowMs; s++) {
                long overlap = Math.min(nowMs, (s + 1) * 1000) - Math.max(lastReadAtMs, s * 1000);
                if (overlap > 0) {
                    next.merge(s, perMs * overlap, Double::sum);
                }
            }
        }
        next.headMap(Math.floorDiv(nowMs, 1000) - KEEP_S).clear();
        Map<String, Double> readings = new TreeMap<>(lastReading);
        readings.putAll(reading);
        return new BreakerFallbacks(readings, nowMs, next);
    }

    /** Fallbacks attributed to an epoch second, 0 when none. */
    public double at(long epochSecond) {
        return bySecond.getOrDefault(epochSecond, 0.0);
    }
}
