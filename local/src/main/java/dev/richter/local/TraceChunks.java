package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.richter.common.Json;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
        Map<String, Integer> groupOf = new HashMap<>();
        int groups = 0;
        long size = overhead;
        for (var e : traceBytes.entrySet()) {
            if (size > overhead && size + e.getValue() > maxBytes) {
                groups++;
                size = overhead;
            }
            groupOf.put(e.getKey(), groups);
            size += e.getValue();
        }
        int count = traceBytes.isEmpty() ? 0 : groups + 1;
        // one pass over the spans: each goes into its group's copy of its resource and scope (their other fields only;
        // the spans themselves are shared, never copied)
        List<ObjectNode> docs = new ArrayList<>();
        for (int g = 0; g < count; g++) {
            ObjectNode doc = Json.MAPPER.createObjectNode();
            doc.putArray("resourceSpans");
            docs.add(doc);
        }
        for (JsonNode rs : export.path("resourceSpans")) {
            ObjectNode[] resources = new ObjectNode[count];
            for (JsonNode ss : rs.path("scopeSpans")) {
                ArrayNode[] spans = new ArrayNode[count];
                for (JsonNode span : ss.path("spans")) {
                    int g = groupOf.get(span.path("traceId").asText());
                    if (spans[g] == null) {
                        if (resources[g] == null) {
                            resources[g] = without(rs, "scopeSpans");
                            resources[g].putArray("scopeSpans");
                            ((ArrayNode) docs.get(g).get("resourceSpans")).add(resources[g]);
                        }
                        ObjectNode scope = without(ss, "spans");
                        spans[g] = scope.putArray("spans");
                        ((ArrayNode) resources[g].get("scopeSpans")).add(scope);
                    }
                    spans[g].add(span);
                }
            }
        }
        List<String> out = new ArrayList<>();
        for (ObjectNode doc : docs) {
            out.add(Json.write(doc));
        }
        return out;
    }

    /** A shallow copy of {@code node} without its field {@code field}. */
    private static ObjectNode without(JsonNode node, String field) {
        ObjectNode copy = Json.MAPPER.createObjectNode();
        node.properties().forEach(e -> {
            if (!e.getKey().equals(field)) {
                copy.set(e.getKey(), e.getValue());
            }
        });
        return copy;
    }
}
