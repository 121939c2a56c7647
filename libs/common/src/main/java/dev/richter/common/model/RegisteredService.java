package dev.richter.common.model;

import java.util.List;

/**
 * A service in a team's test scope (DESIGN.md §2).
 *
 * @param teamId         owning team
 * @param name           service name as it appears in traces ({@code service.name})
 * @param baseUrl        base URL load and probes go to, e.g. {@code http://127.0.0.1:18081}
 * @param healthPath     HTTP health path (Spring Boot Actuator format), e.g. {@code /actuator/health}
 * @param prometheusPath Prometheus scrape path, or null
 * @param datastores     datastores the service writes and their shadow targets
 * @param caPem          PEM of the CA certificate(s) that sign the service's TLS certificate, when it is not in the
 *                       system trust store (a private CA); null or empty means the system trust store. Used by the
 *                       HTTPS health and metrics probes and by the gRPC probe with {@code tls}
 * @param grpc           the gRPC Health Checking Protocol endpoint of the service, or null when it has none
 */
public record RegisteredService(String teamId, String name, String baseUrl, String healthPath, String prometheusPath,
                                List<Datastore> datastores, String caPem, GrpcHealth grpc) {
    public RegisteredService {
        datastores = datastores == null ? List.of() : List.copyOf(datastores);
        caPem = caPem == null || caPem.isBlank() ? null : caPem;
    }

    /** A service without TLS settings of its own or a gRPC health endpoint. */
    public RegisteredService(String teamId, String name, String baseUrl, String healthPath, String prometheusPath,
                             List<Datastore> datastores) {
        this(teamId, name, baseUrl, healthPath, prometheusPath, datastores, null, null);
    }

    /**
     * Where the service answers {@code grpc.health.v1.Health/Check} (on the host of {@code baseUrl}).
     *
     * @param port    TCP port, 1..65535
     * @param service the service name to check; empty for the server as a whole
     * @param tls     true to connect over TLS (trusting {@code caPem} or the system store)
     */
    public record GrpcHealth(int port, String service, boolean tls) {
        public GrpcHealth {
            service = service == null ? "" : service;
        }
    }

    /**
     * A datastore and where marked writes go.
     *
     * @param kind       {@code table}, {@code schema}, {@code cache}, {@code topic}, {@code dynamodb} (a DynamoDB table),
     *                   {@code queue} (an SQS queue: its name or URL)
     * @param production production target name
     * @param shadow     shadow target name
     */
    public record Datastore(String kind, String production, String shadow) {}
}
