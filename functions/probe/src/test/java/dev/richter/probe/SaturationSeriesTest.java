package dev.richter.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.metrics.PoolStats;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ExecutorServiceMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * The saturation series read from real Micrometer output: a {@link PrometheusMeterRegistry} (the registry
 * behind Boot's {@code /actuator/prometheus}) scraped as Prometheus text (Boot 3's default) and as OpenMetrics
 * (Boot 4 answers that to an OpenMetrics Accept), with HikariCP's own Micrometer tracker, Micrometer's
 * {@link ExecutorServiceMetrics} over a real pool, and the meter names and tags of Micrometer's
 * {@code ProcessorMetrics}, {@code JvmGcMetrics} and {@code TomcatMetrics}.
 */
class SaturationSeriesTest {
    private static final String OPEN_METRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    private static final String TEXT = "text/plain; version=0.0.4; charset=utf-8";

    @ParameterizedTest
    @ValueSource(strings = {TEXT, OPEN_METRICS})
    void extractsEverySaturationSeriesFromMicrometer(String contentType) throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        // ProcessorMetrics' meters, fixed values so the expected figures are known
        Gauge.builder("system.cpu.usage", () -> 0.97).register(registry);
        Gauge.builder("process.cpu.usage", () -> 0.41).register(registry);
        // HikariCP's tracker: 10 max, 10 active, 7 threads waiting. Its gauges hold the pool's statistics weakly (as
        // Micrometer's gauges of an object do), so the test keeps them reachable until the scrape (the fence below),
        // as a running pool does
        PoolStats poolStats = new PoolStats(0) {
            @Override
            protected void update() {
                totalConnections = 10;
                activeConnections = 10;
                idleConnections = 0;
                pendingThreads = 7;
                maxConnections = 10;
                minConnections = 10;
            }
        };
        new MicrometerMetricsTrackerFactory(registry).create("HikariPool-1", poolStats);
        // JvmGcMetrics' pause timer: two collections of 0.25 s and 0.5 s
        Timer.builder("jvm.gc.pause").tags("action", "end of minor GC", "cause", "G1 Evacuation Pause", "gc", "G1 Young Generation")
                .register(registry).record(Duration.ofMillis(250));
        Timer.builder("jvm.gc.pause").tags("action", "end of major GC", "cause", "System.gc()", "gc", "G1 Old Generation")
                .register(registry).record(Duration.ofMillis(500));
        // TomcatMetrics' thread gauges: 150 of 200 busy
        Gauge.builder("tomcat.threads.busy", () -> 150).tags("name", "http-nio-8080").baseUnit("threads").register(registry);
        Gauge.builder("tomcat.threads.config.max", () -> 200).tags("name", "http-nio-8080").baseUnit("threads").register(registry);
        // a real executor: 2 core threads of at most 4 busy, one task queued
        ThreadPoolExecutor pool = new ThreadPoolExecutor(2, 4, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>());
        ExecutorService monitored = ExecutorServiceMetrics.monitor(registry, pool, "work");
        CountDownLatch started = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        try {
            for (int i = 0; i < 3; i++) {
                monitored.submit(() -> {
                    started.countDown();
                    release.await();
                    return null;
                });
            }
            assertTrue(started.await(30, TimeUnit.SECONDS));
            System.gc();   // a collection before the scrape, as a running service has them: weak gauges must survive it
            String body = registry.scrape(contentType);
            java.lang.ref.Reference.reachabilityFence(poolStats);

            Map<String, Double> m = ResourceMetricNames.defaults().extract(PrometheusTextParser.parse(body).samples());

            assertEquals(0.97, m.get(ResourceMetricNames.HOST_CPU_RATIO), 1e-9);
            assertEquals(0.41, m.get(ResourceMetricNames.CPU_RATIO), 1e-9);
            assertEquals(7.0, m.get(ResourceMetricNames.CONNECTIONS_PENDING), 1e-9);
            assertEquals(1.0, m.get(ResourceMetricNames.CONNECTIONS_IN_USE_RATIO), 1e-9);
            assertEquals(0.75, m.get(ResourceMetricNames.GC_PAUSE_SECONDS), 1e-9, "both collectors' pause sums");
            assertEquals(150.0 / 200, m.get(ResourceMetricNames.THREAD_POOL_IN_USE_RATIO), 1e-9,
                    "Tomcat's 0.75 is fuller than the executor's 2 / 4");
            assertEquals(1.0, m.get(ResourceMetricNames.EXECUTOR_QUEUED_TASKS), 1e-9);
        } finally {
            release.countDown();
            pool.shutdownNow();
        }
    }

    @Test
    void absentSeriesAreAbsentNotZero() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Gauge.builder("process.cpu.usage", () -> 0.2).register(registry);

        Map<String, Double> m = ResourceMetricNames.defaults()
                .extract(PrometheusTextParser.parse(registry.scrape(OPEN_METRICS)).samples());

        assertEquals(Map.of(ResourceMetricNames.CPU_RATIO, 0.2), m);
        for (String key : List.of(ResourceMetricNames.HOST_CPU_RATIO, ResourceMetricNames.CONNECTIONS_PENDING,
                ResourceMetricNames.GC_PAUSE_SECONDS, ResourceMetricNames.THREAD_POOL_IN_USE_RATIO)) {
            assertFalse(m.containsKey(key), key);
        }
    }

    @Test
    void executorThreadsCountWhenNoWebServerPoolIsScraped() {
        var samples = PrometheusTextParser.parse("""
                executor_active_threads{name="a"} 3
                executor_pool_max_threads{name="a"} 4
                jetty_threads_busy 1
                jetty_threads_config_max 8
                """).samples();

        assertEquals(0.75, ResourceMetricNames.defaults().extract(samples).get(ResourceMetricNames.THREAD_POOL_IN_USE_RATIO), 1e-9);
    }
}
