package dev.richter.decider;

import dev.richter.common.model.HealthReport;
import java.util.List;

/**
 * What one decision looks at, free of AWS types.
 *
 * @param runId       run id
 * @param stage       {@code pre-test}, {@code warm-up} or {@code formal} ({@code nightly} for the nightly check)
 * @param stepIndex   QPS step index; with {@code stage} it names the step whose baseline dynamic rules use
 * @param coreModules modules whose DAMAGED verdict the default abort policy acts on
 * @param nowMs       epoch ms of the decision
 * @param reports     the round's probe reports (any modules, any kinds)
 */
public record DecisionInput(String runId, String stage, int stepIndex, List<String> coreModules, long nowMs,
                            List<HealthReport> reports) {
    public DecisionInput {
        coreModules = coreModules == null ? List.of() : List.copyOf(coreModules);
        reports = reports == null ? List.of() : List.copyOf(reports);
        stage = stage == null ? "" : stage;
    }

    /** {@code <stage>#<stepIndex>}. */
    public String stepKey() {
        return stage + "#" + stepIndex;
    }
}
