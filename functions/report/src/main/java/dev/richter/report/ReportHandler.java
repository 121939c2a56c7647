package dev.richter.report;

import com.amazonaws.services.lambda.runtime.Context;
import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.EventPublisher;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.Repositories;
import dev.richter.common.RunMetricsRepository;
import dev.richter.common.model.Plan;
import dev.richter.common.model.Run;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Lambda handler of the report function: the last state of every run, whatever happened before.
 *
 * <p>Input {@code {action: "report", runId, state}} where {@code state} is the execution's state
 * (its {@code error} field, when present, is the caught failure). Stores the report (JSON + HTML),
 * marks the run COMPLETED with its outcome, emits {@code Run Aborted} when it was aborted and
 * always {@code Run Completed}. Returns {@code {runId, outcome, outcomeReason}}.
 */
public final class ReportHandler extends JsonStreamHandler<JsonNode, Map<String, Object>> {
    private final Repositories repositories;
    private final RunMetricsRepository metrics;
    private final ReportRepository reports;
    private final EventPublisher events;

    public ReportHandler() {
        this(Repositories.fromEnv(), EventPublisher.fromEnv());
    }

    public ReportHandler(Repositories repositories, EventPublisher events) {
        super(JsonNode.class);
        this.repositories = repositories;
        this.metrics = new RunMetricsRepository(repositories.dynamoDb(), repositories.tables().runMetrics());
        this.reports = new ReportRepository(repositories.dynamoDb(), repositories.tables().reports(), repositories.tables().verdicts());
        this.events = events;
    }

    @Override
    protected Map<String, Object> handle(JsonNode input, Context context) {
        String runId = input.path("runId").asText();
        Run run = repositories.getRun(runId).orElseThrow(() -> new IllegalArgumentException("unknown run " + runId));
        Plan plan = repositories.getPlan(run.planId()).orElseThrow(() -> new IllegalArgumentException("unknown plan " + run.planId()));
        Report report = ReportBuilder.build(run, plan, metrics.workerResults(runId), metrics.checks(runId, "static"),
                metrics.checks(runId, "dynamic"), reports.verdicts(runId), reports.missingEvidence(runId), errorOf(input.path("state").path("error")),
                System.currentTimeMillis());
        reports.put(report, HtmlReport.render(report));
        repositories.updateRun(runId, Map.of("status", "COMPLETED", "outcome", report.outcome()));
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("runId", runId);
        detail.put("planId", plan.planId());
        detail.put("teamId", plan.teamId());
        detail.put("outcome", report.outcome());
        detail.put("maxSustainableQps", report.capacity().maxSustainableQps());
        if (report.outcome().equals("ABORTED")) {
            events.publish("Run Aborted", Map.of("runId", runId, "teamId", plan.teamId(), "reason", run.abortReason()));
        }
        events.publish("Run Completed", detail);
        return Map.of("runId", runId, "outcome", report.outcome(), "outcomeReason", report.outcomeReason());
    }

    /** The caught error as one line ({@code Error: Cause}), null when there was none. */
    static String errorOf(JsonNode error) {
        if (error == null || error.isMissingNode() || error.isNull()) {
            return null;
        }
        String cause = error.path("Cause").asText("");
        try {
            JsonNode parsed = dev.richter.common.Json.MAPPER.readTree(cause);
            if (parsed != null && parsed.has("errorMessage")) {
                cause = parsed.get("errorMessage").asText();
            }
        } catch (Exception notJson) {
            // the cause is plain text: keep it
        }
        return error.path("Error").asText("Error") + ": " + cause;
    }
}
