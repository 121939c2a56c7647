package dev.richter.probe;

import dev.richter.common.tls.TlsTrust;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.net.URI;

/**
 * One thing to probe in a round, chosen by {@code kind} in the event JSON. The set is closed:
 * {@code http}, {@code tcp}, {@code grpc}, {@code prometheus} (the module's own endpoints) and {@code promql},
 * {@code alertmanager} (the team's own evidence sources: {@link dev.richter.common.model.EvidenceSources});
 * {@link Probes} switches over it.
 *
 * <p>Every target carries its own deadline ({@code timeoutMs}, default {@value #DEFAULT_TIMEOUT_MS} ms
 * when absent or not positive); the probe reports {@code TIMEOUT} when it is exceeded.
 *
 * <p>TLS: {@code http} and {@code prometheus} targets use TLS when their {@code url} is {@code https://};
 * {@code grpc} targets when {@code tls} is true. The server certificate is checked against the system
 * trust store, or, when the target has a {@code caPem} (PEM text of one or more CA certificates, so the
 * target JSON stays self-contained), against exactly those CAs ({@link TlsTrust}). Hostname verification
 * is always on. Example: {@code {"kind":"grpc","module":"stock","host":"stock.internal","port":443,
 * "tls":true,"caPem":"-----BEGIN CERTIFICATE-----\nMIIB...\n-----END CERTIFICATE-----\n"}}.
 * A {@code caPem} that does not parse, or one given with an {@code http://} url, makes that target's
 * probe fail as {@code INVALID_TARGET} (see {@link Probes}); the round goes on.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "kind")
@JsonSubTypes({
        @JsonSubTypes.Type(value = ProbeTarget.Http.class, name = "http"),
        @JsonSubTypes.Type(value = ProbeTarget.Tcp.class, name = "tcp"),
        @JsonSubTypes.Type(value = ProbeTarget.Grpc.class, name = "grpc"),
        @JsonSubTypes.Type(value = ProbeTarget.Prometheus.class, name = "prometheus"),
        @JsonSubTypes.Type(value = ProbeTarget.PromQuery.class, name = ProbeTarget.PROMQL),
        @JsonSubTypes.Type(value = ProbeTarget.Alerts.class, name = ProbeTarget.ALERTMANAGER),
        @JsonSubTypes.Type(value = ProbeTarget.CloudWatchQuery.class, name = ProbeTarget.CLOUDWATCH_METRIC)})
public sealed interface ProbeTarget {
    /** Kind of a business metric read from a Prometheus query API. */
    String PROMQL = "promql";
    /** Kind of a business metric read from CloudWatch with {@code GetMetricData}. */
    String CLOUDWATCH_METRIC = "cloudwatch-metric";
    /** Kind of the active alerts of a module read from an Alertmanager. */
    String ALERTMANAGER = "alertmanager";

    /** Deadline used when a target gives none, milliseconds. */
    long DEFAULT_TIMEOUT_MS = 1000;

    /** Module (service) the observation belongs to, e.g. {@code order}. */
    String module();

    /** This probe's deadline, milliseconds (always positive). */
    long timeoutMs();

    /** The {@link dev.richter.common.model.HealthReport#kind()} this target produces. */
    String kind();

    /** Key of the endpoint for the per-target bulkhead, e.g. {@code 127.0.0.1:18081}. */
    String endpointKey();

    /**
     * True for the team's own evidence sources ({@code promql}, {@code alertmanager}, {@code cloudwatch-metric}): they
     * are not the module, so every failure to read one, a timeout or a full bulkhead included, is missing evidence.
     */
    default boolean teamEvidence() {
        return this instanceof PromQuery || this instanceof Alerts || this instanceof CloudWatchQuery;
    }

    private static long orDefault(long timeoutMs) {
        return timeoutMs > 0 ? timeoutMs : DEFAULT_TIMEOUT_MS;
    }

    private static String authority(String url) {
        try {
            URI u = URI.create(url);
            return u.getHost() + ":" + u.getPort();
        } catch (RuntimeException e) {
            return url;
        }
    }

    /**
     * HTTP GET of a health endpoint (Spring Boot Actuator or plain); the body decides, not only the status line.
     *
     * @param url   {@code http://} or {@code https://} URL of the endpoint
     * @param caPem PEM CA certificates trusted for an {@code https://} url; empty (the default) for the system trust store
     */
    record Http(String module, String url, long timeoutMs, String caPem) implements ProbeTarget {
        public Http {
            timeoutMs = orDefault(timeoutMs);
            caPem = caPem == null || caPem.isBlank() ? "" : caPem;
        }

        /** A target trusting the system trust store. */
        public Http(String module, String url, long timeoutMs) {
            this(module, url, timeoutMs, "");
        }

        @Override public String kind() { return "http"; }
        @Override public String endpointKey() { return authority(url); }
    }

    /** TCP connect to {@code host:port}; success once the handshake completes. */
    record Tcp(String module, String host, int port, long timeoutMs) implements ProbeTarget {
        public Tcp { timeoutMs = orDefault(timeoutMs); }
        @Override public String kind() { return "tcp"; }
        @Override public String endpointKey() { return host + ":" + port; }
    }

    /**
     * gRPC Health Checking Protocol ({@code grpc.health.v1.Health/Check}, grpc/grpc doc/health-checking.md).
     *
     * @param service the service name to ask about; empty means the server as a whole
     * @param tls     true for TLS (the server's certificate must match {@code host}), false (the default) for plaintext;
     *                a non-empty {@code caPem} implies true
     * @param caPem   PEM CA certificates trusted for TLS; empty (the default) for the system trust store
     */
    record Grpc(String module, String host, int port, String service, long timeoutMs, boolean tls, String caPem)
            implements ProbeTarget {
        public Grpc {
            service = service == null ? "" : service;
            timeoutMs = orDefault(timeoutMs);
            caPem = caPem == null || caPem.isBlank() ? "" : caPem;
            tls = tls || !caPem.isBlank();
        }

        /** A plaintext target. */
        public Grpc(String module, String host, int port, String service, long timeoutMs) {
            this(module, host, port, service, timeoutMs, false, "");
        }

        @Override public String kind() { return "grpc"; }
        @Override public String endpointKey() { return host + ":" + port; }
    }

    /**
     * Prometheus text / OpenMetrics scrape; resource metrics are extracted by {@code metricNames}
     * ({@link ResourceMetricNames#defaults()} when absent).
     *
     * @param url   {@code http://} or {@code https://} URL of the metrics endpoint
     * @param caPem PEM CA certificates trusted for an {@code https://} url; empty (the default) for the system trust store
     */
    record Prometheus(String module, String url, long timeoutMs, ResourceMetricNames metricNames, String caPem)
            implements ProbeTarget {
        public Prometheus {
            timeoutMs = orDefault(timeoutMs);
            metricNames = metricNames == null ? ResourceMetricNames.defaults() : metricNames;
            caPem = caPem == null || caPem.isBlank() ? "" : caPem;
        }

        /** A target trusting the system trust store. */
        public Prometheus(String module, String url, long timeoutMs, ResourceMetricNames metricNames) {
            this(module, url, timeoutMs, metricNames, "");
        }

        @Override public String kind() { return "prometheus"; }
        @Override public String endpointKey() { return authority(url); }
    }

    /**
     * A business metric: an instant query of a Prometheus HTTP API ({@code GET <url>/api/v1/query?query=<promql>}),
     * answered by one number ({@link PromQueryAnswer}).
     *
     * @param module the module the metric judges
     * @param url    the Prometheus server's base URL
     * @param name   the metric's name on the report
     * @param promql the query
     * @param expect what a good value is (the decider judges it)
     */
    record PromQuery(String module, String url, String name, String promql, long timeoutMs,
                     dev.richter.common.model.EvidenceSources.MetricExpectation expect) implements ProbeTarget {
        public PromQuery {
            timeoutMs = orDefault(timeoutMs);
            expect = expect == null ? new dev.richter.common.model.EvidenceSources.MetricExpectation(null, null, null, null, false) : expect;
        }

        @Override public String kind() { return PROMQL; }
        @Override public String endpointKey() { return authority(url); }
    }

    /**
     * The module's active alerts in an Alertmanager ({@code GET <url>/api/v2/alerts}, filtered by {@code matchers} and
     * {@code <moduleLabel>="<module>"}, active only: not silenced, not inhibited).
     *
     * @param module      the module whose alerts are asked for
     * @param url         the Alertmanager's base URL
     * @param source      the source's registered name
     * @param matchers    label equality matchers every alert must also have
     * @param moduleLabel the label naming the module
     */
    record Alerts(String module, String url, String source, java.util.Map<String, String> matchers, String moduleLabel,
                  long timeoutMs) implements ProbeTarget {
        public Alerts {
            timeoutMs = orDefault(timeoutMs);
            matchers = matchers == null ? java.util.Map.of() : new java.util.TreeMap<>(matchers);
            moduleLabel = moduleLabel == null || moduleLabel.isBlank() ? "service" : moduleLabel;
        }

        @Override public String kind() { return ALERTMANAGER; }
        @Override public String endpointKey() { return authority(url); }
    }

    /**
     * A business metric in CloudWatch ({@link CloudWatchMetricQuery}: {@code GetMetricData} over the last three periods).
     *
     * @param module     the module the metric judges
     * @param name       the metric's name on the report
     * @param region     the metric's region, empty for the function's own
     * @param namespace  e.g. {@code Shop}
     * @param metricName e.g. {@code OrdersCreated}
     * @param dimensions dimension name to value
     * @param stat       e.g. {@code Sum}
     * @param periodS    seconds
     * @param expect     what a good value is (the decider judges it)
     */
    record CloudWatchQuery(String module, String name, String region, String namespace, String metricName,
                            java.util.Map<String, String> dimensions, String stat, int periodS, long timeoutMs,
                            dev.richter.common.model.EvidenceSources.MetricExpectation expect) implements ProbeTarget {
        public CloudWatchQuery {
            region = region == null ? "" : region;
            dimensions = dimensions == null ? java.util.Map.of() : new java.util.TreeMap<>(dimensions);
            periodS = periodS > 0 ? periodS : 60;
            timeoutMs = orDefault(timeoutMs);
            expect = expect == null ? new dev.richter.common.model.EvidenceSources.MetricExpectation(null, null, null, null, false) : expect;
        }

        @Override public String kind() { return CLOUDWATCH_METRIC; }
        @Override public String endpointKey() { return "monitoring." + (region.isEmpty() ? "default" : region); }
    }
}
