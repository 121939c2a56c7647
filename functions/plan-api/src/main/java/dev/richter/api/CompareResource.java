package dev.richter.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.model.Run;
import dev.richter.report.ReportRepository;
import dev.richter.report.RunComparison;
import dev.richter.report.RunHistory;

/** {@code /runs/{runId}/compare}: a run beside another run of the team ({@link RunComparison}). */
final class CompareResource {
    /** The {@code with} value that names the plan's previous finished run. */
    static final String PREVIOUS = "previous";

    private final Repositories repositories;
    private final ReportRepository reports;
    private final RunHistory history;

    CompareResource(Repositories repositories, ReportRepository reports) {
        this.repositories = repositories;
        this.reports = reports;
        this.history = new RunHistory(repositories.dynamoDb(), repositories.tables().runs(), reports);
    }

    /**
     * {@code GET /runs/{runId}/compare?with=<runId>|previous}: the run's report compared with the other run's, with the
     * default thresholds ({@link RunComparison.RegressionThresholds#DEFAULT}). {@code previous} is the latest earlier
     * {@code COMPLETED} run of the same plan that has a report ({@link RunHistory#previous}).
     *
     * @return 200 {@code Comparison}
     * @throws ApiException 400 without {@code with}, or when it names the run itself; 404 {@code NotFound} for an
     *                      unknown or another team's run (either), {@code ReportNotReady} before either report is
     *                      written, {@code NoPreviousRun} for a plan's first finished run
     */
    ApiResponse compare(ApiRequest req) {
        String runId = req.path("runId");
        String with = req.query().getOrDefault("with", "").strip();
        if (with.isEmpty()) {
            throw ApiException.badField("query.with", "required: a run id of the team, or previous");
        }
        if (with.equals(runId)) {
            throw ApiException.badField("query.with", "names the run itself: compare with another run, or previous");
        }
        Run run = repositories.getRun(req.teamId(), runId).orElseThrow(() -> ApiException.notFound("run", runId));
        JsonNode report = report(runId);
        JsonNode baseline;
        if (with.equals(PREVIOUS)) {
            baseline = history.previous(run.planId(), runId, run.createdAtMs()).map(RunHistory.Reported::report)
                    .orElseThrow(() -> new ApiException(404, "NoPreviousRun", "run " + runId + " has no earlier COMPLETED run"
                            + " of plan " + run.planId() + " with a report"));
        } else {
            repositories.getRun(req.teamId(), with).orElseThrow(() -> ApiException.notFound("run", with));
            baseline = report(with);
        }
        return ApiResponse.json(200, RunComparison.of(report, baseline, RunComparison.RegressionThresholds.DEFAULT));
    }

    private JsonNode report(String runId) {
        return Json.read(reports.get(runId, "json").orElseThrow(() -> new ApiException(404, "ReportNotReady",
                "the report of run " + runId + " is not written yet")), JsonNode.class);
    }
}
