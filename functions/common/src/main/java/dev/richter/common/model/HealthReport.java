package dev.richter.common.model;

import java.util.List;
import java.util.Map;

/**
 * What one probe observed of one module at one time.
 *
 * @param module            module (service) name
 * @param kind              probe kind: {@code http}, {@code grpc}, {@code tcp}, {@code prometheus}, {@code passive}
 * @param ok                true when the observation counts as a success for the decision rules
 * @param status            the module's reported status, e.g. {@code UP}, {@code DOWN}, {@code SERVING}, {@code REFUSED}, {@code TIMEOUT}
 * @param failingComponents health components that are not UP (Actuator {@code components}/{@code details}), e.g. {@code ["db"]}
 * @param latencyMs         time the probe took, milliseconds
 * @param detail            a human-readable reason when not ok, empty otherwise
 * @param metrics           resource metrics read by the probe, e.g. {@code {"heapUsedRatio": 0.42, "connectionsInUseRatio": 0.1}}
 * @param observedAtMs      epoch milliseconds of the observation
 */
public record HealthReport(String module, String kind, boolean ok, String status, List<String> failingComponents,
                           long latencyMs, String detail, Map<String, Double> metrics, long observedAtMs) {
    public HealthReport {
        failingComponents = failingComponents == null ? List.of() : List.copyOf(failingComponents);
        metrics = metrics == null ? Map.of() : Map.copyOf(metrics);
        detail = detail == null ? "" : detail;
    }
}
