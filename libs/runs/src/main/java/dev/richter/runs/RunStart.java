package dev.richter.runs;

import java.time.Instant;
import java.util.List;

/** What {@link RunStarter#start} did: the run it started (or started before), or why it started none. */
public sealed interface RunStart permits RunStart.Started, RunStart.PlanRefused, RunStart.TargetLeased,
        RunStart.KeyStillStarting, RunStart.ExecutionNotStarted, RunStart.NotScheduled {

    /**
     * A run that is starting: its item is stored and its execution started.
     *
     * @param runId        e.g. {@code run-20260101T120000-1a2b3c4d}, also the execution's name
     * @param planId       the plan
     * @param planVersion  the plan version the run uses
     * @param executionArn the load-test-run execution
     * @param status       the run's status, {@code STARTING} for a new run
     * @param replayed     true when an earlier start with the same idempotency key started it
     */
    record Started(String runId, String planId, long planVersion, String executionArn, String status, boolean replayed)
            implements RunStart {}

    /**
     * The plan does not pass {@link PlanValidator} now (a set deleted, a quota lowered since it was stored): nothing
     * was started or stored, the idempotency key is free again.
     *
     * @param problems every problem, at least one
     */
    record PlanRefused(List<InputProblem> problems) implements RunStart {}

    /**
     * Another run holds a lease on one of the plan's services or on an address they load: nothing was started or
     * stored.
     *
     * @param held the lease in the way
     */
    record TargetLeased(RunLeases.Lease held) implements RunStart {
        /**
         * Why the start was refused, worded for {@code callerTeam}: the holding run, its plan and when its lease lapses
         * when the caller's team holds it; only that the target is in use when another team does (a team learns
         * nothing of another team's runs).
         */
        public String message(String callerTeam) {
            String what = held.isTarget()
                    ? "target " + held.service().substring(RunLeases.TARGET_PREFIX.length())
                    : "service '" + held.service() + "'";
            if (!held.sameTeam(callerTeam)) {
                return what + " is in use by another run: one run per target at a time; retry later";
            }
            return what + " is in use by run " + held.runId() + " (plan " + held.planId() + ") until it ends (at the"
                    + " latest " + Instant.ofEpochSecond(held.expiresAtEpochS()) + "): one run per target at a time;"
                    + " retry then, or abort it (POST /runs/" + held.runId() + "/abort)";
        }
    }

    /**
     * The idempotency key names a run whose start has not stored its execution yet (a concurrent first request).
     *
     * @param key   the idempotency key
     * @param runId the run the key names
     */
    record KeyStillStarting(String key, String runId) implements RunStart {}

    /**
     * Step Functions (or the run's store) refused the start: the leases are released, the key is free again and the
     * run item, when it was written, reads {@code FAILED_TO_START}.
     *
     * @param runId the run that did not start
     */
    record ExecutionNotStarted(String runId) implements RunStart {}

    /**
     * A planned start found its run no longer {@code SCHEDULED} ({@link RunStarter#startScheduled}): cancelled, or
     * started by an earlier delivery of its schedule. Nothing was done.
     *
     * @param runId  the run
     * @param status its status now ({@code CANCELLED}, {@code STARTING}, ...; {@code absent} for no run)
     */
    record NotScheduled(String runId, String status) implements RunStart {}
}
