package dev.richter.probe;

import dev.richter.common.RunScoped;
import java.util.List;

/**
 * Input of one probe round (the monitor loop's probe task).
 *
 * @param runId     run id
 * @param teamId    owning team
 * @param stage     {@code pre-test} or {@code formal}
 * @param stepIndex QPS step index within the stage (0-based)
 * @param targets   what to probe; all are probed concurrently, each within its own deadline
 */
public record ProbeRound(String runId, String teamId, String stage, int stepIndex, List<ProbeTarget> targets)
        implements RunScoped {
    public ProbeRound {
        targets = targets == null ? List.of() : List.copyOf(targets);
    }

    /** {@code stepIndex}, for the log context. */
    @Override
    public Integer stepInStage() {
        return stepIndex;
    }
}
