package dev.richter.api;

import dev.richter.common.AuditLog;
import dev.richter.links.IngestResult;
import dev.richter.links.LinkService;
import dev.richter.links.trace.TraceFormatException;
import java.util.List;
import java.util.Map;

/** {@code POST /traces}: trace files into the team's links ({@link LinkService}, the link-builder's library). */
final class TraceResource {
    private final LinkService links;
    private final AuditLog audit;

    TraceResource(LinkService links, AuditLog audit) {
        this.links = links;
        this.audit = audit;
    }

    /**
     * {@code POST /traces?file=<name>}: ingests one trace file (OTLP JSON, Zipkin v2, Jaeger or X-Ray JSON).
     *
     * @return 200 with the {@link IngestResult}
     * @throws ApiException 400 {@code ValidationFailed} for an empty body; 400 {@code InvalidTraceFile} at
     *                      {@code <file>:<line>:<column>} when the file is none of the formats
     */
    ApiResponse ingest(ApiRequest req) {
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
}
