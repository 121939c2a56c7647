package dev.richter.links.trace;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Jaeger JSON as the Jaeger UI and query API export it ({@code {"data":[trace…]}}, a single trace
 * {@code {traceID, spans, processes}}, or an array of traces): {@code processes[processID].serviceName}
 * (or an embedded {@code process}), {@code operationName}, {@code tags[{key,type,value}]} with
 * {@code span.kind}, {@code startTime}/{@code duration} in µs, and {@code references}.
 *
 * <p>The parent is the first {@code CHILD_OF} reference that is not the span itself, else the first
 * such {@code FOLLOWS_FROM} (the Jaeger UI's rule), else the legacy {@code parentSpanID}; the other
 * references become {@link Span#links()}. Self-references are ignored and counted as repairs
 * (jaeger-ui issue #821).
 */
final class JaegerParser {
    private JaegerParser() {}

    static void parseTrace(JsonNode trace, SpanCollector out) {
        Map<String, String> services = new HashMap<>();
        var it = trace.path("processes").fields();
        while (it.hasNext()) {
            var e = it.next();
            services.put(e.getKey(), e.getValue().path("serviceName").asText(""));
        }
        String traceIdDefault = trace.path("traceID").asText("");
        for (JsonNode s : trace.path("spans")) {
            out.add(span(s, services, traceIdDefault, out));
        }
    }

    private static Span span(JsonNode s, Map<String, String> services, String traceIdDefault, SpanCollector out) {
        String traceId = TraceIds.traceId(s.path("traceID").asText(traceIdDefault));
        String spanId = TraceIds.spanId(s.path("spanID").asText(""));
        String parent = "";
        List<SpanRef> links = List.of();
        JsonNode refs = s.path("references");
        if (refs.size() > 0) {
            JsonNode chosen = null;
            for (String type : new String[] {"CHILD_OF", "FOLLOWS_FROM"}) {
                for (JsonNode r : refs) {
                    if (type.equals(r.path("refType").asText("CHILD_OF"))
                            && !TraceIds.spanId(r.path("spanID").asText("")).equals(spanId)
                            && !r.path("spanID").asText("").isEmpty()) {
                        chosen = r;
                        break;
                    }
                }
                if (chosen != null) {
                    break;
                }
            }
            links = new ArrayList<>();
            for (JsonNode r : refs) {
                String rs = TraceIds.spanId(r.path("spanID").asText(""));
                if (rs.equals(spanId)) {
                    out.repair(SpanCollector.SELF_PARENT);
                } else if (r != chosen && !rs.isEmpty()) {
                    String rt = TraceIds.traceId(r.path("traceID").asText(""));
                    links.add(new SpanRef(rt.isEmpty() ? traceId : rt, rs));
                }
            }
            if (chosen != null) {
                parent = TraceIds.spanId(chosen.path("spanID").asText(""));
            }
        } else if (s.has("parentSpanID")) {
            parent = out.parentOrRoot(spanId, TraceIds.spanId(s.path("parentSpanID").asText("")));
            if ("0000000000000000".equals(parent)) {
                parent = "";
            }
        }
        Map<String, String> tags = Map.of();
        JsonNode t = s.path("tags");
        if (t.size() > 0) {
            tags = new HashMap<>(t.size() * 2);
            for (JsonNode tag : t) {
                tags.put(tag.path("key").asText(""), tag.path("value").asText(""));
            }
        }
        SpanKind kind = SpanKind.ofText(tags.getOrDefault("span.kind", ""));
        String service = s.has("process")
                ? s.path("process").path("serviceName").asText("")
                : services.getOrDefault(s.path("processID").asText(""), "");
        String peer = kind.makesCall() ? PeerService.of(tags) : "";
        return new Span(traceId, spanId, parent, links, service, s.path("operationName").asText(""), kind, peer,
                tags, s.path("startTime").asLong(0) * 1000, s.path("duration").asLong(0) * 1000);
    }
}
