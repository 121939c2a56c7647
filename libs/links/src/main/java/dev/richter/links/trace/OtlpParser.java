package dev.richter.links.trace;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * OTLP/JSON traces ({@code ExportTraceServiceRequest}, opentelemetry-proto
 * {@code trace/v1/trace.proto} with the OTLP/HTTP JSON mapping): {@code resourceSpans[].resource.attributes}
 * gives {@code service.name}; {@code scopeSpans[]} (or the pre-1.0 {@code instrumentationLibrarySpans[]})
 * holds spans with hex ids (each group's {@code scope}, or pre-1.0 {@code instrumentationLibrary}, {@code name} and
 * {@code version} kept as the span's {@link InstrumentationScope}), {@code kind} as a number or {@code SPAN_KIND_*} string, times as
 * (string or number) {@code *TimeUnixNano}, attributes as {@code AnyValue}s, and {@code links}.
 * A bare {@code ResourceSpans} object (one log line of the OTel agent's {@code logging-otlp}
 * exporter) is accepted too.
 *
 * <p>Ids follow the OTLP/JSON rule (exactly 32 / 16 hex digits, never base64; see
 * {@link TraceIds#otlpTraceId}); they are checked in document order, as {@link OtlpStreamParser}
 * meets them, so both readers report the same first bad id.
 *
 * <p>Times: {@code startTimeUnixNano} and {@code endTimeUnixNano} are {@code fixed64} (unsigned) nanoseconds, a string or
 * a number; a missing one (or one that is no number) reads as 0, an end before the start gives duration 0. A time past
 * {@code Long.MAX_VALUE} (2262-04-11) or negative, which no {@code long} of epoch nanoseconds or no {@code fixed64} holds,
 * skips the span as {@value EpochNanos#OUT_OF_RANGE} ({@link #unixNanos}).
 */
final class OtlpParser {
    private OtlpParser() {}

    /**
     * Reads one {@code ExportTraceServiceRequest}.
     *
     * @param at the request's place in the document (for error paths)
     * @throws InvalidIdException when an id breaks the OTLP/JSON rule ({@link TraceIds#otlpTraceId})
     */
    static void parseRequest(JsonNode root, SpanCollector out, JsonPath at) {
        int i = 0;
        for (JsonNode rs : root.path("resourceSpans")) {
            parseResourceSpans(rs, out, at.field("resourceSpans").index(i++));
        }
    }

    /** Reads one {@code ResourceSpans} at {@code at}; see {@link #parseRequest}. */
    static void parseResourceSpans(JsonNode rs, SpanCollector out, JsonPath at) {
        String service = "";
        for (JsonNode attr : rs.path("resource").path("attributes")) {
            if ("service.name".equals(attr.path("key").asText())) {
                service = anyValue(attr.path("value"));
                break;
            }
        }
        String scopesField = rs.has("scopeSpans") ? "scopeSpans" : "instrumentationLibrarySpans";
        int j = 0;
        for (JsonNode ss : rs.path(scopesField)) {
            JsonNode sc = ss.has("scope") ? ss.path("scope") : ss.path("instrumentationLibrary");
            InstrumentationScope scope = new InstrumentationScope(sc.path("name").asText(""), sc.path("version").asText(""));
            int k = 0;
            for (JsonNode s : ss.path("spans")) {
                span(s, service, scope, out, at.field(scopesField).index(j).field("spans").index(k++))
                        .ifPresentOrElse(out::add, () -> out.skip(EpochNanos.OUT_OF_RANGE));
            }
            j++;
        }
    }

    /** The span, or empty when a time is out of range (nothing counted yet: the caller counts the skip). */
    private static Optional<Span> span(JsonNode s, String service, InstrumentationScope scope, SpanCollector out,
                                       JsonPath at) {
        // ids in document order, so the first bad id reported is the one the streaming reader meets first
        String traceId = "";
        String spanId = "";
        String parentRaw = "";
        List<String> linkIds = List.of(); // pairs (trace id, span id)
        var fields = s.fields();
        while (fields.hasNext()) {
            var e = fields.next();
            switch (e.getKey()) {
                case "traceId" -> traceId = id(e.getValue(), IdField.TRACE, at.field("traceId"));
                case "spanId" -> spanId = id(e.getValue(), IdField.SPAN, at.field("spanId"));
                case "parentSpanId" -> parentRaw = id(e.getValue(), IdField.PARENT, at.field("parentSpanId"));
                case "links" -> linkIds = links(e.getValue(), at.field("links"));
                default -> { }
            }
        }
        long start;
        long end;
        try {
            start = unixNanos(s.path("startTimeUnixNano"));
            end = unixNanos(s.path("endTimeUnixNano"));
        } catch (ArithmeticException e) {
            return Optional.empty();
        }
        String parent = out.parentOrRoot(spanId, parentRaw);
        JsonNode k = s.path("kind");
        SpanKind kind = k.isNumber() ? SpanKind.ofOtlp(k.intValue()) : SpanKind.ofText(k.asText(""));
        Map<String, String> attributes = attributes(s.path("attributes"));
        List<SpanRef> links = List.of();
        if (!linkIds.isEmpty()) {
            links = new ArrayList<>(linkIds.size() / 2);
            for (int i = 0; i < linkIds.size(); i += 2) {
                String lt = linkIds.get(i);
                String li = linkIds.get(i + 1);
                if (!li.isEmpty()) {
                    links.add(new SpanRef(lt.isEmpty() ? traceId : lt, li));
                }
            }
        }
        String peer = kind.makesCall() ? PeerService.of(attributes) : "";
        return Optional.of(new Span(traceId, spanId, parent, links, service,
                ServerOperation.of(kind, s.path("name").asText(""), attributes), kind, peer, attributes, start,
                end > start ? end - start : 0, scope));
    }

    private static List<String> links(JsonNode ls, JsonPath at) {
        if (ls.size() == 0) {
            return List.of();
        }
        List<String> ids = new ArrayList<>(ls.size() * 2);
        int i = 0;
        for (JsonNode l : ls) {
            String lt = "";
            String li = "";
            var fields = l.fields();
            while (fields.hasNext()) {
                var e = fields.next();
                if ("traceId".equals(e.getKey())) {
                    lt = id(e.getValue(), IdField.TRACE, at.index(i).field("traceId"));
                } else if ("spanId".equals(e.getKey())) {
                    li = id(e.getValue(), IdField.SPAN, at.index(i).field("spanId"));
                }
            }
            ids.add(lt);
            ids.add(li);
            i++;
        }
        return ids;
    }

    /** The three OTLP id fields and their rules. */
    enum IdField {
        TRACE, SPAN, PARENT;

        /** Normalizes {@code raw}; throws {@link IllegalArgumentException} (see {@link TraceIds}). */
        String normalize(String raw) {
            return switch (this) {
                case TRACE -> TraceIds.otlpTraceId(raw);
                case SPAN -> TraceIds.otlpSpanId(raw);
                case PARENT -> TraceIds.otlpParentSpanId(raw);
            };
        }
    }

    private static String id(JsonNode v, IdField field, JsonPath at) {
        try {
            return field.normalize(idText(v));
        } catch (IllegalArgumentException e) {
            throw new InvalidIdException(at, e);
        }
    }

    /** The id text of a JSON value: a string as is, null as "", any other value as its JSON text. */
    static String idText(JsonNode v) {
        if (v.isTextual()) {
            return v.textValue();
        }
        return v.isNull() || v.isMissingNode() ? "" : v.toString();
    }

    /**
     * An OTLP {@code *TimeUnixNano} value (a number or a string of digits) as epoch nanoseconds, 0 when missing or no
     * number; throws {@link ArithmeticException} past {@code Long.MAX_VALUE} or when negative ({@link EpochNanos}).
     */
    static long unixNanos(JsonNode v) {
        return EpochNanos.unsigned(EpochNanos.integral(v));
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
