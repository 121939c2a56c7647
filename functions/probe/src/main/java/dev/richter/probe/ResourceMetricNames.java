package dev.richter.probe;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;

/**
 * Which scraped series give a module's resource metrics. Each field is a selector
 * {@code metric_name{label="value",...}}; all samples matching the name and every given label are
 * summed (e.g. heap = the sum over heap pools). Samples that are NaN, infinite or negative
 * (Micrometer reports an undefined max as {@code -1}) are ignored.
 *
 * <p>Defaults are Micrometer / Spring Boot Actuator names (Actuator's {@code /actuator/prometheus}).
 *
 * @param cpuUsage          ratio 0..1 of CPU in use; default {@code process_cpu_usage}
 * @param heapUsed          bytes of heap in use; default {@code jvm_memory_used_bytes{area="heap"}}
 * @param heapMax           bytes of heap available; default {@code jvm_memory_max_bytes{area="heap"}}
 * @param connectionsActive connections checked out of the pool; default {@code hikaricp_connections_active}
 * @param connectionsMax    pool size limit; default {@code hikaricp_connections_max}
 */
public record ResourceMetricNames(String cpuUsage, String heapUsed, String heapMax,
                                  String connectionsActive, String connectionsMax) {
    /** Output key: CPU in use, 0..1. */
    public static final String CPU_RATIO = "cpuRatio";
    /** Output key: heap used / heap max, 0..1. */
    public static final String HEAP_USED_RATIO = "heapUsedRatio";
    /** Output key: active pool connections / pool max, 0..1. */
    public static final String CONNECTIONS_IN_USE_RATIO = "connectionsInUseRatio";
    /** Output key: active pool connections (count). */
    public static final String CONNECTIONS_ACTIVE = "connectionsActive";

    public ResourceMetricNames {
        ResourceMetricNames d = DEFAULTS;
        if (d != null) {
            cpuUsage = blankTo(cpuUsage, d.cpuUsage);
            heapUsed = blankTo(heapUsed, d.heapUsed);
            heapMax = blankTo(heapMax, d.heapMax);
            connectionsActive = blankTo(connectionsActive, d.connectionsActive);
            connectionsMax = blankTo(connectionsMax, d.connectionsMax);
        }
    }

    private static final ResourceMetricNames DEFAULTS = new ResourceMetricNames(
            "process_cpu_usage", "jvm_memory_used_bytes{area=\"heap\"}", "jvm_memory_max_bytes{area=\"heap\"}",
            "hikaricp_connections_active", "hikaricp_connections_max");

    /** Micrometer / Actuator defaults. */
    public static ResourceMetricNames defaults() {
        return DEFAULTS;
    }

    private static String blankTo(String v, String fallback) {
        return v == null || v.isBlank() ? fallback : v;
    }

    /**
     * Extracts the resource metrics present in {@code samples}: {@value #CPU_RATIO},
     * {@value #HEAP_USED_RATIO}, {@value #CONNECTIONS_IN_USE_RATIO}, {@value #CONNECTIONS_ACTIVE}.
     * A ratio is absent when its series are absent or its denominator is not positive.
     *
     * @throws IllegalArgumentException when a selector is malformed
     */
    public Map<String, Double> extract(List<MetricSample> samples) {
        Map<String, Double> out = new LinkedHashMap<>();
        sum(samples, cpuUsage).ifPresent(v -> out.put(CPU_RATIO, v));
        ratio(samples, heapUsed, heapMax).ifPresent(v -> out.put(HEAP_USED_RATIO, v));
        var active = sum(samples, connectionsActive);
        active.ifPresent(v -> out.put(CONNECTIONS_ACTIVE, v));
        ratio(samples, connectionsActive, connectionsMax).ifPresent(v -> out.put(CONNECTIONS_IN_USE_RATIO, v));
        return out;
    }

    private static Optional<Double> ratio(List<MetricSample> samples, String num, String den) {
        var n = sum(samples, num);
        var d = sum(samples, den);
        if (n.isEmpty() || d.isEmpty() || d.get() <= 0) return Optional.empty();
        return Optional.of(n.get() / d.get());
    }

    private static Optional<Double> sum(List<MetricSample> samples, String selector) {
        Selector sel = Selector.parse(selector);
        double total = 0;
        boolean found = false;
        for (MetricSample s : samples) {
            if (!s.name().equals(sel.name())) continue;
            boolean match = true;
            for (var e : sel.labels().entrySet()) {
                if (!e.getValue().equals(s.labels().get(e.getKey()))) {
                    match = false;
                    break;
                }
            }
            if (!match || Double.isNaN(s.value()) || Double.isInfinite(s.value()) || s.value() < 0) continue;
            total += s.value();
            found = true;
        }
        return found ? Optional.of(total) : Optional.empty();
    }

    /** A parsed selector, using the exposition parser for its label syntax. */
    private record Selector(String name, Map<String, String> labels) {
        static Selector parse(String selector) {
            try {
                MetricSample s = PrometheusTextParser.parseStrict(selector + " 0").samples().getFirst();
                return new Selector(s.name(), s.labels());
            } catch (PrometheusParseException | NoSuchElementException e) {
                throw new IllegalArgumentException("bad metric selector '" + selector + "': " + e.getMessage(), e);
            }
        }
    }
}
