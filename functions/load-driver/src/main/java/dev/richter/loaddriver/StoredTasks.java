package dev.richter.loaddriver;

import dev.richter.common.Repositories;
import dev.richter.common.RunMetricsRepository;
import dev.richter.common.model.Scenario;
import dev.richter.common.model.StepPlan;
import dev.richter.common.net.AllowedNetworks;
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
        WorkerTask task = WorkerTasks.workerTask(step, ref, plan, repositories.listServices(step.teamId()),
                new StoredSets(repositories.dynamoDb(), repositories.tables().registry()));
        return signed(checked(task, AllowedNetworks.fromEnv()), repositories.markerKeys(step.teamId()),
                System.currentTimeMillis());
    }

    /**
     * {@code task} when every scenario's target may be called ({@link AllowedNetworks#refusal}, on what its host
     * resolves to now, at the worker's start).
     *
     * @throws IllegalStateException naming the scenario, its target and the reason: the worker sends nothing
     */
    static WorkerTask checked(WorkerTask task, AllowedNetworks networks) {
        for (Scenario s : task.scenarios()) {
            String host = java.net.URI.create(s.targetBaseUrl()).getHost();
            java.util.Optional<String> refused = host == null ? java.util.Optional.of("no host in " + s.targetBaseUrl())
                    : networks.refusal(host);
            if (refused.isPresent()) {
                throw new IllegalStateException("scenario '" + s.name() + "' targets " + s.targetBaseUrl()
                        + ", which Richter may not call: " + refused.get() + "; the worker sends nothing");
            }
        }
        return task;
    }

    /** How long a step's marker proof outlives the step's last due request, seconds: its answer may still be coming. */
    static final long PROOF_SLACK_S = 60;

    /**
     * {@code task} with its marker's proof: a token of the run and team ({@code MarkerProof.mint}) signed with the
     * team's newest key, expiring {@value #PROOF_SLACK_S} s after the step's last request could be answered.
     *
     * @param keys  the team's marker keys, newest first ({@link Repositories#markerKeys})
     * @param nowMs the clock, epoch ms (a step that starts now has no start of its own)
     * @throws IllegalStateException when the team has no key: its services' extensions would take this load for
     *     production traffic, so the worker sends nothing
     */
    static WorkerTask signed(WorkerTask task, java.util.List<String> keys, long nowMs) {
        if (keys.isEmpty()) {
            throw new IllegalStateException("team " + task.teamId() + " has no marker key, so its services would take"
                    + " this load for production traffic; registering a service or reading GET /safety/isolation"
                    + " creates it");
        }
        long endMs = Math.max(task.stepStartEpochMs(), nowMs) + task.durationS() * 1000L + task.requestTimeoutMs();
        return task.withMarker(task.marker().signed(keys.get(0), task.teamId(), task.runId(),
                endMs / 1000 + PROOF_SLACK_S));
    }
}
