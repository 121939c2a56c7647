package dev.richter.probe;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.stream.Stream;

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
 * @param hostCpuUsage      ratio 0..1 of the whole host's CPU in use (all processes); default {@code system_cpu_usage}
 * @param connectionsPending threads waiting for a pool connection (count); default {@code hikaricp_connections_pending}
 * @param gcPauseSeconds    cumulative seconds the JVM spent in GC pauses since start (a counter; the decider turns
 *                          the rise between two rounds into a fraction of wall time); default {@code jvm_gc_pause_seconds_sum}
 * @param serverThreadsBusy request threads busy in the web server; default {@code tomcat_threads_busy_threads}
 * @param serverThreadsMax  request thread limit of the web server; default {@code tomcat_threads_config_max_threads}
 * @param jettyThreadsBusy  Jetty's busy threads; default {@code jetty_threads_busy}
 * @param jettyThreadsMax   Jetty's thread limit; default {@code jetty_threads_config_max}
 * @param executorActive    threads running tasks in instrumented executors; default {@code executor_active_threads}
 * @param executorMax       their thread limit; default {@code executor_pool_max_threads}
 * @param executorQueued    tasks waiting in their queues (count); default {@code executor_queued_tasks}
 */
public record ResourceMetricNames(String cpuUsage, String heapUsed, String heapMax,
                                  String connectionsActive, String connectionsMax, String hostCpuUsage,
                                  String connectionsPending, String gcPauseSeconds, String serverThreadsBusy,
                                  String serverThreadsMax, String jettyThreadsBusy, String jettyThreadsMax,
                                  String executorActive, String executorMax, String executorQueued) {
    /** Output key: CPU in use, 0..1. */
    public static final String CPU_RATIO = "cpuRatio";
    /** Output key: heap used / heap max, 0..1. */
    public static final String HEAP_USED_RATIO = "heapUsedRatio";
    /** Output key: active pool connections / pool max, 0..1. */
    public static final String CONNECTIONS_IN_USE_RATIO = "connectionsInUseRatio";
    /** Output key: active pool connections (count). */
    public static final String CONNECTIONS_ACTIVE = "connectionsActive";
    /** Output key: the host's CPU in use (every process), 0..1. */
    public static final String HOST_CPU_RATIO = "hostCpuRatio";
    /** Output key: threads waiting for a pool connection (count). */
    public static final String CONNECTIONS_PENDING = "connectionsPending";
    /** Output key: cumulative GC pause seconds since the JVM started (a counter, not a rate). */
    public static final String GC_PAUSE_SECONDS = "gcPauseSeconds";
    /** Output key: the fullest thread pool's busy / max, 0..1 (web server or instrumented executor). */
    public static final String THREAD_POOL_IN_USE_RATIO = "threadPoolInUseRatio";
    /** Output key: tasks queued in instrumented executors (count). */
    public static final String EXECUTOR_QUEUED_TASKS = "executorQueuedTasks";

    /** The first five selectors; the saturation selectors take their defaults. */
    public ResourceMetricNames(String cpuUsage, String heapUsed, String heapMax, String connectionsActive,
                               String connectionsMax) {
        this(cpuUsage, heapUsed, heapMax, connectionsActive, connectionsMax, null, null, null, null, null, null, null,
                null, null, null);
    }

    public ResourceMetricNames {
        ResourceMetricNames d = DEFAULTS;
        if (d != null) {
            cpuUsage = blankTo(cpuUsage, d.cpuUsage);
            heapUsed = blankTo(heapUsed, d.heapUsed);
            heapMax = blankTo(heapMax, d.heapMax);
            connectionsActive = blankTo(connectionsActive, d.connectionsActive);
            connectionsMax = blankTo(connectionsMax, d.connectionsMax);
            hostCpuUsage = blankTo(hostCpuUsage, d.hostCpuUsage);
            connectionsPending = blankTo(connectionsPending, d.connectionsPending);
            gcPauseSeconds = blankTo(gcPauseSeconds, d.gcPauseSeconds);
            serverThreadsBusy = blankTo(serverThreadsBusy, d.serverThreadsBusy);
            serverThreadsMax = blankTo(serverThreadsMax, d.serverThreadsMax);
            jettyThreadsBusy = blankTo(jettyThreadsBusy, d.jettyThreadsBusy);
            jettyThreadsMax = blankTo(jettyThreadsMax, d.jettyThreadsMax);
            executorActive = blankTo(executorActive, d.executorActive);
            executorMax = blankTo(executorMax, d.executorMax);
            executorQueued = blankTo(executorQueued, d.executorQueued);
        }
    }

    private static final ResourceMetricNames DEFAULTS = new ResourceMetricNames(
            "process_cpu_usage", "jvm_memory_used_bytes{area=\"heap\"}", "jvm_memory_max_bytes{area=\"heap\"}",
            "hikaricp_connections_active", "hikaricp_connections_max", "system_cpu_usage",
            "hikaricp_connections_pending", "jvm_gc_pause_seconds_sum", "tomcat_threads_busy_threads",
            "tomcat_threads_config_max_threads", "jetty_threads_busy", "jetty_threads_config_max",
            "executor_active_threads", "executor_pool_max_threads", "executor_queued_tasks");

    /** Micrometer / Actuator defaults. */
    public static ResourceMetricNames defaults() {
        return DEFAULTS;
    }

    private static String blankTo(String v, String fallback) {
        return v == null || v.isBlank() ? fallback : v;
    }

    /**
     * Extracts the resource metrics present in {@code samples}: {@value #CPU_RATIO},
     * {@value #HEAP_USED_RATIO}, {@value #CONNECTIONS_IN_USE_RATIO}, {@value #CONNECTIONS_ACTIVE}, and the saturation
     * series {@value #HOST_CPU_RATIO}, {@value #CONNECTIONS_PENDING}, {@value #GC_PAUSE_SECONDS} (the raw counter),
     * {@value #THREAD_POOL_IN_USE_RATIO} (the largest of the web server's, Jetty's and the executors' busy / max),
     * {@value #EXECUTOR_QUEUED_TASKS}. A key is absent when its series are absent (never 0), a ratio also when its
     * denominator is not positive.
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
        sum(samples, hostCpuUsage).ifPresent(v -> out.put(HOST_CPU_RATIO, v));
        sum(samples, connectionsPending).ifPresent(v -> out.put(CONNECTIONS_PENDING, v));
        sum(samples, gcPauseSeconds).ifPresent(v -> out.put(GC_PAUSE_SECONDS, v));
        Stream.of(ratio(samples, serverThreadsBusy, serverThreadsMax),
                        ratio(samples, jettyThreadsBusy, jettyThreadsMax), ratio(samples, executorActive, executorMax))
                .flatMap(Optional::stream).max(Double::compare).ifPresent(v -> out.put(THREAD_POOL_IN_USE_RATIO, v));
        sum(samples, executorQueued).ifPresent(v -> out.put(EXECUTOR_QUEUED_TASKS, v));
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
