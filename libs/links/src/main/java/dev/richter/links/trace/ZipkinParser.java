package dev.richter.links.trace;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Zipkin API v2 JSON ({@code zipkin2-api.yaml}, {@code ListOfSpans} / {@code ListOfTraces}):
 * hex {@code traceId}/{@code id}/{@code parentId}, {@code kind}, {@code localEndpoint.serviceName},
 * {@code remoteEndpoint.serviceName} (the peer), {@code tags}, {@code timestamp}/{@code duration} in µs. The
 * instrumentation scope is read from the tags OpenTelemetry's Zipkin exporter writes ({@link
 * InstrumentationScope#ofTags}: {@code otel.scope.name/version}, or the older {@code otel.library.name/version}).
 *
 * <p>Ids: {@code traceId} 16 or 32 hex digits (shorter ones left-padded, as Zipkin reads them),
 * {@code id}/{@code parentId} 16; a 64-bit trace id joins the 128-bit id with a zero high half
 * (see {@link TraceIds#zipkinTraceId}). Any other id rejects the document (an
 * {@link InvalidIdException}, naming e.g. {@code [3].traceId}).
 *
 * <p>Shared spans (B3 "join"): a CLIENT and a SERVER span with the same id in a trace are the two
 * halves of one RPC. Richter keeps both: the server half gets span id {@code <id>:server} and the
 * client half as its parent, and every span whose {@code parentId} is that id is re-parented to the
 * server half (the server's work happens below it). Edges therefore run client service → server
 * service, as in Zipkin's own {@code DependencyLinker}. A span without a local service name is
 * kept under {@link Span#UNKNOWN_SERVICE} (see {@link SpanCollector}); a span without {@code kind}
 * is INTERNAL (the spec: "local or incomplete").
 */
final class ZipkinParser {
    static final String SERVER_SUFFIX = ":server";

    private ZipkinParser() {}

    /**
     * Parses an array of spans or an array of traces (arrays of spans).
     *
     * @param at the array's place in the document (for error paths)
     * @throws InvalidIdException when an id breaks the Zipkin rule ({@link TraceIds#zipkinTraceId})
     */
    static void parse(JsonNode root, SpanCollector out, JsonPath at) {
        List<Ids> spans = new ArrayList<>();
        int i = 0;
        for (JsonNode n : root) {
            if (n.isArray()) {
                int j = 0;
                for (JsonNode s : n) {
                    spans.add(ids(s, at.index(i).index(j++)));
                }
            } else {
                spans.add(ids(n, at.index(i)));
            }
            i++;
        }
        // trace/id of every CLIENT half, and which of those also have a SERVER half
        Set<String> clientKeys = new HashSet<>();
        for (Ids s : spans) {
            if (s.kind == SpanKind.CLIENT) {
                clientKeys.add(s.traceId + '/' + s.id);
            }
        }
        Set<String> sharedKeys = new HashSet<>();
        for (Ids s : spans) {
            if (s.kind == SpanKind.SERVER && clientKeys.contains(s.traceId + '/' + s.id)) {
                sharedKeys.add(s.traceId + '/' + s.id);
            }
        }
        for (Ids s : spans) {
            out.add(span(s, sharedKeys, out));
        }
    }

    /** A span's normalized ids and kind, read once. */
    private record Ids(JsonNode span, String traceId, String id, String parentId, SpanKind kind) {}

    private static Ids ids(JsonNode s, JsonPath at) {
        String traceId = id(s, "traceId", at);
        String id = id(s, "id", at);
        String parentId = id(s, "parentId", at);
        // Zipkin v2: "When absent, the span is local or incomplete" — a local (INTERNAL) span
        String kindText = s.path("kind").asText("");
        SpanKind kind = kindText.isEmpty() ? SpanKind.INTERNAL : SpanKind.ofText(kindText);
        return new Ids(s, traceId, id, parentId, kind);
    }

    private static String id(JsonNode s, String field, JsonPath at) {
        String raw = OtlpParser.idText(s.path(field));
        try {
            return switch (field) {
                case "traceId" -> TraceIds.zipkinTraceId(raw);
                case "id" -> TraceIds.zipkinSpanId(raw);
                default -> TraceIds.zipkinParentId(raw);
            };
        } catch (IllegalArgumentException e) {
            throw new InvalidIdException(at.field(field), e);
        }
    }

    private static Span span(Ids ids, Set<String> sharedKeys, SpanCollector out) {
        JsonNode s = ids.span;
        String traceId = ids.traceId;
        String id = ids.id;
        SpanKind kind = ids.kind;
        String spanId = id;
        String parent;
        if (kind == SpanKind.SERVER && sharedKeys.contains(traceId + '/' + id)) {
            spanId = id + SERVER_SUFFIX;
            parent = id;
        } else {
            parent = out.parentOrRoot(id, ids.parentId);
            if (!parent.isEmpty() && sharedKeys.contains(traceId + '/' + parent)) {
                parent = parent + SERVER_SUFFIX;
            }
        }
        Map<String, String> tags = Map.of();
        JsonNode t = s.path("tags");
        if (t.size() > 0) {
            tags = new HashMap<>(t.size() * 2);
            var it = t.fields();
            while (it.hasNext()) {
                var e = it.next();
                tags.put(e.getKey(), e.getValue().asText());
            }
        }
        String peer = kind.makesCall() ? s.path("remoteEndpoint").path("serviceName").asText("") : "";
        if (peer.isEmpty() && kind.makesCall()) {
            peer = PeerService.of(tags);
        }
        long startMicros = s.path("timestamp").asLong(0);
        long durationMicros = s.path("duration").asLong(0);
        return new Span(traceId, spanId, parent, List.of(), s.path("localEndpoint").path("serviceName").asText(""),
                s.path("name").asText(""), kind, peer, tags, startMicros * 1000, durationMicros * 1000,
                InstrumentationScope.ofTags(tags));
    }
}
