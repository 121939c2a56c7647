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
import dev.richter.common.model.WindowKey;
import dev.richter.common.model.WorkerResult;
import dev.richter.runs.RunLeases;
import dev.richter.data.StoredSets;
import dev.richter.sizing.Prices;
import dev.richter.sizing.Quotas;
import dev.richter.sizing.RunEstimate;
import dev.richter.common.model.Marker;
import dev.richter.common.tls.TlsTrust;
import dev.richter.data.flow.DataSetStore;
import dev.richter.data.flow.Expressions;
import dev.richter.data.flow.Flow;
import dev.richter.data.flow.FlowRunner;
import dev.richter.data.flow.FlowService;
import dev.richter.data.flow.FlowValidator;
import dev.richter.data.traffic.TrafficFormatException;
import dev.richter.data.traffic.TrafficImporter;
import dev.richter.data.traffic.TrafficSet;
import dev.richter.data.traffic.TrafficSetStore;
import dev.richter.links.IngestResult;
import dev.richter.links.LinkService;
import dev.richter.links.trace.TraceFormatException;
import dev.richter.report.ReportRepository;
import dev.richter.report.StepFigures;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
 * <p>Routes: {@link Routes#ALL}, described (request and response shapes, every status) in {@code openapi.json}, which
 * {@code GET /openapi.json} serves. Every route but that one is scoped to the team of the verified token's {@code team}
 * claim ({@link ApiRequest#teamId()}); a token without it gets 403 {@code NoTeam}. Lists ({@code GET /services},
 * {@code GET /plans}, {@code GET /plans/{planId}/runs}, {@code GET /traffic-sets}, {@code GET /audit}) answer {@code {"items": [...], "nextCursor"}}
 * pages of {@code ?limit=} items (default {@value Cursor#DEFAULT_LIMIT}, at most {@value Cursor#MAX_LIMIT});
 * {@code ?cursor=<nextCursor>} gives the next page ({@link Cursor}).
 *
 * <p><b>Plans are versioned.</b> {@code POST /plans} stores version 1; {@code PUT /plans/{planId}} (the same body,
 * server fields ignored; {@code If-Match: "<version>"} optional) stores the next version; a run records the version it
 * started with ({@code planVersion}). A plan whose run holds its leases can be neither replaced nor deleted (409
 * {@code PlanInUse}). {@code ETag} is the version, quoted.
 *
 * <p><b>One run per target.</b> {@code POST /plans/{planId}/runs} leases every service the plan touches
 * ({@link RunLeases}) before it starts the execution: when another run holds one, 409 {@code TargetLeased} names that
 * run, and nothing is started or stored. The state machine releases the leases when the run ends, on every path. With
 * an {@code Idempotency-Key} header, a repeated start of the same plan with the same key answers the run the first one
 * started (202 again, header {@code Idempotent-Replayed: true}) for 24 hours.
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
 *  "lambdaInvocations": {"run-preparation", "checks", "load-driver", "probe", "fault-decider", "report"},
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
    /**
     * The largest request body, bytes (4 MiB): 413 {@code PayloadTooLarge} above it. Base64 in the Lambda event makes
     * it 5.6 MB, under the 6 MB invocation payload limit, so a body under this limit always reaches the function.
     */
    public static final int MAX_BODY_BYTES = 4 * 1024 * 1024;
    /**
     * How long {@code POST /flows/{flowId}/runs} starts rows, milliseconds from the request: with
     * {@link #FLOW_CALL_TIMEOUT_MS} per call, the last row's calls end by 23 s and the data set is stored within the
     * function's 29 s timeout (API Gateway's integration limit is 30 s). Larger data sets run in the
     * data-construction function's {@code run-flow} action and resume with the same {@code dataSetId}.
     */
    public static final long FLOW_RUN_BUDGET_MS = 18_000;
    /** The longest one HTTP call of a flow may take in the API, milliseconds. */
    public static final long FLOW_CALL_TIMEOUT_MS = 5_000;
    /** The longest {@code Idempotency-Key}, characters. */
    static final int MAX_IDEMPOTENCY_KEY_LENGTH = 200;

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
    private final PlanStore store;
    private final TrafficSetStore trafficSets;
    private final FlowService flows;
    private final StoredSets storedSets;
    private final RunLeases leases;
    private final Clock clock = Clock.systemUTC();
    private final String openApi = resource("/openapi.json");

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
        this(repositories, sfn, stateMachineArn, maxTeamQps, quotas,
                new ReportRepository(repositories.dynamoDb(), repositories.tables().reports(), repositories.tables().verdicts()));
    }

    /**
     * @param repositories    DynamoDB access
     * @param sfn             Step Functions client
     * @param stateMachineArn the load-test-run state machine
     * @param maxTeamQps      per-team cap on any step's QPS
     * @param quotas          the limits plans are checked and estimated against, read on every request
     * @param reports         where {@code GET /runs/{runId}/report} reads (the reports bucket first, when it has one)
     */
    public PlanApi(Repositories repositories, SfnClient sfn, String stateMachineArn, double maxTeamQps,
                   Supplier<Quotas> quotas, ReportRepository reports) {
        this.quotas = quotas;
        this.repositories = repositories;
        this.metrics = new RunMetricsRepository(repositories.dynamoDb(), repositories.tables().runMetrics());
        this.reports = reports;
        this.runFlags = new RunFlags(repositories.dynamoDb(), repositories.tables().runs());
        this.audit = new AuditLog(repositories.dynamoDb(), repositories.tables().audit());
        this.sfn = sfn;
        this.stateMachineArn = stateMachineArn;
        this.maxTeamQps = maxTeamQps;
        this.links = new LinkService(repositories.dynamoDb(), repositories.tables().links());
        this.store = new PlanStore(repositories);
        this.trafficSets = new TrafficSetStore(repositories.dynamoDb(), repositories.tables().registry());
        this.storedSets = new StoredSets(repositories.dynamoDb(), repositories.tables().registry());
        this.flows = new FlowService(new DataSetStore(repositories.dynamoDb(), repositories.tables().registry()),
                new FlowRunner(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build(),
                        Expressions.DEFAULT, Marker.DEFAULT, Duration.ofMillis(FLOW_CALL_TIMEOUT_MS), clock::millis),
                clock::millis);
        this.leases = new RunLeases(repositories.dynamoDb(), repositories.tables().leases(), clock);
    }

    /**
     * Dispatches by API Gateway route key.
     *
     * @throws ApiException 403 {@code NoTeam} when a team-scoped route is called without a team; 404/405 for
     *                      {@code $default} (no route matched); each route's own failures
     */
    public ApiResponse handle(ApiRequest req) {
        if (!Routes.PUBLIC.contains(req.routeKey()) && !req.routeKey().equals("$default") && req.teamId().isBlank()) {
            // every read and write is scoped to a team (DESIGN.md section 7): never guess one
            throw new ApiException(403, "NoTeam", "the token has no 'team' claim: every route but GET /openapi.json is scoped to a team");
        }
        return switch (req.routeKey()) {
            case "POST /services" -> registerService(req);
            case "GET /services" -> listServices(req);
            case "GET /services/{name}" -> getService(req);
            case "DELETE /services/{name}" -> deleteService(req);
            case "POST /plans" -> createPlan(req);
            case "GET /plans" -> listPlans(req);
            case "GET /plans/{planId}" -> getPlan(req);
            case "PUT /plans/{planId}" -> replacePlan(req);
            case "DELETE /plans/{planId}" -> deletePlan(req);
            case "GET /plans/{planId}/estimate" -> getEstimate(req);
            case "POST /plans/{planId}/runs" -> startRun(req);
            case "GET /plans/{planId}/runs" -> listRuns(req);
            case "GET /runs/{runId}" -> getRun(req);
            case "POST /runs/{runId}/abort" -> abortRun(req);
            case "GET /runs/{runId}/report" -> getReport(req);
            case "POST /traces" -> ingestTraces(req);
            case "POST /traffic-sets" -> importTraffic(req);
            case "GET /traffic-sets" -> listTrafficSets(req);
            case "GET /traffic-sets/{setId}" -> getTrafficSet(req);
            case "POST /flows" -> createFlow(req);
            case "GET /flows/{flowId}" -> getFlow(req);
            case "POST /flows/{flowId}/runs" -> runFlow(req);
            case "GET /data-sets/{dataSetId}" -> getDataSet(req);
            case "PUT /safety" -> putSafetyConfig(req);
            case "GET /safety" -> getSafetyConfig(req);
            case "GET /safety/mocks" -> getSafetyMocks(req);
            case "GET /audit" -> listAudit(req);
            case "GET /openapi.json" -> new ApiResponse(200, "application/json", openApi, Map.of());
            default -> Routes.unmatched(req.method(), req.rawPath());
        };
    }

    // ------------------------------------------------------------------ services

    ApiResponse registerService(ApiRequest req) {
        JsonNode doc = validator.parse("ServiceInput", req.body());
        RegisteredService service = Json.MAPPER.convertValue(doc, RegisteredService.class);
        if (service.caPem() != null) {
            try {
                TlsTrust.parseCaPem(service.caPem());
            } catch (IllegalArgumentException e) {
                throw ApiException.badField("$.caPem", e.getMessage().replaceFirst("^caPem: ", ""));
            }
        }
        service = new RegisteredService(req.teamId(), service.name(), stripSlash(service.baseUrl()), service.healthPath(),
                service.prometheusPath(), service.datastores(), service.caPem(), service.grpc());
        var before = repositories.getService(req.teamId(), service.name()).orElse(null);
        repositories.putService(service);
        audit.record(req.teamId(), req.caller(), "RegisterService", "service#" + service.name(),
                before == null ? null : Documents.service(before), Documents.service(service));
        return new ApiResponse(before == null ? 201 : 200, "application/json", Json.write(Documents.service(service)),
                Map.of("Location", "/services/" + service.name()));
    }

    ApiResponse listServices(ApiRequest req) {
        String list = "services:" + req.teamId();
        var page = store.services(req.teamId(), Cursor.limit(req), Cursor.decode(req, list, Map.entry("teamId", req.teamId())));
        return ApiResponse.json(200, Cursor.page(page.items().stream().map(Documents::service).toList(),
                Cursor.encode(list, page.lastKey())));
    }

    ApiResponse getService(ApiRequest req) {
        String name = req.path("name");
        RegisteredService s = repositories.getService(req.teamId(), name).orElseThrow(() -> ApiException.notFound("service", name));
        return ApiResponse.json(200, Documents.service(s));
    }

    /**
     * Deletes a registered service: 204.
     *
     * @throws ApiException 404 when absent; 409 {@code ServiceInUse} while a run holds its lease or a plan of the team
     *                      names it (the plans are named: change or delete them first)
     */
    ApiResponse deleteService(ApiRequest req) {
        String name = req.path("name");
        RegisteredService s = repositories.getService(req.teamId(), name).orElseThrow(() -> ApiException.notFound("service", name));
        leases.holder(req.teamId(), name).ifPresent(l -> {
            throw new ApiException(409, "ServiceInUse", "service '" + name + "' is in use by run " + l.runId() + " (plan "
                    + l.planId() + "): delete it after that run ends");
        });
        List<String> plans = store.allPlans(req.teamId()).stream().filter(p -> RunLeases.targets(p).contains(name))
                .map(Plan::planId).toList();
        if (!plans.isEmpty()) {
            throw new ApiException(409, "ServiceInUse", "service '" + name + "' is named by plans " + plans
                    + ": change or delete them first");
        }
        store.deleteService(req.teamId(), name);
        audit.record(req.teamId(), req.caller(), "DeleteService", "service#" + name, Documents.service(s), null);
        return new ApiResponse(204, "application/json", "", Map.of());
    }

    // ------------------------------------------------------------------ safety, traces

    /**
     * Stores the team's safety configuration (schema {@code openapi.json#/components/schemas/SafetyConfig}), replacing the previous
     * one: 201 when new, 200 when replaced; audited with before and after.
     */
    ApiResponse putSafetyConfig(ApiRequest req) {
        JsonNode doc = validator.parse("SafetyConfig", req.body());
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

    // ------------------------------------------------------------------ traffic sets

    /**
     * {@code POST /traffic-sets?format=har|nginx|apache|alb[&logFormat=<nginx log_format directive>][&file=<name>]}:
     * imports the body (a HAR 1.2 file or an access log) into a traffic set ({@link TrafficImporter}: scrubbed of
     * credentials and personal data, grouped by endpoint) and stores it complete or not at all ({@link TrafficSetStore}).
     * Answers 201 with the set without its samples ({@code TrafficSet} in openapi.json), {@code Location} its URL.
     *
     * @throws ApiException 400 {@code ValidationFailed} for a missing or unknown {@code format}, a {@code logFormat}
     *                      with another format, an empty body; 400 {@code InvalidTrafficFile} when the file is not of
     *                      the format or nothing in it is replayable, one {@code {path, reason}} per problem
     *                      ({@code <file>:<line>}, {@code <file>:<JSON path>}, {@code <file>:line L, column C} or
     *                      {@code query.logFormat}); nothing is stored then
     */
    ApiResponse importTraffic(ApiRequest req) {
        String formatText = req.query().get("format");
        if (formatText == null || formatText.isBlank()) {
            throw ApiException.badField("query.format", "required: one of har, nginx, apache, alb");
        }
        TrafficImporter.Format format;
        try {
            format = TrafficImporter.Format.parse(formatText);
        } catch (IllegalArgumentException e) {
            throw ApiException.badField("query.format", e.getMessage());
        }
        String logFormat = req.query().get("logFormat");
        if (logFormat != null && !logFormat.isBlank() && format != TrafficImporter.Format.NGINX) {
            throw ApiException.badField("query.logFormat", "only with format=nginx (an nginx log_format directive)");
        }
        String file = req.query().getOrDefault("file", "upload");
        if (req.body().length == 0) {
            throw ApiException.badField("$", "body is empty: send a HAR file or an access log");
        }
        TrafficSet set;
        try {
            set = TrafficImporter.importFile(format, file, req.body(), logFormat);
        } catch (TrafficFormatException e) {
            List<Map<String, String>> errors = e.problems().stream()
                    .map(p -> Map.of("path", p.position().equals("logFormat") ? "query.logFormat" : p.position(), "reason", p.reason()))
                    .toList();
            String message = e.problems().get(0).position().equals("logFormat") ? "query.logFormat: " + e.problems().get(0).reason() : e.getMessage();
            throw new ApiException(400, "InvalidTrafficFile", message, errors);
        }
        String setId = "ts-" + UUID.randomUUID();
        TrafficSet stored = set.identified(setId, req.teamId(), clock.millis());
        trafficSets.put(stored);
        audit.record(req.teamId(), req.caller(), "ImportTraffic", setId, null, Map.of("file", file, "format", format.wireName(),
                "bytes", req.body().length, "imported", stored.counts().imported(), "skipped", stored.counts().skipped(),
                "problems", stored.counts().problems()));
        return new ApiResponse(201, "application/json", Json.write(stored.summary()), Map.of("Location", "/traffic-sets/" + setId));
    }

    /** {@code GET /traffic-sets}: the team's sets without samples, a page at a time ({@link Cursor}). */
    ApiResponse listTrafficSets(ApiRequest req) {
        String list = "traffic-sets";
        var page = trafficSets.list(req.teamId(), Cursor.limit(req), Cursor.decode(req, list, Map.entry("teamId", req.teamId())));
        return ApiResponse.json(200, Cursor.page(page.items(), Cursor.encode(list, page.lastKey())));
    }

    /** {@code GET /traffic-sets/{setId}}: the whole set with its samples; another team's or a half-written one is a 404. */
    ApiResponse getTrafficSet(ApiRequest req) {
        String setId = req.path("setId");
        return ApiResponse.json(200, trafficSets.get(req.teamId(), setId)
                .orElseThrow(() -> ApiException.notFound("traffic set", setId)));
    }

    // ------------------------------------------------------------------ flows and data sets

    /**
     * {@code POST /flows}: validates a flow ({@code FlowInput} in openapi.json, then {@link FlowValidator}: unknown
     * slots, cycles, type mismatches, JSONata syntax) and stores it under a new id. Server fields ({@code flowId},
     * {@code teamId}, {@code createdAtMs}) in the body are ignored.
     *
     * @return 201 with the stored flow, {@code Location: /flows/<flowId>}
     * @throws ApiException 400 {@code ValidationFailed} with every {@code {path, reason}} (e.g.
     *                      {@code $.units[2].inputs.token}); nothing is stored then
     */
    ApiResponse createFlow(ApiRequest req) {
        JsonNode doc = validator.parse("FlowInput", req.body());
        Flow flow;
        try {
            flow = flows.create(req.teamId(), Json.MAPPER.convertValue(doc, Flow.class));
        } catch (FlowValidator.InvalidFlowException e) {
            throw invalid(e);
        }
        audit.record(req.teamId(), req.caller(), "CreateFlow", flow.flowId(), null, flow);
        return new ApiResponse(201, "application/json", Json.write(flow), Map.of("Location", "/flows/" + flow.flowId()));
    }

    /** {@code GET /flows/{flowId}}: the team's flow; another team's is a 404. */
    ApiResponse getFlow(ApiRequest req) {
        String flowId = req.path("flowId");
        return ApiResponse.json(200, flows.get(req.teamId(), flowId).orElseThrow(() -> ApiException.notFound("flow", flowId)));
    }

    /**
     * {@code POST /flows/{flowId}/runs} {@code {rows, concurrency?, dataSetId?, inputs?, marker?}}: runs the flow
     * synchronously, rows starting for at most {@link #FLOW_RUN_BUDGET_MS} ({@link FlowService#run}). Every HTTP call
     * carries the marker ({@code marker}, default {@code baggage: richter-loadtest=1}) and goes only to URLs under the
     * base URLs of the team's registered services (a call elsewhere fails its row unsent). Answers 201 with the result
     * ({@code FlowRunResult}) and {@code Location: /data-sets/<id>} when every row was attempted and the data set is
     * stored; 202 with the result when rows are still pending: post again with the same {@code dataSetId} to resume
     * (rows already {@code ok} are skipped, so none is created twice).
     *
     * @throws ApiException 400 {@code ValidationFailed} ({@code FlowRunRequest}; {@code $.inputs.<name>},
     *                      {@code $.dataSetId}); 404 for an unknown flow
     */
    ApiResponse runFlow(ApiRequest req) {
        String flowId = req.path("flowId");
        long startMs = clock.millis();
        JsonNode doc = validator.parse("FlowRunRequest", req.body());
        Map<String, JsonNode> inputs = new LinkedHashMap<>();
        doc.path("inputs").properties().forEach(e -> inputs.put(e.getKey(), e.getValue()));
        Marker marker = doc.has("marker") ? Json.MAPPER.convertValue(doc.get("marker"), Marker.class) : Marker.DEFAULT;
        FlowRunner.Result result;
        try {
            result = flows.run(req.teamId(), flowId, doc.path("dataSetId").isTextual() ? doc.path("dataSetId").asText() : null,
                    new FlowRunner.Request(doc.path("rows").asInt(), doc.path("concurrency").asInt(8), inputs,
                            repositories.listServices(req.teamId()).stream().map(RegisteredService::baseUrl).toList()), marker,
                    startMs + FLOW_RUN_BUDGET_MS).orElseThrow(() -> ApiException.notFound("flow", flowId));
        } catch (FlowValidator.InvalidFlowException e) {
            throw invalid(e);
        }
        audit.record(req.teamId(), req.caller(), "RunFlow", flowId, null, Map.of("dataSetId", result.dataSetId(),
                "rows", result.rows(), "ok", result.ok(), "failed", result.failed(), "pending", result.pending()));
        return result.complete()
                ? new ApiResponse(201, "application/json", Json.write(result), Map.of("Location", "/data-sets/" + result.dataSetId()))
                : ApiResponse.json(202, result);
    }

    /** {@code GET /data-sets/{dataSetId}}: the team's complete data set with its rows; absent or half-written is a 404. */
    ApiResponse getDataSet(ApiRequest req) {
        String dataSetId = req.path("dataSetId");
        return ApiResponse.json(200, flows.dataSet(req.teamId(), dataSetId)
                .orElseThrow(() -> ApiException.notFound("data set", dataSetId)));
    }

    private static ApiException invalid(FlowValidator.InvalidFlowException e) {
        List<Map<String, String>> errors = e.problems().stream().map(p -> Map.of("path", p.path(), "reason", p.reason())).toList();
        return new ApiException(400, "ValidationFailed", e.getMessage(), errors);
    }

    // ------------------------------------------------------------------ plans

    /**
     * Creates a plan: schema, registry (every scenario service and core module registered by the team), the team's
     * QPS cap and the AWS limits of its run ({@link RunEstimate#violations()} against the current {@link Quotas}).
     * Server fields in the body ({@code planId}, {@code teamId}, {@code version}, {@code createdAtMs},
     * {@code updatedAtMs}) are ignored.
     *
     * @return 201 with the stored plan (version 1), {@code Location: /plans/<planId>} and {@code ETag}
     * @throws ApiException 400 {@code ValidationFailed} with every {@code {path, reason}} found; nothing is stored
     */
    ApiResponse createPlan(ApiRequest req) {
        Plan plan = validPlan(req, "plan-" + UUID.randomUUID(), clock.millis());
        store.create(plan);
        PlanStore.Versioned stored = new PlanStore.Versioned(plan, 1, plan.createdAtMs());
        audit.record(req.teamId(), req.caller(), "CreatePlan", plan.planId(), null, Documents.plan(stored));
        return planResponse(201, stored, Map.of("Location", "/plans/" + plan.planId()));
    }

    /**
     * Replaces a plan by the body (as {@code POST /plans} takes it) as its next version.
     *
     * @return 200 with the stored plan
     * @throws ApiException 404 when absent; 412 {@code PreconditionFailed} when {@code If-Match} names another version;
     *                      409 {@code PlanInUse} while a run of the plan holds its leases, 409 {@code VersionConflict}
     *                      when another replacement won; 400 as {@link #createPlan}
     */
    ApiResponse replacePlan(ApiRequest req) {
        String planId = req.path("planId");
        PlanStore.Versioned current = store.get(req.teamId(), planId).orElseThrow(() -> ApiException.notFound("plan", planId));
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
     * Deletes a plan: 204. Its runs and their reports stay readable (they keep the plan version they ran).
     *
     * @throws ApiException 404 when absent; 409 {@code PlanInUse} while a run of the plan holds its leases
     */
    ApiResponse deletePlan(ApiRequest req) {
        String planId = req.path("planId");
        PlanStore.Versioned current = store.get(req.teamId(), planId).orElseThrow(() -> ApiException.notFound("plan", planId));
        checkIfMatch(req, current);
        checkNotRunning(req.teamId(), current.plan(), "deleted");
        store.delete(planId);
        audit.record(req.teamId(), req.caller(), "DeletePlan", planId, Documents.plan(current), null);
        return new ApiResponse(204, "application/json", "", Map.of());
    }

    ApiResponse listPlans(ApiRequest req) {
        String list = "plans:" + req.teamId();
        var page = store.plans(req.teamId(), Cursor.limit(req), Cursor.decode(req, list, Map.entry("teamId", req.teamId())));
        return ApiResponse.json(200, Cursor.page(page.items().stream().map(Documents::plan).toList(), Cursor.encode(list, page.lastKey())));
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

    /**
     * The plan a {@code POST /plans} or {@code PUT /plans/{planId}} body describes, checked: schema, registry, the
     * team's QPS cap, the AWS limits of its run.
     *
     * @throws ApiException 400 {@code ValidationFailed} with every {@code {path, reason}} found
     */
    private Plan validPlan(ApiRequest req, String planId, long createdAtMs) {
        JsonNode doc = validator.parse("PlanInput", req.body());
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
        double totalWeight = 0;
        for (JsonNode sc : scenarios) {
            totalWeight += sc.path("weight").asDouble(1.0);
        }
        double mostRequests = doc.path("preTest").path("qps").asDouble() * doc.path("preTest").path("durationS").asDouble();
        for (JsonNode st : doc.path("formal").path("steps")) {
            mostRequests = Math.max(mostRequests, st.path("qps").asDouble() * st.path("durationS").asDouble());
        }
        for (int i = 0; i < scenarios.size(); i++) {
            long stepRequests = (long) Math.ceil(mostRequests * scenarios.get(i).path("weight").asDouble(1.0) / totalWeight);
            checkSets(req.teamId(), scenarios.get(i), "$.scenarios[" + i + "]", stepRequests, problems);
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
        Plan plan = toPlan(doc, req.teamId(), planId, createdAtMs);
        RunEstimate estimate = RunEstimate.of(plan, List.copyOf(registered.values()), quotas.get(), Prices.US_EAST_1);
        estimate.violations().forEach(v -> problems.add(Map.of("path", v.path(), "reason", v.reason())));
        if (!problems.isEmpty()) {
            throw new ApiException(400, "ValidationFailed", problems.get(0).get("path") + ": " + problems.get(0).get("reason"), problems);
        }
        return plan;
    }

    /**
     * A scenario's stored sets: its traffic set and every bound data set are stored by the team (a manifest exists),
     * no data set is bound twice, and every {@code {{data.<id>.<column>}}} in its inline requests and slot templates
     * names a bound data set and one of its columns. Problems at {@code $.scenarios[i].trafficSetId},
     * {@code $.scenarios[i].data[j].dataSetId}, {@code $.scenarios[i].requests[j].path|headers.<name>|body},
     * {@code $.scenarios[i].slots.<name>}. A {@code unique} data set needs at least as many {@code ok} rows as the
     * scenario sends in its largest step ({@code stepRequests}: qps × durationS × its weight share), else rows would be
     * sent twice.
     */
    private void checkSets(String teamId, JsonNode scenario, String at, long stepRequests, List<Map<String, String>> problems) {
        if (scenario.hasNonNull("trafficSetId") && storedSets.manifest(teamId, "trafficset#" + scenario.get("trafficSetId").asText()).isEmpty()) {
            problems.add(Map.of("path", at + ".trafficSetId", "reason", "traffic set '" + scenario.get("trafficSetId").asText()
                    + "' is not stored by team '" + teamId + "' (POST /traffic-sets)"));
        }
        Map<String, List<String>> columns = new LinkedHashMap<>();
        JsonNode data = scenario.path("data");
        for (int j = 0; j < data.size(); j++) {
            String id = data.get(j).path("dataSetId").asText();
            var manifest = storedSets.manifest(teamId, "dataset#" + id);
            if (manifest.isEmpty()) {
                problems.add(Map.of("path", at + ".data[" + j + "].dataSetId", "reason", "data set '" + id
                        + "' is not stored by team '" + teamId + "' (POST /flows/{flowId}/runs)"));
                continue;
            }
            if (columns.containsKey(id)) {
                problems.add(Map.of("path", at + ".data[" + j + "].dataSetId", "reason", "data set '" + id + "' is bound twice"));
            }
            long okRows = manifest.get().path("counts").path("ok").asLong();
            if (data.get(j).path("mode").asText("unique").equals("unique") && okRows < stepRequests) {
                problems.add(Map.of("path", at + ".data[" + j + "].dataSetId", "reason", "data set '" + id + "' has " + okRows
                        + " ok rows but the scenario's largest step sends " + stepRequests + " requests, each needing a row of "
                        + "its own (mode unique): build more rows, or use mode sequential or random"));
            }
            List<String> cols = new ArrayList<>();
            manifest.get().path("columns").forEach(c -> cols.add(c.asText()));
            columns.put(id, cols);
        }
        BiConsumer<String, String> placeholders = (path, text) -> {
            Matcher m = DATA_PLACEHOLDER.matcher(text);
            while (m.find()) {
                boolean bound = false;
                for (JsonNode b : data) {
                    bound |= b.path("dataSetId").asText().equals(m.group(1));
                }
                if (!bound) {
                    problems.add(Map.of("path", path, "reason", m.group() + ": the scenario binds no data set '" + m.group(1) + "' (data)"));
                } else if (columns.containsKey(m.group(1)) && !columns.get(m.group(1)).contains(m.group(2))) {
                    problems.add(Map.of("path", path, "reason", m.group() + ": data set '" + m.group(1) + "' has no column '"
                            + m.group(2) + "' (columns: " + String.join(", ", columns.get(m.group(1))) + ")"));
                }
            }
        };
        JsonNode requests = scenario.path("requests");
        for (int j = 0; j < requests.size(); j++) {
            JsonNode r = requests.get(j);
            String rp = at + ".requests[" + j + "]";
            placeholders.accept(rp + ".path", r.path("path").asText());
            r.path("headers").properties().forEach(h -> placeholders.accept(rp + ".headers." + h.getKey(), h.getValue().asText()));
            if (r.hasNonNull("body")) {
                placeholders.accept(rp + ".body", r.get("body").asText());
            }
        }
        scenario.path("slots").properties().forEach(e -> placeholders.accept(at + ".slots." + e.getKey(), e.getValue().asText()));
    }

    /** {@code {{data.<dataSetId>.<column>}}} in a request template (the load driver's {@code RequestTemplate}). */
    private static final Pattern DATA_PLACEHOLDER =
            Pattern.compile("\\{\\{\\s*data\\.([A-Za-z0-9_-]+)\\.([^}\\s]+)\\s*}}");

    /** The team's registered service {@code name}, from {@code seen} or the registry (then remembered in {@code seen}). */
    private Optional<RegisteredService> lookUp(String teamId, String name, Map<String, RegisteredService> seen) {
        if (seen.containsKey(name)) {
            return Optional.of(seen.get(name));
        }
        Optional<RegisteredService> found = repositories.getService(teamId, name);
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
     * team, the creation time and the defaults applied: scenario weight 1, {@link Plan.AbortSettings#DEFAULT},
     * {@code perWorkerQps} {@value #DEFAULT_PER_WORKER_QPS}, {@code requestTimeoutMs} {@value #DEFAULT_REQUEST_TIMEOUT_MS}.
     * Public so that tools reading plan files (bench/scale.sh) apply the same defaults.
     *
     * @param doc    the body, already valid against {@code openapi.json#/components/schemas/PlanInput}
     * @param teamId the owning team
     */
    public static Plan toPlan(JsonNode doc, String teamId) {
        return toPlan(doc, teamId, "plan-" + UUID.randomUUID(), System.currentTimeMillis());
    }

    /** {@link #toPlan(JsonNode, String)} with a given id and creation time (a replacement keeps both). */
    static Plan toPlan(JsonNode doc, String teamId, String planId, long createdAtMs) {
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
            List<Plan.DataBinding> data = new ArrayList<>();
            s.path("data").forEach(b -> data.add(new Plan.DataBinding(b.path("dataSetId").asText(), b.path("mode").asText("unique"))));
            Map<String, String> slots = new TreeMap<>();
            s.path("slots").properties().forEach(e -> slots.put(e.getKey(), e.getValue().asText()));
            scenarios.add(new Plan.ScenarioSpec(s.path("name").asText(), s.path("service").asText(),
                    s.path("weight").asDouble(1.0), requests,
                    s.hasNonNull("trafficSetId") ? s.get("trafficSetId").asText() : null, data, slots));
        }
        List<Plan.StepSpec> formal = new ArrayList<>();
        doc.path("formal").path("steps").forEach(st -> formal.add(step(st)));
        JsonNode ap = doc.path("abortPolicy");
        Plan.AbortSettings d = Plan.AbortSettings.DEFAULT;
        Plan.AbortSettings policy = new Plan.AbortSettings(ap.path("abortOnDamagedCoreModule").asBoolean(d.abortOnDamagedCoreModule()),
                ap.path("maxErrorRatePct").asDouble(d.maxErrorRatePct()), ap.path("errorRateWindowS").asInt(d.errorRateWindowS()));
        List<String> core = new ArrayList<>();
        doc.path("coreModules").forEach(c -> core.add(c.asText()));
        return new Plan(planId, teamId, doc.path("name").asText(), scenarios, step(doc.path("preTest")),
                formal, policy, core, doc.path("perWorkerQps").asDouble(DEFAULT_PER_WORKER_QPS),
                doc.path("requestTimeoutMs").asInt(DEFAULT_REQUEST_TIMEOUT_MS), createdAtMs);
    }

    private static Plan.StepSpec step(JsonNode st) {
        return new Plan.StepSpec(st.path("qps").asDouble(), st.path("durationS").asInt());
    }

    ApiResponse getPlan(ApiRequest req) {
        String planId = req.path("planId");
        PlanStore.Versioned v = store.get(req.teamId(), planId).orElseThrow(() -> ApiException.notFound("plan", planId));
        return planResponse(200, v, Map.of());
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

    // ------------------------------------------------------------------ runs

    /**
     * Starts a run of the plan: leases its target services, stores the run (with the plan version), starts the
     * execution named by the run id.
     *
     * @return 202 {@code {runId, planId, planVersion, executionArn, status}} and {@code Location: /runs/<runId>}; with
     *         an {@code Idempotency-Key} already used on this plan, the same answer for the run it started
     *         ({@code Idempotent-Replayed: true})
     * @throws ApiException 404 when the plan is absent; 409 {@code TargetLeased} naming the run that holds a target,
     *                      409 {@code IdempotencyKeyInUse} while the first request with the key is still starting;
     *                      400 for a malformed key; 503 {@code StartFailed} when the execution cannot start (leases
     *                      released, run {@code FAILED_TO_START})
     */
    ApiResponse startRun(ApiRequest req) {
        String planId = req.path("planId");
        PlanStore.Versioned v = store.get(req.teamId(), planId).orElseThrow(() -> ApiException.notFound("plan", planId));
        String key = idempotencyKey(req);
        long now = clock.millis();
        String runId = "run-" + RUN_TIME.format(Instant.ofEpochMilli(now)) + "-" + HexFormat.of().formatHex(randomBytes(4));
        if (key != null) {
            Optional<String> bound = leases.bindIdempotencyKey(req.teamId(), planId, key, runId);
            if (bound.isPresent()) {
                var item = store.runItem(bound.get());
                if (item.isEmpty() || Documents.text(item, "executionArn").isEmpty()) {
                    throw new ApiException(409, "IdempotencyKeyInUse", "a request with Idempotency-Key '" + key
                            + "' is still starting run " + bound.get() + ": retry in a moment");
                }
                return started(Documents.text(item, "runId"), planId, Documents.number(item, "planVersion", 1),
                        Documents.text(item, "executionArn"), Documents.text(item, "status"), true);
            }
        }
        List<String> targets = RunLeases.targets(v.plan());
        try {
            leases.acquire(req.teamId(), runId, planId, targets, RunLeases.expiresAtEpochS(v.plan(), now));
        } catch (RunLeases.LeaseHeldException e) {
            unbind(req, planId, key, runId);
            RunLeases.Lease held = e.held();
            throw new ApiException(409, "TargetLeased", "service '" + held.service() + "' is in use by run " + held.runId()
                    + " (plan " + held.planId() + ") until it ends (at the latest " + Instant.ofEpochSecond(held.expiresAtEpochS())
                    + "): one run per target service at a time; retry then, or abort it (POST /runs/" + held.runId() + "/abort)");
        }
        String executionArn;
        try {
            repositories.createRun(new Run(runId, planId, req.teamId(), "STARTING", "", "", -1, now, false, "", ""));
            repositories.updateRun(runId, Map.of("planVersion", v.version(), "leasedServices", String.join(",", targets),
                    "startedBy", req.caller()));
            executionArn = sfn.startExecution(StartExecutionRequest.builder().stateMachineArn(stateMachineArn).name(runId)
                    .input(Json.write(Map.of("runId", runId, "planId", planId, "teamId", req.teamId()))).build()).executionArn();
        } catch (RuntimeException e) {
            leases.release(req.teamId(), runId, targets);
            unbind(req, planId, key, runId);
            try {
                repositories.updateRun(runId, Map.of("status", "FAILED_TO_START", "outcome", "ERROR"));
            } catch (RuntimeException notStored) {
                // the run item was never written
            }
            throw new ApiException(503, "StartFailed", "run " + runId + " could not start; its leases are released: retry");
        }
        repositories.updateRun(runId, Map.of("executionArn", executionArn));
        audit.record(req.teamId(), req.caller(), "StartRun", runId, null,
                Map.of("planId", planId, "planVersion", v.version(), "executionArn", executionArn, "leasedServices", targets));
        return started(runId, planId, v.version(), executionArn, "STARTING", false);
    }

    private static ApiResponse started(String runId, String planId, long planVersion, String executionArn, String status,
                                       boolean replayed) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("runId", runId);
        body.put("planId", planId);
        body.put("planVersion", planVersion);
        body.put("executionArn", executionArn);
        body.put("status", status);
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Location", "/runs/" + runId);
        if (replayed) {
            headers.put("Idempotent-Replayed", "true");
        }
        return new ApiResponse(202, "application/json", Json.write(body), headers);
    }

    /** The request's {@code Idempotency-Key}, null when absent; 400 unless 1..200 visible ASCII characters. */
    private static String idempotencyKey(ApiRequest req) {
        String key = req.headers().get("idempotency-key");
        if (key == null) {
            return null;
        }
        if (key.isEmpty() || key.length() > MAX_IDEMPOTENCY_KEY_LENGTH || !key.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw ApiException.badField("header.Idempotency-Key", "must be 1 to " + MAX_IDEMPOTENCY_KEY_LENGTH
                    + " visible ASCII characters (e.g. a UUID)");
        }
        return key;
    }

    private void unbind(ApiRequest req, String planId, String key, String runId) {
        if (key != null) {
            leases.unbindIdempotencyKey(req.teamId(), planId, key, runId);
        }
    }

    /** The plan's runs, newest first: {@code {items: [{runId, planId, planVersion, status, outcome, createdAtMs, abortRequested}]}}. */
    ApiResponse listRuns(ApiRequest req) {
        String planId = req.path("planId");
        store.get(req.teamId(), planId).orElseThrow(() -> ApiException.notFound("plan", planId));
        String list = "runs:" + planId;
        var page = store.runs(planId, Cursor.limit(req), Cursor.decode(req, list, Map.entry("planId", planId)));
        return ApiResponse.json(200, Cursor.page(page.items().stream().filter(i -> Documents.text(i, "teamId").equals(req.teamId()))
                .map(Documents::runSummary).toList(), Cursor.encode(list, page.lastKey())));
    }

    /** The team's audit entries, newest first: {@code {items: [{at, action, caller, target, before, after}]}}. */
    ApiResponse listAudit(ApiRequest req) {
        String list = "audit:" + req.teamId();
        var page = store.audit(req.teamId(), Cursor.limit(req), Cursor.decode(req, list, Map.entry("teamId", req.teamId())));
        return ApiResponse.json(200, Cursor.page(page.items().stream().map(Documents::auditEntry).toList(),
                Cursor.encode(list, page.lastKey())));
    }

    ApiResponse getRun(ApiRequest req) {
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
        if (!run.executionArn().isBlank()) {
            try {
                var ex = sfn.describeExecution(DescribeExecutionRequest.builder().executionArn(run.executionArn()).build());
                body.put("executionStatus", ex.statusAsString());
            } catch (RuntimeException e) {
                body.put("executionStatus", "UNKNOWN");
            }
        }
        Map<String, List<WorkerResult>> byStep = metrics.workerResults(runId).stream()
                .collect(Collectors.groupingBy(r -> String.format("%d#%03d", r.stage().equals("pre-test") ? 0 : 1, r.stepIndex()),
                        TreeMap::new, Collectors.toList()));
        Plan plan = store.version(run.planId(), planVersion).orElseThrow(() -> ApiException.notFound("plan", run.planId()));
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
        String prefix = WindowKey.stepPrefix(stage, stepIndex);
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
            long sec = WindowKey.epochSecond(item.get("sk").s());
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
        if (run.status().equals("COMPLETED") || run.status().equals("FAILED") || run.status().equals("FAILED_TO_START")) {
            throw new ApiException(409, "RunFinished", "run " + runId + " is " + run.status() + ": nothing to abort");
        }
        String reason = "";
        if (req.body().length > 0) {
            try {
                reason = Json.MAPPER.readTree(req.body()).path("reason").asText("").strip();
            } catch (IOException e) {
                throw ApiException.badField("$", "body must be JSON {\"reason\": \"...\"} or empty");
            }
            if (reason.length() > 1000) {
                throw ApiException.badField("$.reason", "longer than 1000 characters");
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

    private static String resource(String name) {
        try (InputStream in = PlanApi.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
