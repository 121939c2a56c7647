package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.richter.common.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Splits one OTLP JSON trace export ({@code {"resourceSpans": [{resource, scopeSpans: [{scope, spans: [...]}]}]}},
 * the OTLP/HTTP JSON encoding of {@code ExportTraceServiceRequest}) into documents small enough for one
 * {@code POST /traces} each: the request reaches the function as a Lambda invocation, capped at 6 MB
 * (docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html), and the body travels JSON-escaped inside the
 * API Gateway event.
 *
 * <p>A trace is never split: all spans of one {@code traceId} go to the same document, so every parent/child
 * and client/server pair the link builder joins is in one request. A single trace larger than the budget gets a
 * document of its own.
 */
public final class TraceChunks {
    private TraceChunks() {}

    /**
     * @param export   an OTLP JSON export
     * @param maxBytes budget per document, bytes of compact JSON (e.g. 4 MiB for the 6 MB invoke limit)
     * @return the documents, each an OTLP JSON export as compact text, in the export's trace order
     * @throws IllegalArgumentException when {@code export} has no {@code resourceSpans} array
     */
    public static List<String> split(JsonNode export, int maxBytes) {
        if (!export.path("resourceSpans").isArray()) {
            throw new IllegalArgumentException("not an OTLP JSON export: no resourceSpans array");
        }
        Map<String, Long> traceBytes = new LinkedHashMap<>();
        for (JsonNode rs : export.path("resourceSpans")) {
            for (JsonNode ss : rs.path("scopeSpans")) {
                for (JsonNode span : ss.path("spans")) {
                    traceBytes.merge(span.path("traceId").asText(), (long) Json.write(span).length() + 1, Long::sum);
                }
            }
        }
        long overhead = 256; // resource and scope wrappers per document, a generous allowance
        List<Set<String>> groups = new ArrayList<>();
        Set<String> current = new LinkedHashSet<>();
        long size = overhead;
        for (var e : traceBytes.entrySet()) {
            if (!current.isEmpty() && size + e.getValue() > maxBytes) {
                groups.add(current);
                current = new LinkedHashSet<>();
                size = overhead;
            }
            current.add(e.getKey());
            size += e.getValue();
        }
        if (!current.isEmpty()) {
            groups.add(current);
        }
        List<String> out = new ArrayList<>();
        for (Set<String> traces : groups) {
            out.add(Json.write(only(export, traces)));
        }
        return out;
    }

    /** The export with only the spans of {@code traces}; empty scopes and resources are left out. */
    private static ObjectNode only(JsonNode export, Set<String> traces) {
        ObjectNode doc = Json.MAPPER.createObjectNode();
        ArrayNode resources = doc.putArray("resourceSpans");
        for (JsonNode rs : export.path("resourceSpans")) {
            ObjectNode r = rs.deepCopy();
            ArrayNode scopes = r.putArray("scopeSpans");
            for (JsonNode ss : rs.path("scopeSpans")) {
                ObjectNode s = ss.deepCopy();
                ArrayNode spans = s.putArray("spans");
                ss.path("spans").forEach(span -> {
                    if (traces.contains(span.path("traceId").asText())) {
                        spans.add(span);
                    }
                });
                if (!spans.isEmpty()) {
                    scopes.add(s);
                }
            }
            if (!scopes.isEmpty()) {
                resources.add(r);
            }
        }
        return doc;
    }
}
