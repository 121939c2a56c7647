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
 * {@code remoteEndpoint.serviceName} (the peer), {@code tags}, {@code timestamp}/{@code duration} in µs.
 *
 * <p>Shared spans (B3 "join"): a CLIENT and a SERVER span with the same id in a trace are the two
 * halves of one RPC. Richter keeps both: the server half gets span id {@code <id>:server} and the
 * client half as its parent, and every span whose {@code parentId} is that id is re-parented to the
 * server half (the server's work happens below it). Edges therefore run client service → server
 * service, as in Zipkin's own {@code DependencyLinker}. A span without a local service name is
 * skipped ("missing service name"); a span without {@code kind} is INTERNAL (the spec: "local or
 * incomplete").
 */
final class ZipkinParser {
    static final String SERVER_SUFFIX = ":server";

    private ZipkinParser() {}

    /** Parses an array of spans or an array of traces (arrays of spans). */
    static void parse(JsonNode root, SpanCollector out) {
        List<JsonNode> spans = new ArrayList<>();
        for (JsonNode n : root) {
            if (n.isArray()) {
                n.forEach(spans::add);
            } else {
                spans.add(n);
            }
        }
        // trace/id of every CLIENT half, and which of those also have a SERVER half
        Set<String> clientKeys = new HashSet<>();
        for (JsonNode s : spans) {
            if (SpanKind.ofText(s.path("kind").asText("")) == SpanKind.CLIENT) {
                clientKeys.add(key(s, "id"));
            }
        }
        Set<String> sharedKeys = new HashSet<>();
        for (JsonNode s : spans) {
            if (SpanKind.ofText(s.path("kind").asText("")) == SpanKind.SERVER && clientKeys.contains(key(s, "id"))) {
                sharedKeys.add(key(s, "id"));
            }
        }
        for (JsonNode s : spans) {
            out.add(span(s, sharedKeys, out));
        }
    }

    private static String key(JsonNode s, String field) {
        return TraceIds.traceId(s.path("traceId").asText("")) + '/' + TraceIds.spanId(s.path(field).asText(""));
    }

    private static Span span(JsonNode s, Set<String> sharedKeys, SpanCollector out) {
        String traceId = TraceIds.traceId(s.path("traceId").asText(""));
        String id = TraceIds.spanId(s.path("id").asText(""));
        String parentId = TraceIds.spanId(s.path("parentId").asText(""));
        // Zipkin v2: "When absent, the span is local or incomplete" — a local (INTERNAL) span
        String kindText = s.path("kind").asText("");
        SpanKind kind = kindText.isEmpty() ? SpanKind.INTERNAL : SpanKind.ofText(kindText);
        String spanId = id;
        String parent;
        if (kind == SpanKind.SERVER && sharedKeys.contains(traceId + '/' + id)) {
            spanId = id + SERVER_SUFFIX;
            parent = id;
        } else {
            parent = out.parentOrRoot(id, parentId);
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
                s.path("name").asText(""), kind, peer, tags, startMicros * 1000, durationMicros * 1000);
    }
}
