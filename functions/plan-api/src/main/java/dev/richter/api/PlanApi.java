package dev.richter.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.RunFlags;
import dev.richter.common.RunMetricsRepository;
import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.Run;
import dev.richter.common.model.Verdict;
import dev.richter.common.model.WorkerResult;
import dev.richter.common.sizing.Prices;
import dev.richter.common.sizing.Quotas;
import dev.richter.common.sizing.RunEstimate;
import dev.richter.links.IngestResult;
import dev.richter.links.LinkService;
import dev.richter.links.trace.TraceFormatException;
import dev.richter.report.ReportRepository;
import dev.richter.report.StepFigures;
import java.security.SecureRandom;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionRequest;
import software.amazon.awssdk.services.sfn.model.StartExecutionRequest;

/**
 * The HTTP API's operations (DESIGN.md §1, §7). Every read and write is scoped to the caller's
 * team: another team's plan or run is a 404, never a 403 (no existence leak).
 *
 * <p>Routes (API Gateway route keys): {@code POST /plans}, {@code GET /plans/{planId}},
 * {@code POST /plans/{planId}/runs}, {@code GET /runs/{runId}}, {@code POST /runs/{runId}/abort},
 * {@code GET /runs/{runId}/report} ({@code ?format=html} for the HTML page), {@code POST /services},
 * {@code POST /traces} (a trace file in any supported format; {@code ?file=<name>} names it in errors),
 * {@code PUT /safety} / {@code GET /safety} (the team's safety configuration, registry item {@value #SAFETY_ITEM_KEY},
 * read by the checks function), {@code GET /safety/mocks} (its exit mocks as the {@code dev.richter.sdk.ExitMocks}
 * document {@code {"mocks":[...]}}) and {@code GET /plans/{planId}/estimate}.
 *
 * <p><b>Plans must fit AWS.</b> {@code POST /plans} lays the plan out as it will run ({@link RunEstimate}, against
 * {@link Quotas#fromEnv()}: AWS's limits unless the environment lowers them, as the local stack does) and refuses it
 * with a 400 {@code ValidationFailed} when any limit would break (account Lambda concurrency, Distributed Map
 * concurrency, history events per execution, state payload, the load driver's timeout, DynamoDB's item size), one
 * {@code {path, reason}} per violation, e.g. {@code {"path": "$.formal.steps[1].qps", "reason": "formal step 2 needs
 * 2,002 concurrent Lambda executions (...), over the account's Lambda concurrency limit of 1,000"}}; nothing is stored.
 *
 * <p><b>{@code GET /plans/{planId}/estimate}</b> (team-scoped: another team's plan is a 404) answers 200 with the
 * plan's {@link RunEstimate} as JSON, against the same quotas and {@link Prices#US_EAST_1}:
 * <pre>{@code
 * {"planId", "quotas": {...Quotas}, "prices": {...Prices},
 *  "steps": [{"stage", "stepIndex", "path", "qps", "durationS", "workers", "legs", "legMs", "peakConcurrentWorkers",
 *             "peakConcurrentLambdas", "monitorRounds", "largestLegHistoryEvents", "startedStepBytes",
 *             "legInputBytes", "longestInvocationS", "workerInvocations", "loadDriverGbSeconds"}],
 *  "executions": {"total", "parent", "legs", "workers"},
 *  "maxHistoryEvents", "maxHistoryExecution", "historyEvents": {"parent", "largestLeg", "worker", "limit"},
 *  "peakConcurrentWorkers", "peakConcurrentLambdas", "maxMapConcurrency",
 *  "lambdaInvocations": {"data-construction", "checks", "load-driver", "probe", "fault-decider", "report"},
 *  "statePayloads": {"largestBytes", "largestState", "startedStepBytes", "legInputBytes", "parentStateBytes",
 *                    "planItemBytes", "limitBytes"},
 *  "longestInvocationS", "stateTransitions",
 *  "dynamoDb": {"windowItems", "resultItems", "verdictItems", "stepItems", "writeRequestUnits", "readRequestUnits"},
 *  "costUsd": {"loadDriverGbSeconds", "otherGbSeconds", "loadDriverCompute", "otherCompute", "lambdaRequests",
 *              "stateTransitions", "dynamoDbWrites", "dynamoDbReads", "total"},
 *  "assumptions": ["..."],
 *  "violations": [{"path", "limit": {"name", "value", "source"}, "reason"}]}
 * }</pre>
 * Units are in the names (bytes, ms, s, USD); counts are per run, without retries. A plan stored before a quota was
 * lowered may show violations here; it would fail the same way when run.
 */
public final class PlanApi {
    /** Highest step rate a team may plan, requests per second (DESIGN.md §7 per-team QPS cap; env {@code MAX_TEAM_QPS}). */
    public static final double DEFAULT_MAX_TEAM_QPS = 5_000;
    private static final DateTimeFormatter RUN_TIME = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss").withZone(ZoneOffset.UTC);
    private static final SecureRandom RANDOM = new SecureRandom();
    /** Registry item of a team's safety configuration (the checks function's {@code SafetyConfig.ITEM_KEY}). */
    public static final String SAFETY_ITEM_KEY = "safety#config";
    /**
     * A plan's {@code perWorkerQps} when it omits it, requests per second per load-driver worker (one 1769 MB Lambda:
     * one vCPU). Sized by measurement (docs/production-size.md, "Workers sized by measurement"): in three runs of
     * {@code bench/load-driver.sh} on one core of a shared 2-core machine, the slower transport sustained 9 323,
     * 9 323 and 14 568 requests per second (open model, nothing dropped). With a margin of ×0.125 on the lowest —
     * half for a Lambda vCPU slower than that core, half for TLS and real bodies (the JDK client), half to keep the
     * worker's CPU under 50 % so the schedule's jitter holds — that is 1 165, rounded down to 1 000, which also keeps
     * the in-flight cap (2 000) above {@code rate × latency} for latencies up to 2 s.
     */
    public static final double DEFAULT_PER_WORKER_QPS = 1_000;
    /** A plan's {@code requestTimeoutMs} when it omits it, milliseconds. */
    public static final int DEFAULT_REQUEST_TIMEOUT_MS = 2000;

    private final Repositories repositories;
    private final RunMetricsRepository metrics;
    private final ReportRepository reports;
    private final RunFlags runFlags;
    private final AuditLog audit;
    private final SfnClient sfn;
    private final String stateMachineArn;
    private final InputValidator validator = new InputValidator();
    private final double maxTeamQps;
    private final LinkService links;
    private final Supplier<Quotas> quotas;

    /**
     * Plans are checked against {@link Quotas#fromEnv()}, read on every request.
     *
     * @param repositories    DynamoDB access
     * @param sfn             Step Functions client
     * @param stateMachineArn the load-test-run state machine
     * @param maxTeamQps      per-team cap on any step's QPS
     */
    public PlanApi(Repositories repositories, SfnClient sfn, String stateMachineArn, double maxTeamQps) {
        this(repositories, sfn, stateMachineArn, maxTeamQps, Quotas::fromEnv);
    }

    /**
     * @param repositories    DynamoDB access
     * @param sfn             Step Functions client
     * @param stateMachineArn the load-test-run state machine
     * @param maxTeamQps      per-team cap on any step's QPS
     * @param quotas          the limits plans are checked and estimated against, read on every request
     */
    public PlanApi(Repositories repositories, SfnClient sfn, String stateMachineArn, double maxTeamQps,
                   Supplier<Quotas> quotas) {
        this.quotas = quotas;
        this.repositories = repositories;
        this.metrics = new RunMetricsRepository(repositories.dynamoDb(), repositories.tables().runMetrics());
        this.reports = new ReportRepository(repositories.dynamoDb(), repositories.tables().reports(), repositories.tables().verdicts());
        this.runFlags = new RunFlags(repositories.dynamoDb(), repositories.tables().runs());
        this.audit = new AuditLog(repositories.dynamoDb(), repositories.tables().audit());
        this.sfn = sfn;
        this.stateMachineArn = stateMachineArn;
        this.maxTeamQps = maxTeamQps;
        this.links = new LinkService(repositories.dynamoDb(), repositories.tables().links());
    }

    /** Dispatches by API Gateway route key; unknown routes are 404. */
    public ApiResponse handle(ApiRequest req) {
        return switch (req.routeKey()) {
            case "POST /plans" -> createPlan(req);
            case "GET /plans/{planId}" -> getPlan(req);
            case "GET /plans/{planId}/estimate" -> getEstimate(req);
            case "POST /plans/{planId}/runs" -> startRun(req);
            case "GET /runs/{runId}" -> getRun(req);
            case "POST /runs/{runId}/abort" -> abortRun(req);
            case "GET /runs/{runId}/report" -> getReport(req);
            case "POST /services" -> registerService(req);
            case "POST /traces" -> ingestTraces(req);
            case "PUT /safety" -> putSafetyConfig(req);
            case "GET /safety" -> getSafetyConfig(req);
            case "GET /safety/mocks" -> getSafetyMocks(req);
            default -> throw new ApiException(404, "NoSuchRoute", "no route " + req.routeKey());
        };
    }

    ApiResponse registerService(ApiRequest req) {
        JsonNode doc = validator.parse("service", req.body());
        RegisteredService service = Json.MAPPER.convertValue(doc, RegisteredService.class);
        service = new RegisteredService(req.teamId(), service.name(), stripSlash(service.baseUrl()), service.healthPath(),
                service.prometheusPath(), service.datastores());
        var before = repositories.getService(req.teamId(), service.name()).orElse(null);
        repositories.putService(service);
        audit.record(req.teamId(), req.caller(), "RegisterService", "service#" + service.name(), before, service);
        return ApiResponse.json(before == null ? 201 : 200, service);
    }

    /**
     * Stores the team's safety configuration (schema {@code schemas/safety.schema.json}), replacing the previous
     * one: 201 when new, 200 when replaced; audited with before and after.
     */
    ApiResponse putSafetyConfig(ApiRequest req) {
        JsonNode doc = validator.parse("safety", req.body());
        List<Map<String, String>> problems = new ArrayList<>();
        JsonNode mocks = doc.path("mocks");
        for (int i = 0; i < mocks.size(); i++) {
            for (int j = 0; j < i; j++) {
                if (mocks.get(i).path("exit").asText().trim().equals(mocks.get(j).path("exit").asText().trim())) {
                    problems.add(Map.of("path", "$.mocks[" + i + "].exit", "reason", "duplicate of $.mocks[" + j + "].exit"));
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new ApiException(400, "ValidationFailed", problems.get(0).get("path") + ": " + problems.get(0).get("reason"), problems);
        }
        JsonNode before = safetyConfig(req.teamId());
        repositories.putRegistryDoc(req.teamId(), SAFETY_ITEM_KEY, doc);
        audit.record(req.teamId(), req.caller(), "PutSafetyConfig", SAFETY_ITEM_KEY, before, doc);
        return ApiResponse.json(before == null ? 201 : 200, doc);
    }

    ApiResponse getSafetyConfig(ApiRequest req) {
        JsonNode doc = safetyConfig(req.teamId());
        if (doc == null) {
            throw new ApiException(404, "NotFound", "team " + req.teamId() + " has no safety configuration (PUT /safety)");
        }
        return ApiResponse.json(200, doc);
    }

    /** The team's exit mocks for {@code dev.richter.sdk.ExitMocks}: {@code {"mocks":[...]}}, empty when none are configured. */
    ApiResponse getSafetyMocks(ApiRequest req) {
        JsonNode doc = safetyConfig(req.teamId());
        Object mocks = doc == null || !doc.path("mocks").isArray() ? List.of() : doc.get("mocks");
        return ApiResponse.json(200, Map.of("mocks", mocks));
    }

    /** The stored safety configuration of the team, or null when it has none. */
    private JsonNode safetyConfig(String teamId) {
        List<String> docs = repositories.latestRegistryDocs(teamId, SAFETY_ITEM_KEY, 1);
        return docs.isEmpty() ? null : Json.read(docs.get(0), JsonNode.class);
    }

    ApiResponse ingestTraces(ApiRequest req) {
        String file = req.query().getOrDefault("file", "upload");
        if (req.body().length == 0) {
            throw ApiException.badField("$", "body is empty: send a trace file (OTLP, Zipkin v2, Jaeger or X-Ray JSON)");
        }
        try {
            IngestResult result = links.ingest(req.teamId(), file, req.body());
            audit.record(req.teamId(), req.caller(), "IngestTraces", file, null,
                    Map.of("bytes", req.body().length));
            return ApiResponse.json(200, result);
        } catch (TraceFormatException e) {
            throw new ApiException(400, "InvalidTraceFile", e.getMessage(), List.of(Map.of("path", e.fileName() + ":" + e.line() + ":" + e.column(),
                    "reason", e.reason())));
        }
    }

    /**
     * Creates a plan: schema, registry (every scenario service and core module registered by the team), the team's
     * QPS cap and the AWS limits of its run ({@link RunEstimate#violations()} against the current {@link Quotas}).
     *
     * @return 201 with the stored plan and {@code Location: /plans/<planId>}
     * @throws ApiException 400 {@code ValidationFailed} with every {@code {path, reason}} found; nothing is stored
     */
    ApiResponse createPlan(ApiRequest req) {
        JsonNode doc = validator.parse("plan", req.body());
        List<Map<String, String>> problems = new ArrayList<>();
        Map<String, RegisteredService> registered = new LinkedHashMap<>();
        JsonNode scenarios = doc.path("scenarios");
        for (int i = 0; i < scenarios.size(); i++) {
            String service = scenarios.get(i).path("service").asText();
            if (lookUp(req.teamId(), service, registered).isEmpty()) {
                problems.add(Map.of("path", "$.scenarios[" + i + "].service",
                        "reason", "service '" + service + "' is not registered by team '" + req.teamId() + "'"));
            }
        }
        JsonNode core = doc.path("coreModules");
        for (int i = 0; i < core.size(); i++) {
            String module = core.get(i).asText();
            if (lookUp(req.teamId(), module, registered).isEmpty()) {
                problems.add(Map.of("path", "$.coreModules[" + i + "]",
                        "reason", "module '" + module + "' is not a service registered by team '" + req.teamId() + "'"));
            }
        }
        checkQpsCap(doc.path("preTest"), "$.preTest.qps", problems);
        JsonNode steps = doc.path("formal").path("steps");
        for (int i = 0; i < steps.size(); i++) {
            checkQpsCap(steps.get(i), "$.formal.steps[" + i + "].qps", problems);
        }
        Plan plan = toPlan(doc, req.teamId());
        RunEstimate estimate = RunEstimate.of(plan, List.copyOf(registered.values()), quotas.get(), Prices.US_EAST_1);
        estimate.violations().forEach(v -> problems.add(Map.of("path", v.path(), "reason", v.reason())));
        if (!problems.isEmpty()) {
            throw new ApiException(400, "ValidationFailed", problems.get(0).get("path") + ": " + problems.get(0).get("reason"), problems);
        }
        repositories.putPlan(plan);
        audit.record(req.teamId(), req.caller(), "CreatePlan", plan.planId(), null, plan);
        return new ApiResponse(201, "application/json", Json.write(plan), Map.of("Location", "/plans/" + plan.planId()));
    }

    /** The team's registered service {@code name}, from {@code seen} or the registry (then remembered in {@code seen}). */
    private java.util.Optional<RegisteredService> lookUp(String teamId, String name, Map<String, RegisteredService> seen) {
        if (seen.containsKey(name)) {
            return java.util.Optional.of(seen.get(name));
        }
        java.util.Optional<RegisteredService> found = repositories.getService(teamId, name);
        found.ifPresent(s -> seen.put(name, s));
        return found;
    }

    private void checkQpsCap(JsonNode step, String path, List<Map<String, String>> problems) {
        double qps = step.path("qps").asDouble();
        if (qps > maxTeamQps) {
            problems.add(Map.of("path", path, "reason", qps + " exceeds the team's QPS cap of " + maxTeamQps
                    + " (template parameter MaxTeamQps, DESIGN.md §7)"));
        }
    }

    /**
     * The plan a schema-valid {@code POST /plans} body describes, with a new id ({@code plan-<uuid>}), the caller's
     * team, the creation time and the defaults applied: scenario weight 1, {@link Plan.AbortPolicy#DEFAULT},
     * {@code perWorkerQps} {@value #DEFAULT_PER_WORKER_QPS}, {@code requestTimeoutMs} {@value #DEFAULT_REQUEST_TIMEOUT_MS}.
     * Public so that tools reading plan files (bench/scale.sh) apply the same defaults.
     *
     * @param doc    the body, already valid against {@code schemas/plan.schema.json}
     * @param teamId the owning team
     */
    public static Plan toPlan(JsonNode doc, String teamId) {
        List<Plan.ScenarioSpec> scenarios = new ArrayList<>();
        for (JsonNode s : doc.path("scenarios")) {
            List<Plan.RequestSpec> requests = new ArrayList<>();
            for (JsonNode r : s.path("requests")) {
                Map<String, String> headers = new TreeMap<>();
                r.path("headers").fields().forEachRemaining(e -> headers.put(e.getKey(), e.getValue().asText()));
                requests.add(new Plan.RequestSpec(r.path("method").asText(), r.path("path").asText(), headers,
                        r.hasNonNull("body") ? r.get("body").asText() : null,
                        r.hasNonNull("bodyBase64") ? r.get("bodyBase64").asText() : null));
            }
            scenarios.add(new Plan.ScenarioSpec(s.path("name").asText(), s.path("service").asText(),
                    s.path("weight").asDouble(1.0), requests));
        }
        List<Plan.StepSpec> formal = new ArrayList<>();
        doc.path("formal").path("steps").forEach(st -> formal.add(step(st)));
        JsonNode ap = doc.path("abortPolicy");
        Plan.AbortPolicy d = Plan.AbortPolicy.DEFAULT;
        Plan.AbortPolicy policy = new Plan.AbortPolicy(ap.path("abortOnDamagedCoreModule").asBoolean(d.abortOnDamagedCoreModule()),
                ap.path("maxErrorRatePct").asDouble(d.maxErrorRatePct()), ap.path("errorRateWindowS").asInt(d.errorRateWindowS()));
        List<String> core = new ArrayList<>();
        doc.path("coreModules").forEach(c -> core.add(c.asText()));
        return new Plan("plan-" + UUID.randomUUID(), teamId, doc.path("name").asText(), scenarios, step(doc.path("preTest")),
                formal, policy, core, doc.path("perWorkerQps").asDouble(DEFAULT_PER_WORKER_QPS),
                doc.path("requestTimeoutMs").asInt(DEFAULT_REQUEST_TIMEOUT_MS),
                System.currentTimeMillis());
    }

    private static Plan.StepSpec step(JsonNode st) {
        return new Plan.StepSpec(st.path("qps").asDouble(), st.path("durationS").asInt());
    }

    ApiResponse getPlan(ApiRequest req) {
        String planId = req.path("planId");
        Plan plan = repositories.getPlan(req.teamId(), planId).orElseThrow(() -> ApiException.notFound("plan", planId));
        return ApiResponse.json(200, plan);
    }

    /**
     * The plan's run estimate ({@link RunEstimate}, shape in the class documentation) against the current
     * {@link Quotas} and {@link Prices#US_EAST_1}, probing the team's registered services among the plan's modules.
     *
     * @return 200 with the estimate
     * @throws ApiException 404 when the plan does not exist or belongs to another team
     */
    ApiResponse getEstimate(ApiRequest req) {
        String planId = req.path("planId");
        Plan plan = repositories.getPlan(req.teamId(), planId).orElseThrow(() -> ApiException.notFound("plan", planId));
        Map<String, RegisteredService> services = new LinkedHashMap<>();
        plan.scenarios().forEach(s -> lookUp(req.teamId(), s.service(), services));
        plan.coreModules().forEach(m -> lookUp(req.teamId(), m, services));
        return ApiResponse.json(200, RunEstimate.of(plan, List.copyOf(services.values()), quotas.get(), Prices.US_EAST_1));
    }

    ApiResponse startRun(ApiRequest req) {
        String planId = req.path("planId");
        Plan plan = repositories.getPlan(req.teamId(), planId).orElseThrow(() -> ApiException.notFound("plan", planId));
        long now = System.currentTimeMillis();
        String runId = "run-" + RUN_TIME.format(java.time.Instant.ofEpochMilli(now)) + "-" + HexFormat.of().formatHex(randomBytes(4));
        repositories.createRun(new Run(runId, plan.planId(), req.teamId(), "STARTING", "", "", -1, now, false, "", ""));
        String executionArn;
        try {
            executionArn = sfn.startExecution(StartExecutionRequest.builder().stateMachineArn(stateMachineArn).name(runId)
                    .input(Json.write(Map.of("runId", runId, "planId", plan.planId(), "teamId", req.teamId()))).build()).executionArn();
        } catch (RuntimeException e) {
            repositories.updateRun(runId, Map.of("status", "FAILED_TO_START", "outcome", "ERROR"));
            throw new ApiException(503, "StartFailed", "run " + runId + " could not start: " + e.getMessage());
        }
        repositories.updateRun(runId, Map.of("executionArn", executionArn));
        audit.record(req.teamId(), req.caller(), "StartRun", runId, null, Map.of("planId", planId, "executionArn", executionArn));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("runId", runId);
        body.put("planId", planId);
        body.put("executionArn", executionArn);
        body.put("status", "STARTING");
        return new ApiResponse(202, "application/json", Json.write(body), Map.of("Location", "/runs/" + runId));
    }

    ApiResponse getRun(ApiRequest req) {
        String runId = req.path("runId");
        Run run = repositories.getRun(req.teamId(), runId).orElseThrow(() -> ApiException.notFound("run", runId));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("run", run);
        if (!run.executionArn().isBlank()) {
            try {
                var ex = sfn.describeExecution(DescribeExecutionRequest.builder().executionArn(run.executionArn()).build());
                body.put("executionStatus", ex.statusAsString());
            } catch (RuntimeException e) {
                body.put("executionStatus", "UNKNOWN: " + e.getMessage());
            }
        }
        Map<String, List<WorkerResult>> byStep = metrics.workerResults(runId).stream()
                .collect(Collectors.groupingBy(r -> String.format("%d#%03d", r.stage().equals("pre-test") ? 0 : 1, r.stepIndex()),
                        TreeMap::new, Collectors.toList()));
        Plan plan = repositories.getPlan(run.planId()).orElseThrow(() -> ApiException.notFound("plan", run.planId()));
        List<StepFigures> steps = new ArrayList<>();
        byStep.values().forEach(rs -> {
            WorkerResult r0 = rs.get(0);
            int durationS = r0.stage().equals("pre-test") ? plan.preTest().durationS()
                    : r0.stepIndex() < plan.formal().size() ? plan.formal().get(r0.stepIndex()).durationS() : 0;
            steps.add(StepFigures.merge(durationS, rs));
        });
        body.put("steps", steps.stream().map(PlanApi::stepSummary).toList());
        if (!run.stage().isBlank() && run.stepIndex() >= 0) {
            body.put("current", liveWindow(runId, run.stage(), run.stepIndex()));
        }
        Map<String, Verdict> latest = new TreeMap<>();
        reports.verdicts(runId).forEach(v -> latest.put(v.module(), v));
        body.put("verdicts", latest.values());
        body.put("reportReady", reports.get(runId, "json").isPresent());
        return ApiResponse.json(200, body);
    }

    private static Map<String, Object> stepSummary(StepFigures f) {
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
        return m;
    }

    /** Sent and errors so far in the current step, from the load driver's per-second windows. */
    private Map<String, Object> liveWindow(String runId, String stage, int stepIndex) {
        String prefix = dev.richter.common.model.WindowKey.stepPrefix(stage, stepIndex);
        long count = 0;
        long errors = 0;
        long minSec = Long.MAX_VALUE;
        long maxSec = 0;
        for (var item : repositories.dynamoDb().queryPaginator(QueryRequest.builder().tableName(repositories.tables().runMetrics())
                .keyConditionExpression("runId = :r AND begins_with(sk, :p)")
                .expressionAttributeValues(Map.of(":r", AttributeValue.fromS(runId), ":p", AttributeValue.fromS(prefix)))
                .build()).items()) {
            count += item.containsKey("count") ? Long.parseLong(item.get("count").n()) : 0;
            errors += item.containsKey("errors") ? Long.parseLong(item.get("errors").n()) : 0;
            long sec = dev.richter.common.model.WindowKey.epochSecond(item.get("sk").s());
            minSec = Math.min(minSec, sec);
            maxSec = Math.max(maxSec, sec);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("stage", stage);
        m.put("stepIndex", stepIndex);
        m.put("completed", count);
        m.put("errors", errors);
        m.put("seconds", maxSec >= minSec && count > 0 ? maxSec - minSec + 1 : 0);
        return m;
    }

    ApiResponse abortRun(ApiRequest req) {
        String runId = req.path("runId");
        Run run = repositories.getRun(req.teamId(), runId).orElseThrow(() -> ApiException.notFound("run", runId));
        if (run.status().equals("COMPLETED") || run.status().equals("FAILED_TO_START")) {
            throw new ApiException(409, "RunFinished", "run " + runId + " is " + run.status() + ": nothing to abort");
        }
        String reason = "";
        if (req.body().length > 0) {
            try {
                reason = Json.MAPPER.readTree(req.body()).path("reason").asText("").strip();
            } catch (java.io.IOException e) {
                throw ApiException.badField("$", "body must be JSON {\"reason\": \"...\"} or empty");
            }
        }
        runFlags.requestAbort(runId, "requested by " + req.caller() + (reason.isEmpty() ? "" : ": " + reason));
        audit.record(req.teamId(), req.caller(), "AbortRun", runId, Map.of("abortRequested", run.abortRequested()),
                Map.of("abortRequested", true));
        return ApiResponse.json(202, Map.of("runId", runId, "abortRequested", true));
    }

    ApiResponse getReport(ApiRequest req) {
        String runId = req.path("runId");
        repositories.getRun(req.teamId(), runId).orElseThrow(() -> ApiException.notFound("run", runId));
        boolean html = "html".equalsIgnoreCase(req.query().getOrDefault("format", "json"));
        String text = reports.get(runId, html ? "html" : "json")
                .orElseThrow(() -> new ApiException(404, "ReportNotReady", "the report of run " + runId + " is not written yet"));
        return new ApiResponse(200, html ? "text/html; charset=utf-8" : "application/json", text, Map.of());
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        RANDOM.nextBytes(b);
        return b;
    }

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
