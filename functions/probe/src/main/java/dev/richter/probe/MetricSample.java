package dev.richter.probe;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * One sample line of a Prometheus text / OpenMetrics exposition.
 *
 * @param name        metric name as written, including suffixes such as {@code _bucket}, {@code _total}
 * @param labels      label name to unescaped value, in written order
 * @param value       sample value; may be {@code NaN} or ±{@code Infinity}
 * @param timestampMs epoch milliseconds when the line carries a timestamp (text format: integer ms;
 *                    OpenMetrics: float seconds, converted), {@link Long#MIN_VALUE} when absent
 * @param lineNumber  1-based line number in the exposition
 */
public record MetricSample(String name, Map<String, String> labels, double value, long timestampMs, int lineNumber) {
    public MetricSample {
        labels = labels == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(labels));
    }

    /** The timestamp when present. */
    public OptionalLong timestamp() {
        return timestampMs == Long.MIN_VALUE ? OptionalLong.empty() : OptionalLong.of(timestampMs);
    }
}
