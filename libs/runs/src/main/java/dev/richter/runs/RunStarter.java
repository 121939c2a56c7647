package dev.richter.runs;

import dev.richter.common.AuditLog;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.model.Plan;
import dev.richter.common.model.Run;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.StartExecutionRequest;

/**
 * Starts a run of a stored plan (DESIGN.md §3, "one run per target"), for the HTTP API and for planned starts alike:
 * <ol>
 *   <li>with an idempotency key, binds it to the new run id ({@link RunLeases#bindIdempotencyKey}); a key already
 *       bound answers the run it names ({@link RunStart.Started} with {@code replayed}) for 24 hours;</li>
 *   <li>checks the plan ({@link PlanValidator#problems(Plan)});</li>
 *   <li>leases every service the plan touches and every address they load ({@link RunLeases#leases},
 *       {@link RunLeases#acquire}) until the run ends (at the latest {@link RunLeases#expiresAtEpochS});</li>
 *   <li>stores the run ({@code STARTING}, with {@code planVersion}, {@code leasedServices}, {@code startedBy});</li>
 *   <li>starts the load-test-run execution named by the run id, input {@code {runId, planId, teamId}};</li>
 *   <li>records the execution on the run and audits {@code StartRun}.</li>
 * </ol>
 * A refused start leaves nothing behind: no lease, no bound key, no run (or one marked {@code FAILED_TO_START} when
 * the execution could not start).
 */
public final class RunStarter {
    private static final DateTimeFormatter RUN_TIME = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss").withZone(ZoneOffset.UTC);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Repositories repositories;
    private final RunLeases leases;
    private final PlanValidator validator;
    private final AuditLog audit;
    private final SfnClient sfn;
    private final String stateMachineArn;
    private final Clock clock;

    /**
     * @param repositories    the runs table
     * @param leases          the leases table
     * @param validator       checks the plan before anything is leased
     * @param audit           where {@code StartRun} is recorded
     * @param sfn             Step Functions client
     * @param stateMachineArn the load-test-run state machine
     * @param clock           the run id's time and the leases' expiry
     */
    public RunStarter(Repositories repositories, RunLeases leases, PlanValidator validator, AuditLog audit, SfnClient sfn,
                      String stateMachineArn, Clock clock) {
        this.repositories = repositories;
        this.leases = leases;
        this.validator = validator;
        this.audit = audit;
        this.sfn = sfn;
        this.stateMachineArn = stateMachineArn;
        this.clock = clock;
    }

    /**
     * Starts a run of {@code plan} (its team's) at version {@code planVersion}.
     *
     * @param caller         who starts it (the audit entry's caller, the run's {@code startedBy})
     * @param idempotencyKey the client's key for this start, empty for none
     * @return {@link RunStart.Started}, or why no run started; a failure of DynamoDB outside the start's own steps
     *         (binding the key, reading the registry) propagates as it is
     */
    public RunStart start(String caller, Plan plan, long planVersion, String idempotencyKey) {
        String teamId = plan.teamId();
        String planId = plan.planId();
        long now = clock.millis();
        String runId = newRunId();
        if (!idempotencyKey.isEmpty()) {
            Optional<String> bound = leases.bindIdempotencyKey(teamId, planId, idempotencyKey, runId);
            if (bound.isPresent()) {
                Optional<Run> first = repositories.getRun(bound.get());
                if (first.isEmpty() || first.get().executionArn().isEmpty()) {
                    return new RunStart.KeyStillStarting(idempotencyKey, bound.get());
                }
                return new RunStart.Started(first.get().runId(), planId, repositories.planVersion(bound.get()),
                        first.get().executionArn(), first.get().status(), true);
            }
        }
        List<InputProblem> problems = validator.problems(plan);
        if (!problems.isEmpty()) {
            unbind(plan, idempotencyKey, runId);
            return new RunStart.PlanRefused(problems);
        }
        List<String> targets = RunLeases.leases(plan, validator.services(plan));
        try {
            leases.acquire(teamId, runId, planId, targets, RunLeases.expiresAtEpochS(plan, now));
        } catch (RunLeases.LeaseHeldException e) {
            unbind(plan, idempotencyKey, runId);
            return new RunStart.TargetLeased(e.held());
        }
        try {
            repositories.createRun(new Run(runId, planId, teamId, "STARTING", "", "", -1, now, false, "", ""));
        } catch (RuntimeException e) {
            leases.release(teamId, runId, targets);
            unbind(plan, idempotencyKey, runId);
            return new RunStart.ExecutionNotStarted(runId);
        }
        RunStart started = execute(caller, plan, planVersion, runId, targets, "StartRun");
        if (!(started instanceof RunStart.Started)) {
            unbind(plan, idempotencyKey, runId);
        }
        return started;
    }

    /**
     * The checks a planned start passes when it is scheduled ({@code POST /plans/{planId}/runs} with {@code startAt}):
     * the plan's ({@link PlanValidator#problems(Plan)}), and no lease on its targets that is still held at
     * {@code startAtMs} (a run now running whose lease ends before then is no conflict). Nothing is leased: the same
     * checks run again when it starts ({@link #startScheduled}).
     *
     * @return empty when it may be scheduled; else {@link RunStart.PlanRefused} or {@link RunStart.TargetLeased}
     */
    public Optional<RunStart> refusedForSchedule(Plan plan, long startAtMs) {
        List<InputProblem> problems = validator.problems(plan);
        if (!problems.isEmpty()) {
            return Optional.of(new RunStart.PlanRefused(problems));
        }
        for (String target : RunLeases.leases(plan, validator.services(plan))) {
            Optional<RunLeases.Lease> held = leases.holder(plan.teamId(), target);
            if (held.isPresent() && held.get().expiresAtEpochS() * 1000 > startAtMs) {
                return Optional.of(new RunStart.TargetLeased(held.get()));
            }
        }
        return Optional.empty();
    }

    /**
     * Binds a planned start's {@code Idempotency-Key} to {@code runId} ({@link RunLeases#bindIdempotencyKey}), for 24 h.
     *
     * @return empty when this call bound it; else the run the key names
     */
    public Optional<String> bindKey(Plan plan, String idempotencyKey, String runId) {
        return leases.bindIdempotencyKey(plan.teamId(), plan.planId(), idempotencyKey, runId);
    }

    /** Frees a key {@link #bindKey} bound to {@code runId} (the planned start was refused). */
    public void unbindKey(Plan plan, String idempotencyKey, String runId) {
        unbind(plan, idempotencyKey, runId);
    }

    /** A new run id, {@code run-<yyyyMMdd'T'HHmmss>-<8 hex>} (UTC, from the clock). */
    public String newRunId() {
        return "run-" + RUN_TIME.format(Instant.ofEpochMilli(clock.millis())) + "-" + HexFormat.of().formatHex(randomBytes(4));
    }

    /**
     * Starts a planned run at its time (the schedule's target, {@code ScheduledStartHandler}), in this order:
     * <ol>
     *   <li>a run no longer {@code SCHEDULED} (cancelled, started by an earlier delivery) is left alone;</li>
     *   <li>the plan is checked again; a plan that no longer passes is recorded (below);</li>
     *   <li>{@code awaitStart} waits until the planned second (the schedule fires ahead of it);</li>
     *   <li>the run moves from {@code SCHEDULED} to {@code STARTING} in one conditional write, so a cancel or a
     *       repeated delivery of the schedule cannot both win;</li>
     *   <li>its targets are leased, as {@link #start} does, and its execution started.</li>
     * </ol>
     * A start refused here is recorded on the run: status {@code START_FAILED}, outcome {@code ERROR},
     * {@code failureReason} saying why (the plan's problems, the target in use, the execution refused).
     *
     * @param plan        the plan at the version it was scheduled with
     * @param planVersion that version
     * @param runId       the scheduled run
     * @param awaitStart  returns at the planned start
     * @return {@link RunStart.Started}; {@link RunStart.NotScheduled} when the run is no longer {@code SCHEDULED}:
     *         nothing done; else why it did not start (recorded)
     */
    public RunStart startScheduled(String caller, Plan plan, long planVersion, String runId, Runnable awaitStart) {
        String teamId = plan.teamId();
        String status = repositories.getRun(runId).map(Run::status).orElse("absent");
        if (!status.equals("SCHEDULED")) {
            return new RunStart.NotScheduled(runId, status);
        }
        List<InputProblem> problems = validator.problems(plan);
        if (!problems.isEmpty()) {
            String reason = "the plan no longer passes its checks: " + problems.stream()
                    .map(p -> p.path() + ": " + p.reason()).collect(Collectors.joining("; "));
            if (!repositories.updateRunIfStatus(runId, "SCHEDULED", failed(reason))) {
                return new RunStart.NotScheduled(runId, repositories.getRun(runId).map(Run::status).orElse("absent"));
            }
            return new RunStart.PlanRefused(problems);
        }
        awaitStart.run();
        long now = clock.millis();
        if (!repositories.updateRunIfStatus(runId, "SCHEDULED", Map.of("status", "STARTING", "startedAtMs", now))) {
            return new RunStart.NotScheduled(runId, repositories.getRun(runId).map(Run::status).orElse("absent"));
        }
        List<String> targets = RunLeases.leases(plan, validator.services(plan));
        try {
            leases.acquire(teamId, runId, plan.planId(), targets, RunLeases.expiresAtEpochS(plan, now));
        } catch (RunLeases.LeaseHeldException e) {
            RunStart.TargetLeased refused = new RunStart.TargetLeased(e.held());
            repositories.updateRun(runId, failed(refused.message(teamId)));
            return refused;
        }
        RunStart started = execute(caller, plan, planVersion, runId, targets, "StartScheduledRun");
        if (started instanceof RunStart.ExecutionNotStarted) {
            repositories.updateRun(runId, failed("the execution could not start"));
        }
        return started;
    }

    private static Map<String, Object> failed(String reason) {
        return Map.of("status", "START_FAILED", "outcome", "ERROR", "failureReason", reason);
    }

    /**
     * Records the leases on the stored run and starts its execution; on failure releases the leases and marks the run
     * {@code FAILED_TO_START}.
     */
    private RunStart execute(String caller, Plan plan, long planVersion, String runId, List<String> targets,
                             String auditAction) {
        String teamId = plan.teamId();
        String planId = plan.planId();
        String executionArn;
        try {
            repositories.updateRun(runId, Map.of("planVersion", planVersion, "leasedServices", String.join(",", targets),
                    "startedBy", caller));
            executionArn = sfn.startExecution(StartExecutionRequest.builder().stateMachineArn(stateMachineArn).name(runId)
                    .input(Json.write(Map.of("runId", runId, "planId", planId, "teamId", teamId))).build()).executionArn();
        } catch (RuntimeException e) {
            leases.release(teamId, runId, targets);
            try {
                repositories.updateRun(runId, Map.of("status", "FAILED_TO_START", "outcome", "ERROR"));
            } catch (RuntimeException notStored) {
                // the run item was never written
            }
            return new RunStart.ExecutionNotStarted(runId);
        }
        repositories.updateRun(runId, Map.of("executionArn", executionArn));
        audit.record(teamId, caller, auditAction, runId, null,
                Map.of("planId", planId, "planVersion", planVersion, "executionArn", executionArn, "leasedServices", targets));
        return new RunStart.Started(runId, planId, planVersion, executionArn, "STARTING", false);
    }

    private void unbind(Plan plan, String key, String runId) {
        if (!key.isEmpty()) {
            leases.unbindIdempotencyKey(plan.teamId(), plan.planId(), key, runId);
        }
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        RANDOM.nextBytes(b);
        return b;
    }
}
