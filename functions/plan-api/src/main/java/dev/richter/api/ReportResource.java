package dev.richter.api;

import dev.richter.common.Repositories;
import dev.richter.common.RunFlags;
import dev.richter.common.model.Run;
import java.util.LinkedHashMap;
import dev.richter.report.ReportRepository;
import java.util.Map;

/**
 * {@code /runs/{runId}/report}: a run's report as the report function wrote it (JSON, or self-contained HTML); and
 * {@code /runs/{runId}/events}: its events, from the decider's stored rounds.
 */
final class ReportResource {
    private final Repositories repositories;
    private final ReportRepository reports;
    private final RunFlags flags;

    ReportResource(Repositories repositories, ReportRepository reports, RunFlags flags) {
        this.repositories = repositories;
        this.reports = reports;
        this.flags = flags;
    }

    /**
     * {@code GET /runs/{runId}/events}: 200 with {@code {runId, items: [RunEvent]}} in time order (alerts fired and
     * resolved, verdict changes, the abort: {@code dev.richter.report.RunEvents}), readable while the run goes on.
     *
     * @throws ApiException 404 {@code NotFound} for an unknown or another team's run
     */
    ApiResponse events(ApiRequest req) {
        String runId = req.path("runId");
        Run run = repositories.getRun(req.teamId(), runId).orElseThrow(() -> ApiException.notFound("run", runId));
        var abortAt = run.abortRequested() ? flags.abortRequestedAtMs(runId) : java.util.OptionalLong.empty();
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("runId", runId);
        doc.put("items", reports.events(runId, abortAt, run.abortReason() == null ? "" : run.abortReason()));
        return ApiResponse.json(200, doc);
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
