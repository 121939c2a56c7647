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
 */
public record RegisteredService(String teamId, String name, String baseUrl, String healthPath, String prometheusPath,
                                List<Datastore> datastores) {
    public RegisteredService {
        datastores = datastores == null ? List.of() : List.copyOf(datastores);
    }

    /**
     * A datastore and where marked writes go.
     *
     * @param kind       {@code table}, {@code schema}, {@code cache}, {@code topic}
     * @param production production target name
     * @param shadow     shadow target name
     */
    public record Datastore(String kind, String production, String shadow) {}
}
