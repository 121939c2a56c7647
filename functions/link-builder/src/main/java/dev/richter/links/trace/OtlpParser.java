package dev.richter.links.trace;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * OTLP/JSON traces ({@code ExportTraceServiceRequest}, opentelemetry-proto
 * {@code trace/v1/trace.proto} with the OTLP/HTTP JSON mapping): {@code resourceSpans[].resource.attributes}
 * gives {@code service.name}; {@code scopeSpans[]} (or the pre-1.0 {@code instrumentationLibrarySpans[]})
 * holds spans with hex ids, {@code kind} as a number or {@code SPAN_KIND_*} string, times as
 * (string or number) {@code *TimeUnixNano}, attributes as {@code AnyValue}s, and {@code links}.
 * A bare {@code ResourceSpans} object (one log line of the OTel agent's {@code logging-otlp}
 * exporter) is accepted too.
 */
final class OtlpParser {
    private OtlpParser() {}

    static void parseRequest(JsonNode root, SpanCollector out) {
        for (JsonNode rs : root.path("resourceSpans")) {
            parseResourceSpans(rs, out);
        }
    }

    static void parseResourceSpans(JsonNode rs, SpanCollector out) {
        String service = "";
        for (JsonNode attr : rs.path("resource").path("attributes")) {
            if ("service.name".equals(attr.path("key").asText())) {
                service = anyValue(attr.path("value"));
                break;
            }
        }
        JsonNode scopes = rs.has("scopeSpans") ? rs.get("scopeSpans") : rs.path("instrumentationLibrarySpans");
        for (JsonNode ss : scopes) {
            for (JsonNode s : ss.path("spans")) {
                out.add(span(s, service, out));
            }
        }
    }

    private static Span span(JsonNode s, String service, SpanCollector out) {
        String traceId = TraceIds.traceId(s.path("traceId").asText(""));
        String spanId = TraceIds.spanId(s.path("spanId").asText(""));
        String parent = out.parentOrRoot(spanId, TraceIds.spanId(s.path("parentSpanId").asText("")));
        JsonNode k = s.path("kind");
        SpanKind kind = k.isNumber() ? SpanKind.ofOtlp(k.intValue()) : SpanKind.ofText(k.asText(""));
        long start = nanos(s.path("startTimeUnixNano"));
        long end = nanos(s.path("endTimeUnixNano"));
        Map<String, String> attributes = attributes(s.path("attributes"));
        List<SpanRef> links = List.of();
        JsonNode ls = s.path("links");
        if (ls.size() > 0) {
            links = new ArrayList<>(ls.size());
            for (JsonNode l : ls) {
                String lt = TraceIds.traceId(l.path("traceId").asText(""));
                String li = TraceIds.spanId(l.path("spanId").asText(""));
                if (!li.isEmpty()) {
                    links.add(new SpanRef(lt.isEmpty() ? traceId : lt, li));
                }
            }
        }
        String peer = kind.makesCall() ? PeerService.of(attributes) : "";
        return new Span(traceId, spanId, parent, links, service, s.path("name").asText(""), kind, peer,
                attributes, start, end > start ? end - start : 0);
    }

    private static long nanos(JsonNode n) {
        if (n.isNumber()) {
            return n.longValue();
        }
        String t = n.asText("");
        if (t.isEmpty()) {
            return 0;
        }
        try {
            return Long.parseLong(t);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static Map<String, String> attributes(JsonNode attrs) {
        int n = attrs.size();
        if (n == 0) {
            return Map.of();
        }
        Map<String, String> m = new HashMap<>(n * 2);
        for (JsonNode a : attrs) {
            m.put(a.path("key").asText(""), anyValue(a.path("value")));
        }
        return m;
    }

    /** The text of an OTLP {@code AnyValue}: the scalar as text, arrays and kvlists as JSON. */
    static String anyValue(JsonNode v) {
        JsonNode s = v.get("stringValue");
        if (s != null) {
            return s.asText();
        }
        var fields = v.fields();
        if (!fields.hasNext()) {
            return "";
        }
        JsonNode x = fields.next().getValue();
        return x.isValueNode() ? x.asText() : x.toString();
    }
}
