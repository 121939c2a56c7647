package dev.richter.loaddriver;

import dev.richter.common.Repositories;
import dev.richter.common.RunMetricsRepository;
import dev.richter.common.model.StepPlan;
import dev.richter.common.model.WorkerRef;
import dev.richter.common.model.WorkerTask;
import dev.richter.data.StoredSets;
import dev.richter.sizing.WorkerTasks;

/**
 * Resolves worker references from the run-metrics table (step), the plans table and the registry, loading the
 * traffic sets and data sets the plan's scenarios name by id ({@link StoredSets}): the
 * state machine passes only ids, whatever the sets' size.
 */
final class StoredTasks {
    private final Repositories repositories;
    private final RunMetricsRepository runMetrics;

    StoredTasks(Repositories repositories, RunMetricsRepository runMetrics) {
        this.repositories = repositories;
        this.runMetrics = runMetrics;
    }

    static StoredTasks fromEnv() {
        Repositories repositories = Repositories.fromEnv();
        return new StoredTasks(repositories, new RunMetricsRepository(repositories.dynamoDb(),
                repositories.tables().runMetrics()));
    }

    /**
     * @throws IllegalStateException when the step or its plan is not stored (the step was never started)
     */
    WorkerTask resolve(WorkerRef ref) {
        StepPlan step = runMetrics.stepPlan(ref.runId(), ref.stage(), ref.stepIndex())
                .orElseThrow(() -> new IllegalStateException("run " + ref.runId() + " has no started step "
                        + ref.stage() + "/" + ref.stepIndex()));
        var plan = repositories.getPlan(step.teamId(), step.planId())
                .orElseThrow(() -> new IllegalStateException("plan " + step.planId() + " of run " + ref.runId()
                        + " is not stored"));
        return WorkerTasks.workerTask(step, ref, plan, repositories.listServices(step.teamId()),
                new StoredSets(repositories.dynamoDb(), repositories.tables().registry()));
    }
}
