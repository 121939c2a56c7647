package dev.richter.api;

import com.amazonaws.services.lambda.runtime.Context;
import dev.richter.common.AuditLog;
import dev.richter.common.AwsClients;
import dev.richter.common.Env;
import dev.richter.common.EventPublisher;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.Repositories;
import dev.richter.common.RunScoped;
import dev.richter.common.model.Plan;
import dev.richter.common.model.Run;
import dev.richter.data.StoredSets;
import dev.richter.runs.ContractSchemas;
import dev.richter.runs.PlanValidator;
import dev.richter.runs.RunLeases;
import dev.richter.runs.RunStart;
import dev.richter.runs.RunStarter;
import dev.richter.sizing.Quotas;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.sfn.SfnClient;

/**
 * Lambda handler of {@code ScheduledStartFunction} (in plan-api's jar), the target of a planned start's one-time
 * schedule ({@link PlannedStarts}): {@code {runId, planId, teamId, startAtMs}} → {@link RunStarter#startScheduled} with
 * the plan at the version it was scheduled with, waiting until {@code startAtMs} → {@code {runId, status, reason?}}.
 *
 * <p>A start refused at its time (the plan deleted or no longer passing its checks, a target in use, the execution
 * refused) is recorded on the run ({@code START_FAILED} and its {@code failureReason}) and published as a
 * {@code Run Start Failed} event {@code {runId, planId, teamId, reason}}. A run no longer {@code SCHEDULED}
 * (cancelled, or a repeated delivery) is left alone. The handler never throws for a refused start, so Scheduler does
 * not retry one.
 */
public final class ScheduledStartHandler extends JsonStreamHandler<ScheduledStartHandler.ScheduledStart, Map<String, Object>> {
    private static final Logger LOG = LogManager.getLogger(ScheduledStartHandler.class);

    /**
     * The schedule's input.
     *
     * @param runId  the scheduled run
     * @param planId its plan
     * @param teamId    its team
     * @param startAtMs the planned start, epoch ms (the schedule fires ahead of it)
     */
    public record ScheduledStart(String runId, String planId, String teamId, Long startAtMs) implements RunScoped {}

    private final Repositories repositories;
    private final PlanStore store;
    private final RunStarter starter;
    private final EventPublisher events;
    private final Clock clock;

    /** Lambda's constructor: clients and configuration from the environment, built once. */
    public ScheduledStartHandler() {
        this(Repositories.fromEnv(), SfnClient.builder().region(AwsClients.region())
                        .httpClientBuilder(UrlConnectionHttpClient.builder()).build(),
                Env.get("LOAD_TEST_RUN_STATE_MACHINE_ARN").orElse(""), EventPublisher.fromEnv(), Clock.systemUTC());
    }

    /**
     * For tests and the local stack.
     *
     * @param stateMachineArn the load-test-run state machine
     * @param events          where {@code Run Start Failed} goes
     */
    public ScheduledStartHandler(Repositories repositories, SfnClient sfn, String stateMachineArn, EventPublisher events,
                                 Clock clock) {
        super(ScheduledStart.class);
        this.repositories = repositories;
        this.store = new PlanStore(repositories);
        var dynamoDb = repositories.dynamoDb();
        var tables = repositories.tables();
        PlanValidator validator = new PlanValidator(repositories, new StoredSets(dynamoDb, tables.registry()),
                new ContractSchemas(), Double.parseDouble(Env.get("MAX_TEAM_QPS").orElse(String.valueOf(PlanApi.DEFAULT_MAX_TEAM_QPS))),
                Quotas::fromEnv);
        this.starter = new RunStarter(repositories, new RunLeases(dynamoDb, tables.leases(), clock), validator,
                new AuditLog(dynamoDb, tables.audit()), sfn, stateMachineArn, clock);
        this.events = events;
        this.clock = clock;
    }

    /** Waits until {@code epochMs} (at once when it has passed). */
    private void sleepUntil(long epochMs) {
        long waitMs = epochMs - clock.millis();
        if (waitMs > 0) {
            try {
                Thread.sleep(waitMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the planned start", e);
            }
        }
    }

    @Override
    protected Map<String, Object> handle(ScheduledStart input, Context context) {
        String runId = input.runId();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("runId", runId);
        Optional<Run> run = repositories.getRun(runId);
        if (run.isEmpty() || !run.get().teamId().equals(input.teamId())) {
            out.put("status", "absent");
            return out;
        }
        long version = repositories.planVersion(runId);
        Optional<Plan> plan = store.version(run.get().planId(), version);
        RunStart result;
        String reason = "";
        if (plan.isEmpty() || !plan.get().teamId().equals(run.get().teamId())) {
            reason = "plan " + run.get().planId() + " version " + version + " no longer exists";
            if (!repositories.updateRunIfStatus(runId, "SCHEDULED", Map.of("status", "START_FAILED", "outcome", "ERROR",
                    "failureReason", reason))) {
                out.put("status", repositories.getRun(runId).map(Run::status).orElse("absent"));
                return out;
            }
            result = null;
        } else {
            String caller = Documents.text(store.runItem(runId), "scheduledBy");
            long startAtMs = input.startAtMs() != null ? input.startAtMs()
                    : Documents.number(store.runItem(runId), "startAtMs", 0);
            result = starter.startScheduled(caller.isEmpty() ? "scheduler" : caller, plan.get(), version, runId,
                    () -> sleepUntil(startAtMs));
        }
        switch (result) {
            case RunStart.Started s -> {
                out.put("status", s.status());
                out.put("executionArn", s.executionArn());
                return out;
            }
            case RunStart.NotScheduled n -> {
                out.put("status", n.status());
                return out;
            }
            case null -> {
                // the plan is gone: recorded above
            }
            default -> reason = Documents.text(store.runItem(runId), "failureReason");
        }
        out.put("status", "START_FAILED");
        out.put("reason", reason);
        try {
            events.publish("Run Start Failed", Map.of("runId", runId, "planId", run.get().planId(),
                    "teamId", run.get().teamId(), "reason", reason));
        } catch (RuntimeException e) {
            LOG.error("Run Start Failed event of {} not published: {}", runId, e.toString());
        }
        return out;
    }
}
