package dev.richter.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.AuditLog;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.model.Plan;
import dev.richter.runs.RunLeases;
import dev.richter.sizing.Prices;
import dev.richter.sizing.Quotas;
import dev.richter.sizing.RunEstimate;
import dev.richter.runs.InputProblem;
import dev.richter.runs.PlanDocument;
import dev.richter.runs.PlanValidator;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * {@code /plans}: the team's load-test plans ({@code PlanInput} and {@code Plan} in openapi.json).
 *
 * <p><b>Plans are versioned.</b> {@code POST /plans} stores version 1; {@code PUT /plans/{planId}} (the same body,
 * server fields ignored; {@code If-Match: "<version>"} optional) stores the next version; a run records the version it
 * started with ({@code planVersion}). A plan whose run holds its leases can be neither replaced nor deleted (409
 * {@code PlanInUse}). {@code ETag} is the version, quoted.
 *
 * <p><b>Plans must fit AWS.</b> A plan is stored only when {@link PlanValidator} finds no problem: the schema, the
 * registry, the stored sets, the team's QPS cap and the limits of its run ({@link RunEstimate}, against the current
 * {@link Quotas}: AWS's limits unless the environment lowers them, as the local stack does). Else 400
 * {@code ValidationFailed} with one {@code {path, reason}} per problem, e.g. {@code {"path": "$.formal.steps[1].qps",
 * "reason": "formal step 2 needs 2,002 concurrent Lambda executions (...), over the account's Lambda concurrency limit
 * of 1,000"}}; nothing is stored.
 *
 * <p><b>{@code GET /plans/{planId}/estimate}</b> (team-scoped: another team's plan is a 404) answers 200 with the
 * plan's {@link RunEstimate} as JSON, against the same quotas and {@link Prices#US_EAST_1}:
 * <pre>{@code
 * {"planId", "quotas": {...Quotas}, "prices": {"lambdaArchitecture", ...Prices},
 *  "steps": [{"stage", "stepIndex", "path", "qps", "durationS", "workers", "legs", "legMs", "peakConcurrentWorkers",
 *             "peakConcurrentLambdas", "monitorRounds", "largestLegHistoryEvents", "startedStepBytes",
 *             "legInputBytes", "longestInvocationS", "workerInvocations", "loadDriverGbSeconds"}],
 *  "executions": {"total", "parent", "legs", "workers"},
 *  "maxHistoryEvents", "maxHistoryExecution", "historyEvents": {"parent", "largestLeg", "worker", "limit"},
 *  "peakConcurrentWorkers", "peakConcurrentLambdas", "lambdaReserve", "lambdaConcurrencyLeft",
 *  "workerCapacity": {"perWorkerQps", "vcpus", "measuredBy", "measurement"},
 *  "inFlight": {"perWorkerQps", "expectedLatencyMs", "inFlightNeeded", "inFlightCap", "maxInFlight", "connectionsHttp1",
 *               "connectionsHttp2", "latencyHeldMs"},
 *  "maxMapConcurrency",
 *  "lambdaInvocations": {"run-preparation", "checks", "load-driver", "probe", "fault-decider", "report"},
 *  "statePayloads": {"largestBytes", "largestState", "startedStepBytes", "legInputBytes", "parentStateBytes",
 *                    "planItemBytes", "limitBytes"},
 *  "longestInvocationS", "stateTransitions",
 *  "dynamoDb": {"windowItems", "resultItems", "verdictItems", "stepItems", "writeRequestUnits", "readRequestUnits"},
 *  "costUsd": {"loadDriverGbSeconds", "otherGbSeconds", "loadDriverCompute", "otherCompute", "lambdaRequests",
 *              "stateTransitions", "dynamoDbWrites", "dynamoDbReads", "total"},
 *  "usdPerMillionRequests",
 *  "assumptions": ["...", "cost on arm64 at list prices: load driver <GB-s> x $<price> = $<usd>; ... = $<x> per million"],
 *  "violations": [{"path", "limit": {"name", "value", "source"}, "reason"}]}
 * }</pre>
 * Units are in the names (bytes, ms, s, USD); counts are per run, without retries. A plan stored before a quota was
 * lowered may show violations here; its start is refused the same way ({@link RunResource#start}).
 */
final class PlanResource {
    private final Repositories repositories;
    private final PlanStore store;
    private final RunLeases leases;
    private final PlanValidator validator;
    private final AuditLog audit;
    private final Supplier<Quotas> quotas;
    private final Clock clock;

    PlanResource(Repositories repositories, PlanStore store, RunLeases leases, PlanValidator validator, AuditLog audit,
                 Supplier<Quotas> quotas, Clock clock) {
        this.repositories = repositories;
        this.store = store;
        this.leases = leases;
        this.validator = validator;
        this.audit = audit;
        this.quotas = quotas;
        this.clock = clock;
    }

    /**
     * {@code POST /plans}: creates a plan once {@link PlanValidator} finds no problem. Server fields in the body
     * ({@code planId}, {@code teamId}, {@code version}, {@code createdAtMs}, {@code updatedAtMs}) are ignored.
     *
     * @return 201 with the stored plan (version 1), {@code Location: /plans/<planId>} and {@code ETag}
     * @throws ApiException 400 {@code InvalidJson}; 400 {@code ValidationFailed} with every {@code {path, reason}}
     *                      found; nothing is stored
     */
    ApiResponse create(ApiRequest req) {
        Plan plan = validPlan(req, "plan-" + UUID.randomUUID(), clock.millis());
        store.create(plan);
        PlanStore.Versioned stored = new PlanStore.Versioned(plan, 1, plan.createdAtMs());
        audit.record(req.teamId(), req.caller(), "CreatePlan", plan.planId(), null, Documents.plan(stored));
        return planResponse(201, stored, Map.of("Location", "/plans/" + plan.planId()));
    }

    /**
     * {@code PUT /plans/{planId}}: replaces a plan by the body (as {@code POST /plans} takes it) as its next version.
     *
     * @return 200 with the stored plan
     * @throws ApiException 404 when absent; 412 {@code PreconditionFailed} when {@code If-Match} names another version;
     *                      409 {@code PlanInUse} while a run of the plan holds its leases, 409 {@code VersionConflict}
     *                      when another replacement won; 400 as {@link #create}
     */
    ApiResponse replace(ApiRequest req) {
        String planId = req.path("planId");
        PlanStore.Versioned current = current(req, planId);
        checkIfMatch(req, current);
        Plan plan = validPlan(req, planId, current.plan().createdAtMs());
        checkNotRunning(req.teamId(), current.plan(), "replaced");
        long now = clock.millis();
        if (!store.replace(plan, current.version(), now)) {
            throw new ApiException(409, "VersionConflict", "plan " + planId + " was replaced meanwhile (version "
                    + current.version() + " is no longer current): read it again and retry");
        }
        PlanStore.Versioned stored = new PlanStore.Versioned(plan, current.version() + 1, now);
        audit.record(req.teamId(), req.caller(), "ReplacePlan", planId, Documents.plan(current), Documents.plan(stored));
        return planResponse(200, stored, Map.of());
    }

    /**
     * {@code DELETE /plans/{planId}}: deletes a plan: 204. Its runs and their reports stay readable (they keep the
     * plan version they ran).
     *
     * @throws ApiException 404 when absent; 412 as {@link #replace}; 409 {@code PlanInUse} while a run of the plan
     *                      holds its leases
     */
    ApiResponse delete(ApiRequest req) {
        String planId = req.path("planId");
        PlanStore.Versioned current = current(req, planId);
        checkIfMatch(req, current);
        checkNotRunning(req.teamId(), current.plan(), "deleted");
        store.delete(planId);
        audit.record(req.teamId(), req.caller(), "DeletePlan", planId, Documents.plan(current), null);
        return ApiResponse.noContent();
    }

    /** {@code GET /plans}: the team's plans, newest first, a page at a time ({@link Cursor}). */
    ApiResponse list(ApiRequest req) {
        return Cursor.respond(req, "plans:" + req.teamId(), Map.entry("teamId", req.teamId()),
                (limit, start) -> store.plans(req.teamId(), limit, start), Documents::plan);
    }

    /** {@code GET /plans/{planId}}: 200 with the current version and its {@code ETag}; 404 when absent. */
    ApiResponse get(ApiRequest req) {
        return planResponse(200, current(req, req.path("planId")), Map.of());
    }

    /**
     * {@code GET /plans/{planId}/estimate}: the plan's run estimate (shape in the class documentation) against the
     * current {@link Quotas} and {@link Prices#US_EAST_1}, probing the team's registered services among the plan's
     * modules.
     *
     * @return 200 with the estimate
     * @throws ApiException 404 when the plan does not exist or belongs to another team
     */
    ApiResponse estimate(ApiRequest req) {
        String planId = req.path("planId");
        Plan plan = repositories.getPlan(req.teamId(), planId).orElseThrow(() -> ApiException.notFound("plan", planId));
        return ApiResponse.json(200, RunEstimate.of(plan, validator.services(plan), quotas.get(), Prices.US_EAST_1));
    }

    /**
     * The plan id of a draft's estimate: nothing is stored under it. It is as long as a stored plan's id ({@code plan-}
     * and a UUID), so the estimate's payload sizes are those the plan will have once saved.
     */
    static final String DRAFT_PLAN_ID = "plan-00000000-0000-0000-0000-000000000000";

    /**
     * {@code POST /plans/estimate}: the estimate of a plan not saved yet (the body as {@code POST /plans} takes it),
     * checked as {@code POST /plans} checks it; nothing is stored or audited. Its {@code planId} is
     * {@value #DRAFT_PLAN_ID}.
     *
     * @return 200 with the estimate, as {@link #estimate} gives it for a stored plan
     * @throws ApiException 400 as {@link #create}
     */
    ApiResponse estimateDraft(ApiRequest req) {
        Plan plan = validPlan(req, DRAFT_PLAN_ID, clock.millis());
        return ApiResponse.json(200, RunEstimate.of(plan, validator.services(plan), quotas.get(), Prices.US_EAST_1));
    }

    /** The team's plan {@code planId}, current version; 404 when absent or another team's. */
    PlanStore.Versioned current(ApiRequest req, String planId) {
        return store.get(req.teamId(), planId).orElseThrow(() -> ApiException.notFound("plan", planId));
    }

    /**
     * The plan a {@code POST /plans} or {@code PUT /plans/{planId}} body describes, checked by {@link PlanValidator}.
     *
     * @throws ApiException 400 {@code InvalidJson}; 400 {@code ValidationFailed} with every {@code {path, reason}} found
     */
    private Plan validPlan(ApiRequest req, String planId, long createdAtMs) {
        JsonNode doc = InputValidator.parseJson(req.body());
        List<InputProblem> problems = validator.problems(doc, req.teamId(), planId, createdAtMs);
        if (!problems.isEmpty()) {
            throw ApiException.validationFailed(problems);
        }
        return PlanDocument.toPlan(doc, req.teamId(), planId, createdAtMs);
    }

    /** 412 when {@code If-Match} is sent and names another version than the current one. */
    private static void checkIfMatch(ApiRequest req, PlanStore.Versioned current) {
        String ifMatch = req.headers().get("if-match");
        if (ifMatch == null || ifMatch.isBlank() || ifMatch.strip().equals("*")) {
            return;
        }
        String wanted = ifMatch.strip().replaceFirst("^W/", "").replace("\"", "");
        if (!wanted.equals(Long.toString(current.version()))) {
            throw new ApiException(412, "PreconditionFailed", "If-Match " + ifMatch.strip() + " does not name the current version \""
                    + current.version() + "\" of plan " + current.plan().planId());
        }
    }

    /** 409 {@code PlanInUse} while a run of {@code plan} holds a lease on one of its services. */
    private void checkNotRunning(String teamId, Plan plan, String what) {
        for (String service : RunLeases.targets(plan)) {
            leases.holder(teamId, service).filter(l -> l.planId().equals(plan.planId())).ifPresent(l -> {
                throw new ApiException(409, "PlanInUse", "plan " + plan.planId() + " cannot be " + what + " while its run "
                        + l.runId() + " runs: wait for it to end or abort it (POST /runs/" + l.runId() + "/abort)");
            });
        }
    }

    private static ApiResponse planResponse(int status, PlanStore.Versioned v, Map<String, String> headers) {
        Map<String, String> h = new LinkedHashMap<>(headers);
        h.put("ETag", "\"" + v.version() + "\"");
        return new ApiResponse(status, "application/json", Json.write(Documents.plan(v)), h);
    }
}
