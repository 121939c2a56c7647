package dev.richter.links.trace;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Jaeger JSON as the Jaeger UI and query API export it ({@code {"data":[trace…]}}, a single trace
 * {@code {traceID, spans, processes}}, or an array of traces): {@code processes[processID].serviceName}
 * (or an embedded {@code process}), {@code operationName}, {@code tags[{key,type,value}]} (the instrumentation
 * scope from the {@code otel.scope.*} or older {@code otel.library.*} tags, {@link InstrumentationScope#ofTags}) with
 * {@code span.kind}, {@code startTime}/{@code duration} in µs, and {@code references}.
 *
 * <p>The parent is the first {@code CHILD_OF} reference that is not the span itself, else the first
 * such {@code FOLLOWS_FROM} (the Jaeger UI's rule), else the legacy {@code parentSpanID}; the other
 * references become {@link Span#links()}. Self-references are ignored and counted as repairs
 * (see https://github.com/jaegertracing/jaeger-ui/issues/821).
 *
 * <p>Ids: {@code traceID}/{@code spanID} are hex strings of up to 32/16 digits (left-padded, so
 * the 16-digit form Jaeger writes for a 64-bit id joins its 32-digit form); base64 ids, which are
 * Jaeger's api_v2 protobuf-JSON encoding and not this format's, reject the document; other strings
 * are opaque ids (see {@link TraceIds#jaegerTraceId}). The api_v2 form ({@code traceId}/{@code spanId}
 * as base64 of the id bytes, RFC 3339 times) and Thrift batches ({@code traceIdLow}/{@code traceIdHigh}
 * as signed 64-bit integers) are not read: {@link TraceDocuments} does not recognize them.
 */
final class JaegerParser {
    private JaegerParser() {}

    /**
     * Reads one trace object ({@code {traceID, spans, processes}}).
     *
     * @param at the trace's place in the document (for error paths)
     * @throws InvalidIdException when an id breaks the Jaeger rule ({@link TraceIds#jaegerTraceId})
     */
    static void parseTrace(JsonNode trace, SpanCollector out, JsonPath at) {
        Map<String, String> services = new HashMap<>();
        var it = trace.path("processes").fields();
        while (it.hasNext()) {
            var e = it.next();
            services.put(e.getKey(), e.getValue().path("serviceName").asText(""));
        }
        String traceIdDefault = id(trace.path("traceID"), false, at, "traceID");
        int j = 0;
        for (JsonNode s : trace.path("spans")) {
            out.add(span(s, services, traceIdDefault, out, at.field("spans").index(j++)));
        }
    }

    /** A span or trace id by the Jaeger rule; {@code span} selects the 64-bit rule. */
    private static String id(JsonNode v, boolean span, JsonPath at, String field) {
        String raw = OtlpParser.idText(v);
        try {
            return span ? TraceIds.jaegerSpanId(raw) : TraceIds.jaegerTraceId(raw);
        } catch (IllegalArgumentException e) {
            throw new InvalidIdException(at.field(field), e);
        }
    }

    private static Span span(JsonNode s, Map<String, String> services, String traceIdDefault, SpanCollector out,
                             JsonPath at) {
        String traceId = s.has("traceID") ? id(s.get("traceID"), false, at, "traceID") : traceIdDefault;
        String spanId = id(s.path("spanID"), true, at, "spanID");
        String parent = "";
        List<SpanRef> links = List.of();
        JsonNode refs = s.path("references");
        if (refs.size() > 0) {
            String[] refSpan = new String[refs.size()];
            String[] refTrace = new String[refs.size()];
            for (int r = 0; r < refs.size(); r++) {
                JsonNode ref = refs.get(r);
                JsonPath rp = at.field("references").index(r);
                refSpan[r] = id(ref.path("spanID"), true, rp, "spanID");
                refTrace[r] = id(ref.path("traceID"), false, rp, "traceID");
            }
            int chosen = -1;
            for (String type : new String[] {"CHILD_OF", "FOLLOWS_FROM"}) {
                for (int r = 0; r < refs.size(); r++) {
                    if (type.equals(refs.get(r).path("refType").asText("CHILD_OF"))
                            && !refSpan[r].equals(spanId) && !refSpan[r].isEmpty()) {
                        chosen = r;
                        break;
                    }
                }
                if (chosen >= 0) {
                    break;
                }
            }
            links = new ArrayList<>();
            for (int r = 0; r < refs.size(); r++) {
                String rs = refSpan[r];
                if (rs.equals(spanId)) {
                    out.repair(SpanCollector.SELF_PARENT);
                } else if (r != chosen && !rs.isEmpty()) {
                    links.add(new SpanRef(refTrace[r].isEmpty() ? traceId : refTrace[r], rs));
                }
            }
            if (chosen >= 0) {
                parent = refSpan[chosen];
            }
        } else if (s.has("parentSpanID")) {
            String raw = OtlpParser.idText(s.path("parentSpanID"));
            try {
                parent = out.parentOrRoot(spanId, TraceIds.jaegerParentSpanId(raw));
            } catch (IllegalArgumentException e) {
                throw new InvalidIdException(at.field("parentSpanID"), e);
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
                tags, s.path("startTime").asLong(0) * 1000, s.path("duration").asLong(0) * 1000,
                InstrumentationScope.ofTags(tags));
    }
}
