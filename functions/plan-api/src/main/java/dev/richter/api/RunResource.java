package dev.richter.api;

import dev.richter.common.AccessDenied;
import dev.richter.common.AuditLog;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.RunFlags;
import dev.richter.common.RunMetricsRepository;
import dev.richter.common.model.Plan;
import dev.richter.common.model.Stages;
import dev.richter.common.model.Run;
import dev.richter.common.model.Verdict;
import dev.richter.common.model.WorkerResult;
import dev.richter.runs.RunLeases;
import dev.richter.report.AbortTiming;
import dev.richter.report.ReportRepository;
import dev.richter.report.StepFigures;
import dev.richter.runs.RunStart;
import dev.richter.runs.RunStarter;
import java.nio.charset.StandardCharsets;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.SfnException;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionRequest;

/**
 * {@code /plans/{planId}/runs} and {@code /runs/{runId}}: starting, listing, reading and aborting runs.
 *
 * <p><b>One run per target.</b> {@code POST /plans/{planId}/runs} starts through {@link RunStarter}, which leases
 * every service the plan touches ({@link RunLeases}) before it starts the execution: when another run holds one, 409
 * {@code TargetLeased} names that run, and nothing is started or stored. The state machine releases the leases when
 * the run ends, on every path. With an {@code Idempotency-Key} header, a repeated start of the same plan with the same
 * key answers the run the first one started (202 again, header {@code Idempotent-Replayed: true}) for 24 hours.
 */
final class RunResource {
    /** The longest {@code Idempotency-Key}, characters. */
    static final int MAX_IDEMPOTENCY_KEY_LENGTH = 200;

    private final Repositories repositories;
    private final PlanStore store;
    private final RunStarter starter;
    private final RunMetricsRepository metrics;
    private final ReportRepository reports;
    private static final Logger LOG = LogManager.getLogger(RunResource.class);
    /** Run statuses after which nothing runs any more. */
    private static final Set<String> ENDED = Set.of("COMPLETED", "FAILED", "FAILED_TO_START", "START_FAILED", "CANCELLED");

    private final RunFlags runFlags;
    private final AuditLog audit;
    private final SfnClient sfn;
    private final InputValidator input;
    private final PlannedStarts planned;
    private final java.time.Clock clock;

    RunResource(Repositories repositories, PlanStore store, RunStarter starter, RunMetricsRepository metrics,
                ReportRepository reports, RunFlags runFlags, AuditLog audit, SfnClient sfn, InputValidator input,
                PlannedStarts planned, java.time.Clock clock) {
        this.planned = planned;
        this.clock = clock;
        this.repositories = repositories;
        this.store = store;
        this.starter = starter;
        this.metrics = metrics;
        this.reports = reports;
        this.runFlags = runFlags;
        this.audit = audit;
        this.sfn = sfn;
        this.input = input;
    }

    /**
     * {@code POST /plans/{planId}/runs}: starts a run of the plan's current version ({@link RunStarter}) now, or, with
     * a body {@code {"startAt": "<RFC 3339>"}}, schedules it ({@link PlannedStarts#schedule}: 202 with status
     * {@code SCHEDULED}; 400 at {@code $.startAt} for a time not in the future or over 30 days ahead).
     *
     * @return 202 {@code {runId, planId, planVersion, executionArn, status}} and {@code Location: /runs/<runId>}; with
     *         an {@code Idempotency-Key} already used on this plan, the same answer for the run it started
     *         ({@code Idempotent-Replayed: true})
     * @throws ApiException 404 when the plan is absent; 400 for a malformed key; 400 {@code ValidationFailed} when the
     *                      plan no longer passes its checks (every {@code {path, reason}}); 409 {@code TargetLeased}
     *                      naming the run that holds a target, 409 {@code IdempotencyKeyInUse} while the first request
     *                      with the key is still starting; 503 {@code StartFailed} when the execution cannot start
     *                      (leases released, run {@code FAILED_TO_START})
     */
    ApiResponse start(ApiRequest req) {
        String planId = req.path("planId");
        boolean noBody = new String(req.body(), StandardCharsets.UTF_8).isBlank();
        String startAt = noBody ? "" : input.parse("StartRunRequest", req.body()).path("startAt").asText("");
        PlanStore.Versioned v = store.get(req.teamId(), planId).orElseThrow(() -> ApiException.notFound("plan", planId));
        String key = idempotencyKey(req);
        if (!startAt.isEmpty()) {
            return planned.schedule(req, v, PlannedStarts.startAt(startAt, clock.instant()), key);
        }
        return switch (starter.start(req.caller(), v.plan(), v.version(), key)) {
            case RunStart.Started s -> started(s);
            case RunStart.PlanRefused r -> throw ApiException.validationFailed(r.problems());
            case RunStart.TargetLeased t -> throw new ApiException(409, "TargetLeased", t.message(req.teamId()));
            case RunStart.KeyStillStarting k -> throw new ApiException(409, "IdempotencyKeyInUse", "a request with Idempotency-Key '"
                    + k.key() + "' is still starting run " + k.runId() + ": retry in a moment");
            case RunStart.ExecutionNotStarted n -> throw new ApiException(503, "StartFailed", "run " + n.runId()
                    + " could not start; its leases are released: retry");
            case RunStart.NotScheduled n -> throw new IllegalStateException("an immediate start is never scheduled: " + n);
        };
    }

    private static ApiResponse started(RunStart.Started s) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("runId", s.runId());
        body.put("planId", s.planId());
        body.put("planVersion", s.planVersion());
        body.put("executionArn", s.executionArn());
        body.put("status", s.status());
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Location", "/runs/" + s.runId());
        if (s.replayed()) {
            headers.put("Idempotent-Replayed", "true");
        }
        return new ApiResponse(202, "application/json", Json.write(body), headers);
    }

    /** The request's {@code Idempotency-Key}, empty when absent; 400 unless 1..200 visible ASCII characters. */
    private static String idempotencyKey(ApiRequest req) {
        String key = req.headers().get("idempotency-key");
        if (key == null) {
            return "";
        }
        if (key.isEmpty() || key.length() > MAX_IDEMPOTENCY_KEY_LENGTH || !key.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw ApiException.badField("header.Idempotency-Key", "must be 1 to " + MAX_IDEMPOTENCY_KEY_LENGTH
                    + " visible ASCII characters (e.g. a UUID)");
        }
        return key;
    }

    /**
     * {@code GET /plans/{planId}/runs}: the plan's runs, newest first, a page at a time:
     * {@code {items: [{runId, planId, planVersion, status, outcome, createdAtMs, abortRequested}]}}; 404 when the plan
     * is absent.
     */
    ApiResponse list(ApiRequest req) {
        String planId = req.path("planId");
        store.get(req.teamId(), planId).orElseThrow(() -> ApiException.notFound("plan", planId));
        return Cursor.respond(req, "runs:" + planId, Map.entry("planId", planId), (limit, start) -> {
            PlanStore.Page<Map<String, AttributeValue>> page = store.runs(planId, limit, start);
            return new PlanStore.Page<>(page.items().stream().filter(i -> Documents.text(i, "teamId").equals(req.teamId()))
                    .toList(), page.lastKey());
        }, Documents::runSummary);
    }

    /**
     * {@code GET /runs}: the team's runs across its plans, newest first, a page at a time (the runs table's index
     * {@code byTeam}: one query per page whatever the number of plans):
     * {@code {items: [{runId, planId, planVersion, status, outcome, createdAtMs, abortRequested}], nextCursor?}}.
     */
    ApiResponse listTeam(ApiRequest req) {
        return Cursor.respond(req, "runs:team:" + req.teamId(), Map.entry("teamId", req.teamId()),
                (limit, start) -> store.teamRuns(req.teamId(), limit, start), Documents::runSummary);
    }

    /**
     * {@code GET /runs/{runId}}: the run, its plan version, its execution's status, per-step figures of the steps
     * whose workers reported, the running step with its live load ({@link #current}; absent once the run ended), the
     * latest verdict per module and whether the report is written.
     *
     * @return 200 {@code {run, planVersion, failureReason?, executionStatus?, steps, current?, abort?, verdicts,
     *         reportReady}}; {@code abort} once the abort flag is set ({@link #abort})
     * @throws ApiException 404 for an unknown or another team's run
     */
    ApiResponse get(ApiRequest req) {
        String runId = req.path("runId");
        Run run = repositories.getRun(req.teamId(), runId).orElseThrow(() -> ApiException.notFound("run", runId));
        var runItem = store.runItem(runId);
        long planVersion = Documents.number(runItem, "planVersion", 1);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("run", run);
        body.put("planVersion", planVersion);
        if (!Documents.text(runItem, "failureReason").isEmpty()) {
            body.put("failureReason", Documents.text(runItem, "failureReason"));
        }
        if (runItem.containsKey("startAtMs")) {
            body.put("startAt", java.time.Instant.ofEpochMilli(Documents.number(runItem, "startAtMs", 0)).toString());
        }
        if (runItem.containsKey("startedAtMs")) {
            body.put("startedAtMs", Documents.number(runItem, "startedAtMs", 0));
        }
        if (!run.executionArn().isBlank()) {
            body.putAll(executionStatus(sfn, run.executionArn()));
        }
        List<WorkerResult> results = metrics.workerResults(runId);
        Map<String, List<WorkerResult>> byStep = results.stream()
                .collect(Collectors.groupingBy(r -> String.format("%d#%03d", stageRank(r.stage()), r.stepIndex()),
                        TreeMap::new, Collectors.toList()));
        Plan plan = store.version(run.planId(), planVersion).orElseThrow(() -> ApiException.notFound("plan", run.planId()));
        List<StepFigures> steps = new ArrayList<>();
        byStep.values().forEach(rs -> {
            WorkerResult r0 = rs.get(0);
            steps.add(StepFigures.merge(durationS(plan, r0.stage(), r0.stepIndex()), rs));
        });
        body.put("steps", steps.stream().map(RunResource::stepSummary).toList());
        if (!run.stage().isBlank() && run.stepIndex() >= 0 && !ENDED.contains(run.status())) {
            body.put("current", current(run, runItem, durationS(plan, run.stage(), run.stepIndex()), clock.millis()));
        }
        if (run.abortRequested()) {
            body.put("abort", abort(run, runItem, results));
        }
        Map<String, Verdict> latest = new TreeMap<>();
        reports.verdicts(runId).forEach(v -> latest.put(v.module(), v));
        body.put("verdicts", latest.values());
        body.put("reportReady", reports.get(runId, "json").isPresent());
        return ApiResponse.json(200, body);
    }

    /**
     * The run's execution status ({@code DescribeExecution}): {@code {executionStatus}} ({@code RUNNING},
     * {@code SUCCEEDED}, ...), or {@code {executionStatus: UNKNOWN, executionStatusError: "<code>: <message>"}} when
     * Step Functions cannot answer now (throttled, unavailable, unreachable), logged as an error.
     *
     * @throws SfnException when the call is denied ({@code AccessDeniedException}, HTTP 400; {@link AccessDenied}): a permission the
     *                      deployment lacks is a defect to see (a 500, logged and counted by the handler), never a
     *                      plausible {@code UNKNOWN}
     */
    static Map<String, Object> executionStatus(SfnClient sfn, String executionArn) {
        try {
            var ex = sfn.describeExecution(DescribeExecutionRequest.builder().executionArn(executionArn).build());
            return Map.of("executionStatus", ex.statusAsString());
        } catch (SfnException e) {
            String code = e.awsErrorDetails() == null ? "" : e.awsErrorDetails().errorCode();
            AccessDenied.rethrowIfDenied(e);
            LOG.error("DescribeExecution of {} failed: {}", executionArn, e.toString());
            return Map.of("executionStatus", "UNKNOWN", "executionStatusError",
                    (code == null || code.isEmpty() ? "HTTP " + e.statusCode() : code) + ": " + e.getMessage());
        } catch (SdkClientException e) {
            LOG.error("DescribeExecution of {} failed: {}", executionArn, e.toString());
            return Map.of("executionStatus", "UNKNOWN", "executionStatusError", "unreachable: " + e.getMessage());
        }
    }

    /**
     * The planned duration of a step of {@code plan}, seconds; 0 for a step the plan does not have. The confirm step's
     * is its slot's bound ({@link Plan#confirmSlot()}): it runs for the failing step's duration, at most that.
     */
    static int durationS(Plan plan, String stage, int stepIndex) {
        return stage.equals(Stages.WARM_UP)
                ? (stepIndex < plan.warmUpSteps().size() ? plan.warmUpSteps().get(stepIndex).durationS() : 0)
                : stage.equals(Stages.PRE_TEST) ? plan.preTest().durationS()
                : stage.equals(Stages.CONFIRM) ? (plan.formal().size() < 2 ? 0 : plan.confirmSlot().durationS())
                : stepIndex < plan.formal().size() ? plan.formal().get(stepIndex).durationS() : 0;
    }

    /**
     * What an operator who pressed abort needs to see: {@code {reason, requestedAtMs?, latencyMs?, drainMs?}}, the
     * latency and drain from the workers' results as the report gives them ({@link AbortTiming}); each absent until
     * known (the flag's time on the run item; the latency and drain once the aborted workers reported).
     */
    static Map<String, Object> abort(Run run, Map<String, AttributeValue> runItem, List<WorkerResult> results) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("reason", run.abortReason() == null ? "" : run.abortReason());
        long at = Documents.number(runItem, "abortRequestedAtMs", 0);
        AbortTiming.of(at > 0 ? java.util.OptionalLong.of(at) : java.util.OptionalLong.empty(), results).ifPresent(t -> {
            m.put("requestedAtMs", t.requestedAtMs());
            if (t.latencyMs() != null) {
                m.put("latencyMs", t.latencyMs());
            }
            if (t.drainMs() != null) {
                m.put("drainMs", t.drainMs());
            }
        });
        return m;
    }

    static Map<String, Object> stepSummary(StepFigures f) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("stage", f.stage());
        m.put("stepIndex", f.stepIndex());
        m.put("targetQps", f.targetQps());
        m.put("achievedQps", f.achievedQps());
        m.put("sent", f.counters().sent());
        m.put("errors", f.counters().errors());
        m.put("p50Ms", f.latencyMs().get("p50")); // null when the step recorded no latency (nothing answered)
        m.put("p99Ms", f.latencyMs().get("p99"));
        m.put("workers", f.workersReported() + "/" + f.workersExpected());
        m.put("elapsedS", f.startedAtMs() > 0 && f.endedAtMs() >= f.startedAtMs()
                ? (f.endedAtMs() - f.startedAtMs()) / 1000.0 : null);
        return m;
    }

    /**
     * The running step ({@code current}): which it is, its target rate and planned end (the run item, written when
     * the step starts), and its live load ({@code live}) as the fault decider last read it, when that was this step.
     * One item read, whatever the number of workers: the windows themselves are never scanned here.
     *
     * @param durationS the step's planned duration, seconds
     * @param nowMs     now, epoch ms
     * @return {@code {stage, stepIndex, targetQps, endsAtMs, startsAtMs, elapsedS, live?: {atMs, seconds, completed,
     *         errors, qps, errorRatePct, p99Ms}}}: {@code startsAtMs} is when its first request was due
     *         ({@code endsAtMs} less the planned duration), {@code elapsedS} the seconds since then (0 before it)
     */
    static Map<String, Object> current(Run run, Map<String, AttributeValue> runItem, int durationS, long nowMs) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("stage", run.stage());
        m.put("stepIndex", run.stepIndex());
        AttributeValue qps = runItem.get("stepQps");
        m.put("targetQps", qps == null || qps.n() == null ? null : Double.parseDouble(qps.n()));
        long endsAtMs = Documents.number(runItem, "stepEndsAtMs", 0);
        m.put("endsAtMs", endsAtMs);
        long startsAtMs = endsAtMs - durationS * 1000L;
        m.put("startsAtMs", startsAtMs);
        m.put("elapsedS", Math.max(0, nowMs - startsAtMs) / 1000.0);
        RunFlags.liveLoad(runItem).filter(l -> l.stage().equals(run.stage()) && l.stepIndex() == run.stepIndex())
                .ifPresent(l -> {
                    Map<String, Object> live = new LinkedHashMap<>();
                    live.put("atMs", l.atMs());
                    live.put("seconds", l.seconds());
                    live.put("completed", l.completed());
                    live.put("errors", l.errors());
                    live.put("qps", l.qps());
                    live.put("errorRatePct", l.errorRatePct());
                    live.put("p99Ms", l.p99Ms());
                    m.put("live", live);
                });
        return m;
    }

    /**
     * {@code POST /runs/{runId}/abort} {@code {"reason"?}} (or no body): sets the run's abort flag; the workers stop
     * within a second and the run ends {@code ABORTED}.
     *
     * @return 202 {@code {runId, abortRequested: true}}
     * @throws ApiException 400 {@code InvalidJson} or {@code ValidationFailed} for a body that is not
     *                      {@code AbortRequest} ({@code {"reason"}}, a reason of at most 1000 characters: a misspelled
     *                      field is refused at its path, never dropped); 404 for an unknown or another team's run; 409
     *                      {@code RunFinished} when it has ended
     */
    ApiResponse abort(ApiRequest req) {
        String runId = req.path("runId");
        boolean noBody = new String(req.body(), StandardCharsets.UTF_8).isBlank();
        String reason = noBody ? "" : input.parse("AbortRequest", req.body()).path("reason").asText("").strip();
        Run run = repositories.getRun(req.teamId(), runId).orElseThrow(() -> ApiException.notFound("run", runId));
        if (ENDED.contains(run.status())) {
            throw new ApiException(409, "RunFinished", "run " + runId + " is " + run.status() + ": nothing to abort");
        }
        runFlags.requestAbort(runId, "requested by " + req.caller() + (reason.isEmpty() ? "" : ": " + reason));
        audit.record(req.teamId(), req.caller(), "AbortRun", runId, Map.of("abortRequested", run.abortRequested()),
                Map.of("abortRequested", true));
        return ApiResponse.json(202, Map.of("runId", runId, "abortRequested", true));
    }

    /** {@code DELETE /runs/{runId}}: cancels a scheduled run ({@link PlannedStarts#cancel}). */
    ApiResponse cancel(ApiRequest req) {
        return planned.cancel(req);
    }

    /**
     * Order of a stage's steps in {@code steps}: pre-test 0, warm-up 1 (after the dynamic gate), formal 2, the confirm
     * step 3 (it runs between two formal steps; its own stage keeps it apart from formal step 1).
     */
    static int stageRank(String stage) {
        return switch (stage) {
            case Stages.PRE_TEST -> 0;
            case Stages.WARM_UP -> 1;
            case Stages.CONFIRM -> 3;
            default -> 2;
        };
    }
}
