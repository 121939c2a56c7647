package dev.richter.api;

import dev.richter.common.AuditLog;
import dev.richter.common.AwsClients;
import dev.richter.common.Env;
import dev.richter.common.Repositories;
import dev.richter.common.net.AllowedNetworks;
import dev.richter.common.RunFlags;
import dev.richter.common.RunMetricsRepository;
import dev.richter.common.model.Marker;
import dev.richter.runs.RunLeases;
import dev.richter.data.StoredSets;
import dev.richter.sizing.Quotas;
import dev.richter.data.flow.DataSetStore;
import dev.richter.data.flow.Expressions;
import dev.richter.data.flow.FlowRunner;
import dev.richter.data.flow.FlowService;
import dev.richter.data.traffic.TrafficSetStore;
import dev.richter.links.LinkService;
import dev.richter.report.ProblemStore;
import dev.richter.report.ReportRepository;
import dev.richter.runs.ContractSchemas;
import dev.richter.runs.PlanValidator;
import dev.richter.runs.RunStarter;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Supplier;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.scheduler.SchedulerClient;
import software.amazon.awssdk.services.sfn.SfnClient;

/**
 * The HTTP API (DESIGN.md §1, §7), put together: builds each resource with the stores and clients it uses and
 * answers a request through {@link Routes}. The routes, their shapes and statuses: {@link Routes#ALL},
 * {@code openapi.json}; what each does: the resource classes ({@link ServiceResource}, {@link PlanResource},
 * {@link RunResource}, ...). What every resource shares lives once: the caller's team, caller and path parameters
 * ({@link ApiRequest}), body parsing against the contract ({@link InputValidator}), list pages ({@link Cursor#respond}),
 * failures in the one error shape ({@link ApiException}) and answers ({@link ApiResponse}). The run use cases
 * ({@link PlanValidator}, {@link RunStarter}) are in {@code dev.richter.runs}, free of HTTP types.
 */
public final class PlanApi {
    /** Highest step rate a team may plan, requests per second (DESIGN.md §7 per-team QPS cap; env {@code MAX_TEAM_QPS}). */
    public static final double DEFAULT_MAX_TEAM_QPS = 5_000;

    private final Routes routes;

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
     * Reports are read from the reports table only.
     *
     * @param quotas the limits plans are checked and estimated against, read on every request
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
        this(repositories, sfn, stateMachineArn, maxTeamQps, quotas, reports, schedulerFromEnv(), scheduleConfigFromEnv());
    }

    /**
     * @param scheduler      EventBridge Scheduler, for planned starts
     * @param scheduleConfig where planned starts' schedules go and what they invoke ({@link PlannedStarts.ScheduleTarget})
     */
    PlanApi(Repositories repositories, SfnClient sfn, String stateMachineArn, double maxTeamQps,
            Supplier<Quotas> quotas, ReportRepository reports, SchedulerClient scheduler, PlannedStarts.ScheduleTarget scheduleConfig) {
        Clock clock = Clock.systemUTC();
        AllowedNetworks networks = AllowedNetworks.fromEnv();
        var dynamoDb = repositories.dynamoDb();
        var tables = repositories.tables();
        AuditLog audit = new AuditLog(dynamoDb, tables.audit());
        PlanStore store = new PlanStore(repositories);
        RunLeases leases = new RunLeases(dynamoDb, tables.leases(), clock);
        ContractSchemas schemas = new ContractSchemas();
        InputValidator input = new InputValidator(schemas);
        PlanValidator plans = new PlanValidator(repositories, new StoredSets(dynamoDb, tables.registry()), schemas,
                maxTeamQps, quotas);
        RunStarter starter = new RunStarter(repositories, leases, plans, audit, sfn, stateMachineArn, clock);
        FlowService flows = new FlowService(new DataSetStore(dynamoDb, tables.registry()),
                new FlowRunner(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build(), Expressions.DEFAULT,
                        Marker.DEFAULT, Duration.ofMillis(FlowResource.FLOW_CALL_TIMEOUT_MS), clock::millis),
                clock::millis);
        LinkService links = new LinkService(dynamoDb, tables.links());
        this.routes = new Routes(new Routes.Resources(
                new ServiceResource(repositories, store, leases, audit, input, links, networks),
                new PlanResource(repositories, store, leases, plans, audit, quotas, clock),
                new RunResource(repositories, store, starter, new RunMetricsRepository(dynamoDb, tables.runMetrics()), reports,
                        new RunFlags(dynamoDb, tables.runs()), audit, sfn, input,
                        new PlannedStarts(repositories, starter, audit, scheduler, scheduleConfig, clock), clock),
                new ReportResource(repositories, reports, new RunFlags(dynamoDb, tables.runs())),
                new TraceResource(links, audit),
                new LinkResource(links, repositories, audit, input),
                new TrafficSetResource(new TrafficSetStore(dynamoDb, tables.registry()), audit, clock),
                new FlowResource(flows, repositories, audit, input, clock),
                new DataSetResource(flows),
                new SafetyResource(repositories, audit, input),
                new NotificationResource(repositories, audit, input, networks),
                new AuditResource(store),
                new OpenApiResource(),
                new ProblemResource(new ProblemStore(dynamoDb, tables.registry()), audit, input, clock),
                new CompareResource(repositories, reports),
                new EvidenceSourceResource(repositories, audit, input, networks),
                new ConsoleResource(name -> dev.richter.common.Env.get(name).orElse(""))));
    }

    /**
     * The API of the Lambda container: clients and configuration from the environment ({@code AWS_ENDPOINT_URL_*},
     * table names, {@code LOAD_TEST_RUN_STATE_MACHINE_ARN}, {@code MAX_TEAM_QPS}, quotas, the reports bucket).
     */
    public static PlanApi fromEnv() {
        Repositories repositories = Repositories.fromEnv();
        return new PlanApi(repositories,
                SfnClient.builder().region(AwsClients.region()).httpClientBuilder(UrlConnectionHttpClient.builder()).build(),
                Env.get("LOAD_TEST_RUN_STATE_MACHINE_ARN").orElse(""),
                Double.parseDouble(Env.get("MAX_TEAM_QPS").orElse(String.valueOf(DEFAULT_MAX_TEAM_QPS))),
                Quotas::fromEnv, ReportRepository.fromEnv(repositories));
    }

    /** EventBridge Scheduler through {@code AWS_ENDPOINT_URL_SCHEDULER} when set (the local stack's), else AWS's. */
    static SchedulerClient schedulerFromEnv() {
        return SchedulerClient.builder().region(AwsClients.region()).httpClientBuilder(UrlConnectionHttpClient.builder()).build();
    }

    /**
     * {@code SCHEDULE_GROUP_NAME} (default {@code default}), {@code SCHEDULED_START_FUNCTION_ARN},
     * {@code SCHEDULED_START_ROLE_ARN} (template.yaml sets all three).
     */
    static PlannedStarts.ScheduleTarget scheduleConfigFromEnv() {
        return new PlannedStarts.ScheduleTarget(Env.get("SCHEDULE_GROUP_NAME").orElse("default"),
                Env.get("SCHEDULED_START_FUNCTION_ARN").orElse(""), Env.get("SCHEDULED_START_ROLE_ARN").orElse(""));
    }

    /**
     * Answers one request.
     *
     * @throws ApiException the route's 4xx (and 503) failures, to be rendered in the API's one error shape
     */
    public ApiResponse handle(ApiRequest req) {
        return routes.dispatch(req);
    }
}
