package dev.richter.api;

import dev.richter.common.AuditLog;
import dev.richter.data.traffic.TrafficFormatException;
import dev.richter.data.traffic.TrafficImporter;
import dev.richter.data.traffic.TrafficSet;
import dev.richter.data.traffic.TrafficSetStore;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** {@code /traffic-sets}: imports of recorded traffic (DESIGN.md, "Traffic sets"), stored under the team. */
final class TrafficSetResource {
    private final TrafficSetStore trafficSets;
    private final AuditLog audit;
    private final Clock clock;

    TrafficSetResource(TrafficSetStore trafficSets, AuditLog audit, Clock clock) {
        this.trafficSets = trafficSets;
        this.audit = audit;
        this.clock = clock;
    }

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
    ApiResponse importFile(ApiRequest req) {
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
        return ApiResponse.created(stored.summary(), "/traffic-sets/" + setId);
    }

    /** {@code GET /traffic-sets}: the team's sets without samples, a page at a time ({@link Cursor}). */
    ApiResponse list(ApiRequest req) {
        return Cursor.respond(req, "traffic-sets", Map.entry("teamId", req.teamId()), (limit, start) -> {
            TrafficSetStore.SummaryPage page = trafficSets.list(req.teamId(), limit, start);
            return new PlanStore.Page<>(page.items(), page.lastKey());
        }, set -> set);
    }

    /** {@code GET /traffic-sets/{setId}}: the whole set with its samples; another team's or a half-written one is a 404. */
    ApiResponse get(ApiRequest req) {
        String setId = req.path("setId");
        return ApiResponse.json(200, trafficSets.get(req.teamId(), setId)
                .orElseThrow(() -> ApiException.notFound("traffic set", setId)));
    }
}
