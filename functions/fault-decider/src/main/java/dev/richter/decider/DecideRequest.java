package dev.richter.decider;

import dev.richter.common.RunScoped;
import dev.richter.common.model.HealthReport;
import java.util.List;
import java.util.Optional;

/**
 * Fault-decider task input from the monitor loop.
 *
 * @param runId        run id
 * @param teamId       owning team (selects its stored {@link DecisionRules})
 * @param stage        {@code pre-test} or {@code formal}
 * @param stepIndex    current QPS step index
 * @param stepEndsAtMs epoch ms when the current step ends; the loop continues only before it
 * @param coreModules  modules whose damage aborts the run under the default policy
 * @param round        the probe task's output
 * @param abortPolicy  the run's abort policy from its plan; absent (null in JSON) means the team rules' policy
 */
public record DecideRequest(String runId, String teamId, String stage, int stepIndex, long stepEndsAtMs,
                            List<String> coreModules, Round round, AbortPolicy abortPolicy)
        implements RunScoped {
    /** A request that uses the team rules' abort policy. */
    public DecideRequest(String runId, String teamId, String stage, int stepIndex, long stepEndsAtMs,
                         List<String> coreModules, Round round) {
        this(runId, teamId, stage, stepIndex, stepEndsAtMs, coreModules, round, null);
    }

    public DecideRequest {
        coreModules = coreModules == null ? List.of() : List.copyOf(coreModules);
        round = round == null ? new Round(runId, 0, List.of()) : round;
    }

    /** {@code stepIndex}, for the log context. */
    @Override
    public Integer stepInStage() {
        return stepIndex;
    }

    /** The run's abort policy when the plan gave one. */
    public Optional<AbortPolicy> runAbortPolicy() {
        return Optional.ofNullable(abortPolicy);
    }

    /**
     * The probe round as the probe function wrote it ({@code ProbeRoundResult}).
     *
     * @param runId        run id
     * @param observedAtMs epoch ms the round started
     * @param reports      health reports
     */
    public record Round(String runId, long observedAtMs, List<HealthReport> reports) {
        public Round {
            reports = reports == null ? List.of() : List.copyOf(reports);
        }
    }
}
