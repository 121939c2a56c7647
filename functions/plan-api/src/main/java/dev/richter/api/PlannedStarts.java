package dev.richter.api;

import dev.richter.common.AuditLog;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.model.Run;
import dev.richter.runs.RunStart;
import dev.richter.runs.RunStarter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import software.amazon.awssdk.services.scheduler.SchedulerClient;
import software.amazon.awssdk.services.scheduler.model.ActionAfterCompletion;
import software.amazon.awssdk.services.scheduler.model.CreateScheduleRequest;
import software.amazon.awssdk.services.scheduler.model.DeleteScheduleRequest;
import software.amazon.awssdk.services.scheduler.model.FlexibleTimeWindow;
import software.amazon.awssdk.services.scheduler.model.FlexibleTimeWindowMode;
import software.amazon.awssdk.services.scheduler.model.ResourceNotFoundException;
import software.amazon.awssdk.services.scheduler.model.RetryPolicy;
import software.amazon.awssdk.services.scheduler.model.Target;

/**
 * Planned starts (DESIGN.md §3 "Schedules"): {@code POST /plans/{planId}/runs} with {@code {"startAt"}} stores the run
 * {@code SCHEDULED} and creates an EventBridge Scheduler one-time schedule {@code at(yyyy-mm-ddThh:mm:ss)} (UTC,
 * {@code FlexibleTimeWindow OFF}, {@code ActionAfterCompletion DELETE}) in the group {@code SCHEDULE_GROUP_NAME}, named
 * by the run id, firing ahead of the start ({@link #fireAt}), whose target is the {@code ScheduledStartFunction} with
 * {@code {runId, planId, teamId, startAtMs}}, invoked through the role {@code SCHEDULED_START_ROLE_ARN}: it checks the
 * plan, waits for {@code startAtMs} and starts the run. {@code DELETE /runs/{runId}} cancels it until that second.
 *
 * <p>The plan and lease checks run now ({@link RunStarter#refusedForSchedule}) and again at the start
 * ({@link RunStarter#startScheduled}). The schedule's retry policy is bounded to {@value #MAX_EVENT_AGE_S} s
 * ({@code MaximumEventAgeInSeconds}, Scheduler's least) and {@value #MAX_RETRY_ATTEMPTS} retries, so a delivery the
 * target could not take is dropped rather than starting load long after its planned time (Scheduler's default keeps
 * retrying for 24 h).
 */
final class PlannedStarts {
    private static final Logger LOG = LogManager.getLogger(PlannedStarts.class);
    /** The furthest ahead a run may be planned. */
    static final Duration MAX_LEAD = Duration.ofDays(30);
    /**
     * How long before the planned start its schedule fires at the latest (plus up to a minute, {@link #fireAt}): the
     * 60 s of Scheduler's precision and 30 s for the start function's cold start and checks. The function then waits
     * for the planned second, within its 180 s timeout.
     */
    static final Duration LEAD = Duration.ofSeconds(90);
    /** The schedule's {@code RetryPolicy.MaximumEventAgeInSeconds} (60..86400 in Scheduler's API). */
    static final int MAX_EVENT_AGE_S = 60;
    /** The schedule's {@code RetryPolicy.MaximumRetryAttempts}. */
    static final int MAX_RETRY_ATTEMPTS = 2;
    private static final DateTimeFormatter AT = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss").withZone(ZoneOffset.UTC);

    /**
     * Where planned starts go.
     *
     * @param groupName the schedule group ({@code SCHEDULE_GROUP_NAME})
     * @param targetArn the function that starts a planned run ({@code SCHEDULED_START_FUNCTION_ARN})
     * @param roleArn   the role Scheduler assumes to invoke it ({@code SCHEDULED_START_ROLE_ARN})
     */
    record ScheduleTarget(String groupName, String targetArn, String roleArn) {}

    private final Repositories repositories;
    private final RunStarter starter;
    private final AuditLog audit;
    private final SchedulerClient scheduler;
    private final ScheduleTarget config;
    private final Clock clock;

    PlannedStarts(Repositories repositories, RunStarter starter, AuditLog audit, SchedulerClient scheduler, ScheduleTarget config,
                  Clock clock) {
        this.repositories = repositories;
        this.starter = starter;
        this.audit = audit;
        this.scheduler = scheduler;
        this.config = config;
        this.clock = clock;
    }

    /**
     * The planned start time of {@code $.startAt}: an RFC 3339 date-time with its offset ({@code 2026-12-24T20:00:00Z},
     * {@code 2026-12-24T21:00:00+01:00}), rounded up to the whole second (Scheduler's {@code at()} has seconds), after
     * now and at most {@link #MAX_LEAD} ahead.
     *
     * @throws ApiException 400 at {@code $.startAt} naming the rule it breaks
     */
    static Instant startAt(String text, Instant now) {
        Instant at;
        try {
            at = OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
        } catch (DateTimeParseException e) {
            throw ApiException.badField("$.startAt", "must be an RFC 3339 date-time with its offset, e.g. "
                    + "2026-12-24T20:00:00Z; got '" + text + "'");
        }
        if (at.getNano() != 0) {
            at = at.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).plusSeconds(1);
        }
        if (!at.isAfter(now)) {
            throw ApiException.badField("$.startAt", "must be in the future; " + text + " is not after now (" + now + ")");
        }
        if (at.isAfter(now.plus(MAX_LEAD))) {
            throw ApiException.badField("$.startAt", "must be at most " + MAX_LEAD.toDays() + " days ahead (" + now.plus(MAX_LEAD)
                    + "); got " + text);
        }
        return at;
    }

    /**
     * When the schedule fires for a start at {@code startAt}: the whole minute at or before {@code startAt −}
     * {@link #LEAD}, since EventBridge Scheduler invokes a target with 60-second precision (a schedule at 1:00 runs
     * between 1:00:00 and 1:00:59, Scheduler User Guide, "Schedule types"), and the start function then waits for the
     * planned second; a start nearer than that fires at the next second (on AWS it may then start up to a minute late).
     */
    static Instant fireAt(Instant startAt, Instant now) {
        Instant early = startAt.minus(LEAD).truncatedTo(java.time.temporal.ChronoUnit.MINUTES);
        Instant soonest = now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).plusSeconds(1);
        return early.isAfter(soonest) ? early : soonest.isAfter(startAt) ? startAt : soonest;
    }

    /** Scheduler's one-time expression for {@code at}: {@code at(yyyy-mm-ddThh:mm:ss)}, read in UTC. */
    static String atExpression(Instant at) {
        return "at(" + AT.format(at) + ")";
    }

    /**
     * Schedules a run of {@code v} at {@code startAt}. With an {@code Idempotency-Key}, a repeated request answers
     * the run the first one scheduled ({@code Idempotent-Replayed: true}) for 24 hours, as an immediate start does.
     *
     * @return 202 {@code {runId, planId, planVersion, executionArn: "", status: SCHEDULED, startAt}}, {@code Location}
     * @throws ApiException 400 {@code ValidationFailed} when the plan fails its checks; 409 {@code TargetLeased} when a
     *                      run holds one of its targets past {@code startAt}; 503 {@code StartFailed} when the schedule
     *                      cannot be created (the run is then {@code FAILED_TO_START} with its reason)
     */
    ApiResponse schedule(ApiRequest req, PlanStore.Versioned v, Instant startAt, String idempotencyKey) {
        String runId = starter.newRunId();
        if (!idempotencyKey.isEmpty()) {
            var bound = starter.bindKey(v.plan(), idempotencyKey, runId);
            if (bound.isPresent()) {
                return replay(req, bound.get(), idempotencyKey);
            }
        }
        var refused = starter.refusedForSchedule(v.plan(), startAt.toEpochMilli());
        if (refused.isPresent()) {
            if (!idempotencyKey.isEmpty()) {
                starter.unbindKey(v.plan(), idempotencyKey, runId);
            }
            switch (refused.get()) {
                case RunStart.PlanRefused r -> throw ApiException.validationFailed(r.problems());
                case RunStart.TargetLeased t -> throw new ApiException(409, "TargetLeased", t.message(req.teamId())
                        + " (its lease lasts past the planned start)");
                default -> throw new IllegalStateException("unexpected " + refused.get());
            }
        }
        String teamId = req.teamId();
        String planId = v.plan().planId();
        long now = clock.millis();
        repositories.createRun(new Run(runId, planId, teamId, "SCHEDULED", "", "", -1, now, false, "", ""));
        repositories.updateRun(runId, Map.of("planVersion", v.version(), "startAtMs", startAt.toEpochMilli(),
                "scheduledBy", req.caller(), "startedBy", req.caller()));
        String input = Json.write(Map.of("runId", runId, "planId", planId, "teamId", teamId,
                "startAtMs", startAt.toEpochMilli()));
        try {
            scheduler.createSchedule(CreateScheduleRequest.builder().name(runId).groupName(config.groupName())
                    .scheduleExpression(atExpression(fireAt(startAt, clock.instant()))).scheduleExpressionTimezone("UTC")
                    .flexibleTimeWindow(FlexibleTimeWindow.builder().mode(FlexibleTimeWindowMode.OFF).build())
                    .actionAfterCompletion(ActionAfterCompletion.DELETE)
                    .description("planned start of " + runId + " (plan " + planId + ", team " + teamId + ")")
                    .target(Target.builder().arn(config.targetArn()).roleArn(config.roleArn()).input(input)
                            .retryPolicy(RetryPolicy.builder().maximumEventAgeInSeconds(MAX_EVENT_AGE_S)
                                    .maximumRetryAttempts(MAX_RETRY_ATTEMPTS).build()).build())
                    .build());
        } catch (RuntimeException e) {
            repositories.updateRun(runId, Map.of("status", "FAILED_TO_START", "outcome", "ERROR",
                    "failureReason", "the schedule could not be created: " + e.getMessage()));
            throw new ApiException(503, "StartFailed", "run " + runId + " could not be scheduled: retry");
        }
        audit.record(teamId, req.caller(), "ScheduleRun", runId, null, Map.of("planId", planId, "planVersion", v.version(),
                "startAt", startAt.toString()));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("runId", runId);
        body.put("planId", planId);
        body.put("planVersion", v.version());
        body.put("executionArn", "");
        body.put("status", "SCHEDULED");
        body.put("startAt", startAt.toString());
        return new ApiResponse(202, "application/json", Json.write(body), Map.of("Location", "/runs/" + runId));
    }

    /**
     * The answer a repeated planned start with the same {@code Idempotency-Key} gets: the run the first one scheduled
     * ({@code Idempotent-Replayed: true}), or 409 {@code IdempotencyKeyInUse} while the first is still being stored.
     */
    private ApiResponse replay(ApiRequest req, String runId, String key) {
        var item = repositories.getRun(req.teamId(), runId);
        var runItem = item.isEmpty() ? Map.<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue>of()
                : repositories.dynamoDb().getItem(software.amazon.awssdk.services.dynamodb.model.GetItemRequest.builder()
                        .tableName(repositories.tables().runs())
                        .key(Map.of("runId", software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS(runId)))
                        .consistentRead(true).build()).item();
        if (item.isEmpty() || !runItem.containsKey("startAtMs")) {
            throw new ApiException(409, "IdempotencyKeyInUse", "a request with Idempotency-Key '" + key
                    + "' is still scheduling run " + runId + ": retry in a moment");
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("runId", runId);
        body.put("planId", item.get().planId());
        body.put("planVersion", Documents.number(runItem, "planVersion", 1));
        body.put("executionArn", item.get().executionArn());
        body.put("status", item.get().status());
        body.put("startAt", Instant.ofEpochMilli(Documents.number(runItem, "startAtMs", 0)).toString());
        return new ApiResponse(202, "application/json", Json.write(body),
                Map.of("Location", "/runs/" + runId, "Idempotent-Replayed", "true"));
    }

    /**
     * {@code DELETE /runs/{runId}}: cancels a scheduled run. The run is marked {@code CANCELLED} first (conditional on
     * {@code SCHEDULED}, so a start already under way wins and the cancel is refused), then its schedule is deleted; a
     * schedule that fires anyway finds the run cancelled and starts nothing.
     *
     * @return 200 {@code {runId, status: CANCELLED}}
     * @throws ApiException 404 for an unknown or another team's run; 409 {@code RunNotScheduled} when it has started
     *                      (abort it instead), ended or was cancelled
     */
    ApiResponse cancel(ApiRequest req) {
        String runId = req.path("runId");
        Run run = repositories.getRun(req.teamId(), runId).orElseThrow(() -> ApiException.notFound("run", runId));
        if (!repositories.updateRunIfStatus(runId, "SCHEDULED", Map.of("status", "CANCELLED", "outcome", "CANCELLED",
                "cancelledBy", req.caller(), "cancelledAtMs", clock.millis()))) {
            String status = repositories.getRun(runId).map(Run::status).orElse(run.status());
            throw new ApiException(409, "RunNotScheduled", "run " + runId + " is " + status + ": DELETE cancels a"
                    + " SCHEDULED run only; abort a started one with POST /runs/" + runId + "/abort");
        }
        try {
            scheduler.deleteSchedule(DeleteScheduleRequest.builder().name(runId).groupName(config.groupName()).build());
        } catch (ResourceNotFoundException gone) {
            // already fired and deleted (ActionAfterCompletion DELETE): the start finds the run CANCELLED
        } catch (RuntimeException e) {
            // the run is CANCELLED: the schedule, if it fires, starts nothing and then deletes itself
            LOG.warn("schedule {} of cancelled run {} not deleted: {}", runId, runId, e.toString());
        }
        audit.record(req.teamId(), req.caller(), "CancelRun", runId, Map.of("status", "SCHEDULED"),
                Map.of("status", "CANCELLED"));
        return ApiResponse.json(200, Map.of("runId", runId, "status", "CANCELLED"));
    }
}
