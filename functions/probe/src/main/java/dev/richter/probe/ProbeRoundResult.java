package dev.richter.probe;

import dev.richter.common.model.HealthReport;
import java.util.List;

/**
 * Output of one probe round, passed by the state machine to the fault decider as {@code round}.
 *
 * @param runId        run id
 * @param observedAtMs epoch milliseconds when the round started
 * @param reports      one report per target, in target order
 */
public record ProbeRoundResult(String runId, long observedAtMs, List<HealthReport> reports) {
    public ProbeRoundResult {
        reports = reports == null ? List.of() : List.copyOf(reports);
    }
}
