package dev.richter.common.model;

import java.util.List;
import java.util.Map;

/**
 * What one probe observed of one module at one time.
 *
 * <p>A report is either <em>module evidence</em> (what the module itself answered: health DOWN, connection
 * refused, timeout, error rate) or <em>monitoring evidence</em> (the observation could not be made because
 * the monitoring is broken: a scrape that does not parse, a metrics path that answers 404, a gRPC service
 * name the service does not know). Only module evidence moves the decision rules (DESIGN.md §4); a failed
 * monitoring report is <em>missing evidence</em>, shown as a WARN and lowering the run's confidence.
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
 * @param evidence          {@link Evidence#MODULE} or {@link Evidence#MONITORING}; {@code MODULE} when absent
 * @param warnings          monitoring defects that did not stop the observation, each naming its line or status,
 *                          e.g. {@code ["line 3: exemplar dropped: an exemplar needs a label set ('{}' when empty)"]}
 */
public record HealthReport(String module, String kind, boolean ok, String status, List<String> failingComponents,
                           long latencyMs, String detail, Map<String, Double> metrics, long observedAtMs,
                           Evidence evidence, List<String> warnings) {
    /** Which question a report answers: is the module healthy, or could we see it at all. */
    public enum Evidence {
        /** The module's own answer; moves the decision rules. */
        MODULE,
        /** The monitoring path failed or was partly broken; never votes that the module is damaged. */
        MONITORING
    }

    public HealthReport {
        failingComponents = failingComponents == null ? List.of() : List.copyOf(failingComponents);
        metrics = metrics == null ? Map.of() : Map.copyOf(metrics);
        detail = detail == null ? "" : detail;
        evidence = evidence == null ? Evidence.MODULE : evidence;
        warnings = warnings == null ? List.of() : List.copyOf(warnings);
    }

    /** Module evidence with no warnings (the common case). */
    public HealthReport(String module, String kind, boolean ok, String status, List<String> failingComponents,
                        long latencyMs, String detail, Map<String, Double> metrics, long observedAtMs) {
        this(module, kind, ok, status, failingComponents, latencyMs, detail, metrics, observedAtMs, Evidence.MODULE, List.of());
    }

    /** True when this report is failed monitoring: the observation is missing, not negative. */
    public boolean missingEvidence() {
        return !ok && evidence == Evidence.MONITORING;
    }
}
