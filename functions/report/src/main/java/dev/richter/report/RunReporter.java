package dev.richter.report;

import dev.richter.common.AccessDenied;
import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.AwsClients;
import dev.richter.common.Env;
import dev.richter.common.EventPublisher;
import dev.richter.common.Json;
import dev.richter.common.RunFlags;
import dev.richter.common.RunLogContext;
import dev.richter.common.TaskErrors;
import dev.richter.common.metrics.RichterMetrics;
import dev.richter.common.Repositories;
import dev.richter.common.RunMetricsRepository;
import dev.richter.common.model.CheckResult;
import dev.richter.common.model.Plan;
import dev.richter.common.model.Run;
import dev.richter.common.model.WorkerResult;
import dev.richter.links.source.TraceSourceSpec;
import dev.richter.links.store.LinkRepository;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The report use case: the last thing every run does, whatever happened before.
 *
 * <p>Reads the run's results, checks and verdicts, and
 * the optional evidence ({@link EvidenceLoader}: windows, 429/503 records, traces, links), stores the report (JSON +
 * HTML, fitted to one DynamoDB item; whole, as {@code reports/<runId>/report.json} and {@code report.html}, in the
 * reports bucket when {@code REPORTS_BUCKET} is set; a bucket that refuses is logged, the table item is still written),
 * marks the run COMPLETED with its outcome, emits {@code Run Aborted} when it was
 * aborted and always {@code Run Completed} (an event the bus refuses is logged and counted as {@code EventsFailed}; the
 * report stands).
 *
 * <p>Reads the plans, runs, run-metrics, verdicts, registry (services, safety configuration) and links tables, and the
 * team's trace source (X-Ray on AWS). Before storing, it follows the report's problems across the plan's runs
 * ({@link ProblemTracker}: the registry table's {@code problem#} items) and compares the run with the plan's previous
 * finished run ({@link RunHistory}, {@link RunComparison}); either failing is logged and leaves its section empty, the
 * report is written.
 *
 * <p>Writes one EMF line per run ({@link RichterMetrics}, function {@code report}): {@code RunsCompleted} (Count, 1),
 * {@code RunsAborted} (Count, 1 when the outcome is {@code ABORTED}, else 0), {@code EventsFailed} (Count) and, for an aborted run,
 * {@code AbortLatency} (Milliseconds, {@link AbortTiming#latencyMs()}: from the abort flag being set to the last send of any
 * worker; alarmed) and {@code AbortDrain} (Milliseconds, {@link AbortTiming#drainMs()}: from the flag to the last aborted worker
 * stopping, the in-flight requests' answers or timeouts included; not alarmed), with {@code runId}, {@code teamId}, {@code planId} and {@code outcome} as properties. Log lines of the
 * invocation carry the run's {@code runId} and {@code teamId} ({@link RunLogContext}).
 */
public final class RunReporter {
    private static final Logger LOG = LogManager.getLogger(RunReporter.class);
    /** Time kept back from the Lambda's remaining time for rendering and storing, milliseconds. */
    static final long RENDER_RESERVE_MS = 30_000;

    private final Repositories repositories;
    private final RunMetricsRepository metrics;
    private final ReportRepository reports;
    private final EvidenceLoader loader;
    private final EventPublisher events;
    private final RunFlags flags;
    private final ProblemTracker problems;
    private final RunHistory history;
    private final RichterMetrics runMetrics = RichterMetrics.forFunction("report");


    /**
     * @param repositories the tables (plans, runs, run-metrics, verdicts, reports, registry, links) and their client
     * @param events       where {@code Run Aborted} and {@code Run Completed} go
     * @param reports      the reports table and, when configured, the reports bucket
     */
    public RunReporter(Repositories repositories, EventPublisher events, ReportRepository reports) {
        this.repositories = repositories;
        this.metrics = new RunMetricsRepository(repositories.dynamoDb(), repositories.tables().runMetrics());
        this.reports = reports;
        this.loader = new EvidenceLoader(new RunEvidenceRepository(repositories),
                new LinkRepository(repositories.dynamoDb(), repositories.tables().links()), repositories::listServices,
                TraceSourceSpec::open);
        this.events = events;
        this.flags = new RunFlags(repositories.dynamoDb(), repositories.tables().runs());
        this.problems = new ProblemTracker(new ProblemStore(repositories.dynamoDb(), repositories.tables().registry()));
        this.history = new RunHistory(repositories.dynamoDb(), repositories.tables().runs(), reports);
    }

    /**
     * Reports one run.
     *
     * @param runId       the run
     * @param error       the caught failure as Step Functions hands it over ({@code {Error, Cause}}), or a missing node
     * @param remainingMs the invocation's time left, milliseconds (evidence loading stops in time to render and store)
     * @return {@code {runId, outcome, outcomeReason}}
     * @throws IllegalArgumentException for an unknown run or plan
     */
    public Map<String, Object> report(String runId, JsonNode error, long remainingMs) {
        Run run = repositories.getRun(runId).orElseThrow(() -> new IllegalArgumentException("unknown run " + runId));
        try (RunLogContext ignored = RunLogContext.open(runId, run.teamId(), null, null)) {
            return report(runId, run, error, remainingMs);
        }
    }

    /**
     * The plan's followed problems after this report ({@link ProblemTracker}); none when the store cannot be written
     * (logged: the report is written anyway, and the next run's report tracks what it lists).
     */
    private List<Report.FollowedProblem> followUp(Report report) {
        try {
            return problems.track(report, report.generatedAtMs());
        } catch (RuntimeException e) {
            LOG.error("problems of run {} not tracked: {}", report.runId(), e.toString());
            return List.of();
        }
    }

    /**
     * This run compared with the plan's previous finished run ({@link RunHistory#previous}, {@link RunComparison} with
     * the default thresholds); a note instead when there is none or it cannot be read (logged).
     */
    private Report.SinceLastRun sinceLastRun(Run run, Report report) {
        try {
            return history.previous(run.planId(), run.runId(), run.createdAtMs())
                    .map(prev -> new Report.SinceLastRun("", RunComparison.of(Json.MAPPER.valueToTree(report), prev.report(),
                            RunComparison.RegressionThresholds.DEFAULT)))
                    .orElse(new Report.SinceLastRun("the plan's first finished run: nothing to compare with", null));
        } catch (RuntimeException e) {
            LOG.error("run {} not compared with the previous run: {}", run.runId(), e.toString());
            return new Report.SinceLastRun("the previous run could not be read: " + e.getMessage(), null);
        }
    }

    /** The decider's saturation signals; none when they cannot be read (the report is written anyway). */
    private List<SaturationSignal> saturation(String runId) {
        try {
            return reports.saturation(runId);
        } catch (RuntimeException e) {
            AccessDenied.rethrowIfDenied(e);
            LOG.warn("saturation signals of {} not read: {}", runId, e.toString());
            return List.of();
        }
    }

    /** The circuit breakers' not-permitted counters per round; none when they cannot be read. */
    private List<BreakerCount> breakerCounts(String runId) {
        try {
            return reports.breakerCounts(runId);
        } catch (RuntimeException e) {
            AccessDenied.rethrowIfDenied(e);
            LOG.warn("circuit breaker counters of {} not read: {}", runId, e.toString());
            return List.of();
        }
    }

    /** The run's events (alerts, verdict changes, the abort); none when they cannot be read. */
    private List<RunEvent> events(Run run) {
        try {
            return reports.events(run.runId(), run.abortRequested() ? flags.abortRequestedAtMs(run.runId()) : java.util.OptionalLong.empty(),
                    run.abortReason() == null ? "" : run.abortReason());
        } catch (RuntimeException e) {
            LOG.warn("events of {} not read: {}", run.runId(), e.toString());
            return List.of();
        }
    }

    /** The decider's business metric readings; none when they cannot be read. */
    private List<BusinessMetricRound> businessMetrics(String runId) {
        try {
            return reports.businessMetrics(runId);
        } catch (RuntimeException e) {
            LOG.warn("business metrics of {} not read: {}", runId, e.toString());
            return List.of();
        }
    }

    private Map<String, Object> report(String runId, Run run, JsonNode error, long remainingMs) {
        Plan plan = repositories.getPlan(run.planId()).orElseThrow(() -> new IllegalArgumentException("unknown plan " + run.planId()));
        List<WorkerResult> results = metrics.workerResults(runId);
        List<CheckResult> dynamicChecks = metrics.checks(runId, "dynamic");
        ReportEvidence evidence = loader.load(run, plan, results, dynamicChecks,
                System.currentTimeMillis() + Math.max(5_000, remainingMs - RENDER_RESERVE_MS));
        evidence = evidence.withSaturation(saturation(runId)).withTeamEvidence(events(run), businessMetrics(runId))
                .withBreakerCounts(breakerCounts(runId));
        Report report = ReportBuilder.build(run, plan, results, metrics.checks(runId, "static"), dynamicChecks,
                reports.verdicts(runId), reports.missingEvidence(runId), evidence, errorOf(error),
                System.currentTimeMillis());
        Optional<AbortTiming> abort = run.abortRequested()
                ? AbortTiming.of(flags.abortRequestedAtMs(runId), results) : Optional.empty();
        report = report.withHistory(followUp(report), sinceLastRun(run, report)).withAbort(abort.orElse(null));
        Fitted fitted = fit(report);
        if (reports.hasBucket()) {
            // the whole report, before the table item that marks it ready; a bucket that refuses costs the copy, not the run's report
            try {
                boolean whole = fitted.report() == report;
                reports.putFiles(runId, whole ? fitted.json() : Json.write(report), whole ? fitted.html() : HtmlReport.render(report));
            } catch (SdkException e) {
                AccessDenied.rethrowIfDenied(e);   // a bucket the role may not write is a defect, not a lost copy
                LOG.error("report of {} not written to the reports bucket (the reports table has it): {}", runId, e.toString());
            }
        }
        reports.put(fitted.report().runId(), fitted.report().teamId(), fitted.json(), fitted.html());
        repositories.updateRun(runId, completedRun(report));
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("runId", runId);
        detail.put("planId", plan.planId());
        detail.put("teamId", plan.teamId());
        detail.put("outcome", report.outcome());
        detail.put("maxSustainableQps", report.capacity().maxSustainableQps());
        detail.put("capacityReached", report.capacity().reached());
        detail.put("capacityMeasured", report.capacity().measured());
        int eventsFailed = 0;
        if (report.outcome().equals("ABORTED")) {
            Map<String, Object> aborted = new LinkedHashMap<>();
            aborted.put("runId", runId);
            aborted.put("teamId", plan.teamId());
            aborted.put("reason", run.abortReason());
            abort.ifPresent(a -> {
                aborted.put("abortRequestedAtMs", a.requestedAtMs());
                aborted.put("abortLatencyMs", a.latencyMs());
                aborted.put("abortDrainMs", a.drainMs());
            });
            eventsFailed += publish("Run Aborted", aborted);
        }
        eventsFailed += publish("Run Completed", detail);
        emit(run, plan, report.outcome(), abort, eventsFailed);
        return Map.of("runId", runId, "outcome", report.outcome(), "outcomeReason", report.outcomeReason());
    }

    /**
     * Publishes one event; a bus that refuses costs the event, never the report (the run is already reported and
     * COMPLETED): the failure is logged and counted. Returns 1 when the event was not published, else 0.
     */
    private int publish(String detailType, Map<String, ?> detail) {
        try {
            events.publish(detailType, detail);
            return 0;
        } catch (RuntimeException busFailed) {
            // a denied PutEvents too: logged as an error and counted (EventsFailed), the report already written
            LOG.error("{} of run {} not published: {}", detailType, detail.get("runId"), busFailed.toString());
            return 1;
        }
    }

    private void emit(Run run, Plan plan, String outcome, Optional<AbortTiming> abort, int eventsFailed) {
        boolean aborted = outcome.equals("ABORTED");
        RichterMetrics.Emission e = runMetrics.emission()
                .count("RunsCompleted", 1)
                .count("RunsAborted", aborted ? 1 : 0)
                .count("EventsFailed", eventsFailed)
                .property("runId", run.runId())
                .property("teamId", plan.teamId())
                .property("planId", plan.planId())
                .property("outcome", outcome);
        if (aborted && abort.isPresent()) {
            if (abort.get().latencyMs() != null) {
                e.milliseconds("AbortLatency", abort.get().latencyMs());
            }
            if (abort.get().drainMs() != null) {
                e.milliseconds("AbortDrain", abort.get().drainMs());
            }
        }
        e.flush();
    }

    /**
     * A report and its page that fit one reports-table item together.
     *
     * @param report the report as stored (JSON)
     * @param json   {@code report} as JSON, serialised once for both the size check and the store
     * @param html   its page
     */
    record Fitted(Report report, String json, String html) {}

    /**
     * The report and page as they fit {@link ReportRepository#MAX_ITEM_BYTES}: whole when they do; else without the
     * time series in the JSON (the page keeps it); else without it on the page either (the note says so).
     */
    static Fitted fit(Report report) {
        String html = HtmlReport.render(report);
        String json = Json.write(report);
        if (bytes(json) + bytes(html) <= ReportRepository.MAX_ITEM_BYTES) {
            return new Fitted(report, json, html);
        }
        String note = "the time series was left out of the stored JSON to fit the 400 KB item; the HTML page has it";
        Report lean = report.withTimeSeries(TimeSeries.EMPTY.withNote(note));
        String leanJson = Json.write(lean);
        if (bytes(leanJson) + bytes(html) <= ReportRepository.MAX_ITEM_BYTES) {
            return new Fitted(lean, leanJson, html);
        }
        return new Fitted(lean, leanJson, HtmlReport.render(report.withTimeSeries(TimeSeries.EMPTY.withNote(
                "the time series was left out: the report would not fit its 400 KB item"))));
    }


    private static int bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    /** The caught error as one line ({@code Error: Cause}), null when there was none. */
    static String errorOf(JsonNode error) {
        if (error == null || error.isMissingNode() || error.isNull()) {
            return null;
        }
        String cause = TaskErrors.causeMessage(error.path("Cause").asText(""));
        return error.path("Error").asText("Error") + ": " + cause;
    }

    /**
     * What the run item gets when its report is stored: {@code status} COMPLETED, the {@code outcome}, and, when the
     * run measured its capacity, {@code capacityQps} (requests per second) and {@code capacityReached} (false: the
     * capacity is at least that rate, the run stopped below the knee), so that a list of runs shows each run's capacity
     * without reading its report.
     */
    static Map<String, Object> completedRun(Report report) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", "COMPLETED");
        m.put("outcome", report.outcome());
        if (report.capacity() != null && report.capacity().measured()) {
            m.put("capacityQps", report.capacity().maxSustainableQps());
            m.put("capacityReached", report.capacity().reached());
        }
        return m;
    }
}
