package dev.richter.links.trace;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Jaeger JSON as the Jaeger UI and query API export it ({@code {"data":[trace…]}}, a single trace
 * {@code {traceID, spans, processes}}, or an array of traces): {@code processes[processID].serviceName}
 * (or an embedded {@code process}), {@code operationName}, {@code tags[{key,type,value}]} (the instrumentation
 * scope from the {@code otel.scope.*} or older {@code otel.library.*} tags, {@link InstrumentationScope#ofTags}) with
 * {@code span.kind}, {@code startTime}/{@code duration} in µs, and {@code references}.
 *
 * <p>The parent is the first {@code CHILD_OF} reference into the span's own trace that is not the span itself, as
 * Jaeger's {@code model.Span.ParentSpanID()} takes it; a span without {@code references} takes the legacy
 * {@code parentSpanID}. A reference is into the span's own trace when its {@code traceID} is the span's, is absent, or
 * is the span's with the high 64 bits zero or dropped (the 64-bit form of jaegertracing/jaeger #3084, which
 * {@link SpanCollector} joins). Every other reference, {@code FOLLOWS_FROM} or into another trace, becomes one of
 * {@link Span#links()}, as an OTLP span's {@code links} do: Jaeger's OTLP translator writes the OTLP parent as a
 * CHILD_OF and each link as a FOLLOWS_FROM, so a trace reads the same from either form. Self-references are ignored and
 * counted as repairs (see https://github.com/jaegertracing/jaeger-ui/issues/821).
 *
 * <p>Times: {@code startTime} and {@code duration} in µs become nanoseconds; a start or end outside what a {@code long}
 * of epoch nanoseconds holds skips the span as {@value EpochNanos#OUT_OF_RANGE} (see {@link EpochNanos}).
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
            span(s, services, traceIdDefault, out, at.field("spans").index(j++))
                    .ifPresentOrElse(out::add, () -> out.skip(EpochNanos.OUT_OF_RANGE));
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

    /** The span, or empty when a time is out of range (nothing counted yet: the caller counts the skip). */
    private static Optional<Span> span(JsonNode s, Map<String, String> services, String traceIdDefault,
                                       SpanCollector out, JsonPath at) {
        String traceId = s.has("traceID") ? id(s.get("traceID"), false, at, "traceID") : traceIdDefault;
        String spanId = id(s.path("spanID"), true, at, "spanID");
        JsonNode refs = s.path("references");
        String[] refSpan = new String[refs.size()];
        String[] refTrace = new String[refs.size()];
        for (int r = 0; r < refs.size(); r++) {
            JsonNode ref = refs.get(r);
            JsonPath rp = at.field("references").index(r);
            refSpan[r] = id(ref.path("spanID"), true, rp, "spanID");
            String refTraceId = id(ref.path("traceID"), false, rp, "traceID");
            refTrace[r] = refTraceId.isEmpty() ? traceId : refTraceId;
        }
        String legacyParent = "";
        if (refs.size() == 0 && s.has("parentSpanID")) {
            try {
                legacyParent = TraceIds.jaegerParentSpanId(OtlpParser.idText(s.path("parentSpanID")));
            } catch (IllegalArgumentException e) {
                throw new InvalidIdException(at.field("parentSpanID"), e);
            }
        }
        Optional<EpochNanos.SpanTimes> times = EpochNanos.ofMicros(s.path("startTime"), s.path("duration"));
        if (times.isEmpty()) {
            return Optional.empty();
        }
        String parent = "";
        List<SpanRef> links = List.of();
        if (refs.size() > 0) {
            int chosen = -1;
            for (int r = 0; r < refs.size() && chosen < 0; r++) {
                if ("CHILD_OF".equals(refs.get(r).path("refType").asText("CHILD_OF"))
                        && !refSpan[r].equals(spanId) && !refSpan[r].isEmpty() && sameTrace(refTrace[r], traceId)) {
                    chosen = r;
                }
            }
            links = new ArrayList<>();
            for (int r = 0; r < refs.size(); r++) {
                String rs = refSpan[r];
                if (rs.equals(spanId)) {
                    out.repair(SpanCollector.SELF_PARENT);
                } else if (r != chosen && !rs.isEmpty()) {
                    links.add(new SpanRef(refTrace[r], rs));
                }
            }
            if (chosen >= 0) {
                parent = refSpan[chosen];
            }
        } else {
            parent = out.parentOrRoot(spanId, legacyParent);
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
        return Optional.of(new Span(traceId, spanId, parent, links, service, s.path("operationName").asText(""), kind,
                peer, tags, times.get().startNanos(), times.get().durationNanos(), InstrumentationScope.ofTags(tags)));
    }

    /**
     * True when a reference's trace id is the span's: equal, or one of the two is the other's low 64 bits under a zero
     * high half (both as {@link TraceIds#jaegerTraceId} pads them).
     */
    private static boolean sameTrace(String refTraceId, String traceId) {
        if (refTraceId.equals(traceId)) {
            return true;
        }
        if (refTraceId.length() != 32 || traceId.length() != 32 || !refTraceId.regionMatches(16, traceId, 16, 16)) {
            return false;
        }
        return refTraceId.startsWith(SpanCollector.ZERO_HIGH_HALF) || traceId.startsWith(SpanCollector.ZERO_HIGH_HALF);
    }
}
