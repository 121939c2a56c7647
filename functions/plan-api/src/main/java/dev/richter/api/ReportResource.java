package dev.richter.api;

import dev.richter.common.Repositories;
import dev.richter.report.ReportRepository;
import java.util.Map;

/** {@code /runs/{runId}/report}: a run's report as the report function wrote it (JSON, or self-contained HTML). */
final class ReportResource {
    private final Repositories repositories;
    private final ReportRepository reports;

    ReportResource(Repositories repositories, ReportRepository reports) {
        this.repositories = repositories;
        this.reports = reports;
    }

    /**
     * {@code GET /runs/{runId}/report[?format=json|html]}: 200 with the report ({@code application/json}, or
     * {@code text/html; charset=utf-8} for {@code format=html}).
     *
     * @throws ApiException 404 {@code NotFound} for an unknown or another team's run, 404 {@code ReportNotReady}
     *                      before the report is written
     */
    ApiResponse get(ApiRequest req) {
        String runId = req.path("runId");
        repositories.getRun(req.teamId(), runId).orElseThrow(() -> ApiException.notFound("run", runId));
        boolean html = "html".equalsIgnoreCase(req.query().getOrDefault("format", "json"));
        String text = reports.get(runId, html ? "html" : "json")
                .orElseThrow(() -> new ApiException(404, "ReportNotReady", "the report of run " + runId + " is not written yet"));
        return new ApiResponse(200, html ? "text/html; charset=utf-8" : "application/json", text, Map.of());
    }
}
