package dev.richter.preparation;

import dev.richter.common.EventPublisher;
import dev.richter.common.MonitorHeartbeat;
import dev.richter.common.Repositories;
import dev.richter.common.RunFlags;
import dev.richter.common.RunMetricsRepository;
import dev.richter.common.model.ConfirmStep;
import dev.richter.common.model.Plan;
import dev.richter.common.model.Run;
import dev.richter.common.model.Stages;
import dev.richter.common.model.StartedStep;
import dev.richter.common.model.StepRef;
import dev.richter.data.StoredSets;
import dev.richter.sizing.PlanNotRunnableException;
import dev.richter.sizing.Quotas;
import dev.richter.sizing.RunLayout;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The run-preparation use cases the load-test-run state machine calls: preparing a run before its first step, starting
 * each step, and recording that a leg's monitor failed. The layout itself (stages, legs, workers, probe targets) is
 * {@link RunLayout}'s; this class checks what is stored, writes the run's state and tells the event bus.
 *
 * <p>Storage: the runs table (status, current step, abort flag and heartbeat via {@link RunFlags}), the run-metrics
 * table (each started step's {@code StepPlan}, which its workers read) and the registry table (the stored traffic sets
 * and data sets the plan's scenarios name, via {@link StoredSets}).
 */
public final class RunPreparer {
    private static final Logger LOG = LogManager.getLogger(RunPreparer.class);
    private final Repositories repositories;
    private final RunFlags runFlags;
    private final EventPublisher events;
    private final RunMetricsRepository runMetrics;
    private final StoredSets storedSets;
    private final Quotas quotas;

    /**
     * @param repositories the run, plan and registry tables
     * @param events       where {@code Run Started} goes
     * @param quotas       the limits each step is laid out against
     */
    public RunPreparer(Repositories repositories, EventPublisher events, Quotas quotas) {
        this.repositories = repositories;
        this.runFlags = new RunFlags(repositories.dynamoDb(), repositories.tables().runs());
        this.events = events;
        this.runMetrics = new RunMetricsRepository(repositories.dynamoDb(), repositories.tables().runMetrics());
        this.storedSets = new StoredSets(repositories.dynamoDb(), repositories.tables().registry());
        this.quotas = quotas;
    }

    /**
     * Prepares a run: lays out its stages, checks that every traffic set and data set its scenarios name is still
     * stored, marks it RUNNING and emits {@code Run Started {runId, planId, teamId}}.
     *
     * @throws PlanNotRunnableException when the run or its plan is unknown, a scenario's service is not registered, or
     *                                  a set a scenario names is no longer stored (nothing is written then)
     */
    public Stages prepare(String runId) {
        Run run = repositories.getRun(runId).orElseThrow(() -> new PlanNotRunnableException("unknown run " + runId));
        Plan plan = repositories.getPlan(run.planId())
                .orElseThrow(() -> new PlanNotRunnableException("run " + runId + " refers to unknown plan " + run.planId()));
        Stages stages = RunLayout.prepare(runId, plan, name -> repositories.getService(plan.teamId(), name));
        for (Plan.ScenarioSpec s : plan.scenarios()) {
            if (s.trafficSetId() != null && storedSets.manifest(plan.teamId(), "trafficset#" + s.trafficSetId()).isEmpty()) {
                throw new PlanNotRunnableException("scenario '" + s.name() + "' replays traffic set '" + s.trafficSetId()
                        + "', which team '" + plan.teamId() + "' no longer stores");
            }
            for (Plan.DataBinding b : s.data()) {
                if (storedSets.manifest(plan.teamId(), "dataset#" + b.dataSetId()).isEmpty()) {
                    throw new PlanNotRunnableException("scenario '" + s.name() + "' draws from data set '" + b.dataSetId()
                            + "', which team '" + plan.teamId() + "' no longer stores");
                }
            }
        }
        repositories.updateRun(runId, Map.of("status", "RUNNING"));
        events.publish("Run Started", Map.of("runId", runId, "planId", plan.planId(), "teamId", plan.teamId()));
        return stages;
    }

    /**
     * Starts a step: lays out its legs and workers against the quotas from now, stores the step for its workers and
     * records it as the run's current step. When the run's abort flag is set, or the step is a warm-up step after
     * the one at which the warm-up was steady ({@code WarmUpRule}, recorded by the step completion), the step comes
     * back with {@code skip: true} and nothing is stored.
     *
     * <p>A formal slot ({@link Plan#formalSlots()}) runs the step {@link ConfirmStep#stepFor} gives once the step
     * completion called for a confirm step: the slot after the first failing step runs the confirm step (stage
     * {@code confirm}), later slots the formal step before theirs. Without a confirm step, the last slot (the confirm
     * slot) is skipped.
     *
     * @param slot  the step as the state machine carries it
     * @param nowMs current epoch ms
     * @throws PlanNotRunnableException when the run is unknown
     * @throws IllegalArgumentException when the step cannot be laid out within the quotas
     */
    public StartedStep startStep(StepRef slot, long nowMs) {
        Run run = repositories.getRun(slot.runId()).orElseThrow(() -> new PlanNotRunnableException("unknown run " + slot.runId()));
        Plan plan = repositories.getPlan(run.planId()).orElseThrow();
        boolean aborted = runFlags.isAbortRequested(slot.runId());
        StepRef step = slot;
        boolean unneeded = false;
        if (!aborted && Stages.FORMAL.equals(slot.stage()) && plan.formalSlots().size() > plan.formal().size()) {
            Optional<ConfirmStep> confirm = runMetrics.confirmStep(slot.runId());
            step = confirm.map(c -> c.stepFor(slot, plan)).orElse(slot);
            unneeded = confirm.isEmpty() && slot.stepIndex() >= plan.formal().size();
            if (unneeded) {
                LOG.info("run {}: confirm slot skipped: no formal step failed after one that held", slot.runId());
            } else if (Stages.CONFIRM.equals(step.stage())) {
                LOG.info("run {}: confirm step at {} QPS: {}", slot.runId(), step.qps(), confirm.get().why());
            }
        }
        OptionalInt steadyAt = !aborted && Stages.WARM_UP.equals(step.stage())
                ? runMetrics.warmUpSteadyAt(step.runId()) : OptionalInt.empty();
        boolean warm = steadyAt.isPresent() && step.stepIndex() > steadyAt.getAsInt();
        StartedStep started = RunLayout.start(step, plan, repositories.listServices(plan.teamId()),
                repositories.evidenceSources(plan.teamId()), nowMs, aborted || warm || unneeded, quotas);
        if (warm) {
            LOG.info("run {}: warm-up step {} skipped: the warm-up was steady at step {}", step.runId(),
                    step.stepIndex() + 1, steadyAt.getAsInt() + 1);
        }
        if (!aborted && !warm && !unneeded) {
            runMetrics.putStepPlan(RunLayout.stepPlan(started, plan));
            repositories.updateRun(step.runId(), Map.of("stage", step.stage(), "stepIndex", step.stepIndex(),
                    "stepQps", step.qps(), "stepEndsAtMs", started.stepEndsAtMs()));
        }
        return started;
    }

    /**
     * Records that a leg's monitor state failed: sets the run's abort flag with {@link MonitorHeartbeat#failed}
     * ({@code monitoring lost: <state>: <error> (<cause>)}), so the leg's workers stop within their abort poll and no
     * later step starts. The first reason is kept when the flag was already set.
     *
     * @param runId the run
     * @param state the state machine state that failed ({@code Probe}, {@code Decide})
     * @param error the Step Functions error name, may be null
     * @param cause its cause, may be null
     * @return the branch's end: {@code {continue: false, abortRequested: true, reason}}
     * @throws IllegalArgumentException when runId or state is blank
     */
    public Map<String, Object> monitoringLost(String runId, String state, String error, String cause) {
        if (runId == null || runId.isBlank() || state == null || state.isBlank()) {
            throw new IllegalArgumentException("monitoring-lost needs runId and state");
        }
        String reason = MonitorHeartbeat.failed(state, error, cause);
        LOG.error("run {}: {}; abort flag set", runId, reason);
        runFlags.requestAbort(runId, reason);
        return Map.of("continue", false, "abortRequested", true, "reason", reason);
    }
}
