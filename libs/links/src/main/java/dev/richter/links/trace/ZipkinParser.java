package dev.richter.links.trace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 *
 * <p>Parts of one span (Zipkin's {@code zipkin2.internal.Trace.merge}: "spans can be sent in multiple parts"): the
 * span objects of one (trace, id) are grouped into at most two halves, the CLIENT half under the id (any kind but the
 * SERVER of a shared id) and the SERVER half under {@code <id>:server}. Each half is founded by its first part with a
 * {@code kind}; a later part of the same side joins it when their local endpoints agree ({@code serviceName} case-blind,
 * {@code ipv4}, {@code ipv6}, {@code port}, each where both have one), filling what the half lacks. A part without
 * {@code kind} belongs to the half whose local endpoint agrees with its own, the half of its own {@code shared} flag
 * first (a SERVER half of a shared id counts as shared, as Zipkin backfills the flag), so a kind-less fragment of the
 * server never takes the id from the CLIENT half (zipkin-lens's smartthings-mobile-web-install.json); it founds a half
 * only when no half agrees and its side has none. A part that fills nothing in its half is
 * counted as {@value SpanCollector#DUPLICATE}, one that fills something as {@value #MERGED_PART}; a part whose
 * endpoint agrees with no half, its side being taken (a SERVER half repeated from another host), is a duplicate. A
 * half sits in the output where its first part sits in the document.
 *
 * <p>Times: {@code timestamp} and {@code duration} in µs become nanoseconds; a start or end outside what a {@code long}
 * of epoch nanoseconds holds skips the span as {@value EpochNanos#OUT_OF_RANGE} (see {@link EpochNanos}).
 */
final class ZipkinParser {
    static final String SERVER_SUFFIX = ":server";
    static final String MERGED_PART = "span part merged";
    /** The fields a part fills in its half, besides {@code parentId}, the two endpoints and the tags. */
    private static final List<String> SCALAR_FIELDS = List.of("name", "timestamp", "duration");
    private static final List<String> ENDPOINT_FIELDS = List.of("serviceName", "ipv4", "ipv6", "port");

    private ZipkinParser() {}

    /**
     * Parses an array of spans or an array of traces (arrays of spans).
     *
     * @param at the array's place in the document (for error paths)
     * @throws InvalidIdException when an id breaks the Zipkin rule ({@link TraceIds#zipkinTraceId})
     */
    static void parse(JsonNode root, SpanCollector out, JsonPath at) {
        List<SpanPart> parts = new ArrayList<>();
        int i = 0;
        for (JsonNode n : root) {
            if (n.isArray()) {
                int j = 0;
                for (JsonNode s : n) {
                    parts.add(part(s, at.index(i).index(j++), parts.size()));
                }
            } else {
                parts.add(part(n, at.index(i), parts.size()));
            }
            i++;
        }
        // the parts of each (trace, id), in document order; a part missing an id is alone (the collector skips it)
        Map<String, List<SpanPart>> byId = new LinkedHashMap<>();
        for (SpanPart p : parts) {
            String key = p.traceId.isEmpty() || p.id.isEmpty() ? "#" + p.index : p.traceId + '/' + p.id;
            byId.computeIfAbsent(key, k -> new ArrayList<>(1)).add(p);
        }
        Set<String> sharedKeys = new HashSet<>();
        List<SpanHalf> halves = new ArrayList<>(byId.size());
        for (Map.Entry<String, List<SpanPart>> e : byId.entrySet()) {
            List<SpanPart> group = e.getValue();
            boolean shared = group.stream().anyMatch(p -> p.kind == SpanKind.CLIENT)
                    && group.stream().anyMatch(p -> p.kind == SpanKind.SERVER);
            if (shared) {
                sharedKeys.add(e.getKey());
            }
            halves.addAll(halves(group, shared, out));
        }
        halves.sort(Comparator.comparingInt(h -> h.index));
        for (SpanHalf h : halves) {
            span(h, sharedKeys, out).ifPresentOrElse(out::add, () -> out.skip(EpochNanos.OUT_OF_RANGE));
        }
    }

    /** One span object as read: its normalized ids, its kind ({@code null} when it has none) and its place. */
    private record SpanPart(JsonNode span, String traceId, String id, String parentId, SpanKind kind, int index) {
        boolean shared() {
            return span.path("shared").asBoolean(false);
        }
    }

    /** One side of an id: the span it becomes, built from its parts. */
    private static final class SpanHalf {
        final boolean server;
        final String traceId;
        final String id;
        /** Zipkin's {@code shared} flag, set on the SERVER half of a shared id even when its part lacks it. */
        final boolean shared;
        /** The founding part's span object, copied before the first merge writes into it. */
        JsonNode node;
        boolean copied;
        String parentId;
        int index;

        SpanHalf(SpanPart founder, boolean server) {
            this.server = server;
            this.traceId = founder.traceId;
            this.id = founder.id;
            this.shared = server || founder.shared();
            this.node = founder.span;
            this.parentId = founder.parentId;
            this.index = founder.index;
        }

        /** True when the part's local endpoint agrees with this half's (Zipkin's {@code EndpointTracker}). */
        boolean agrees(SpanPart part) {
            JsonNode mine = node.path("localEndpoint");
            JsonNode theirs = part.span.path("localEndpoint");
            for (String f : ENDPOINT_FIELDS) {
                String a = text(mine.path(f));
                String b = text(theirs.path(f));
                if (!a.isEmpty() && !b.isEmpty() && !a.equalsIgnoreCase(b)) {
                    return false;
                }
            }
            return true;
        }

        /** Fills what this half lacks from {@code part}; true when it filled anything. */
        boolean merge(SpanPart part) {
            if (!copied) {
                node = node.isObject() ? node.deepCopy() : JsonNodeFactory.instance.objectNode();
                copied = true;
            }
            ObjectNode into = (ObjectNode) node;
            boolean filled = false;
            if (parentId.isEmpty() && !part.parentId.isEmpty()) {
                parentId = part.parentId;
                filled = true;
            }
            for (String f : SCALAR_FIELDS) {
                filled |= fill(into, f, part.span.path(f));
            }
            for (String endpoint : List.of("localEndpoint", "remoteEndpoint")) {
                JsonNode theirs = part.span.path(endpoint);
                if (!theirs.isObject()) {
                    continue;
                }
                JsonNode mine = into.path(endpoint);
                ObjectNode target = mine.isObject() ? (ObjectNode) mine : into.putObject(endpoint);
                for (String f : ENDPOINT_FIELDS) {
                    filled |= fill(target, f, theirs.path(f));
                }
            }
            JsonNode tags = part.span.path("tags");
            if (tags.isObject() && !tags.isEmpty()) {
                JsonNode mine = into.path("tags");
                ObjectNode target = mine.isObject() ? (ObjectNode) mine : into.putObject("tags");
                var it = tags.fields();
                while (it.hasNext()) {
                    var e = it.next();
                    filled |= fill(target, e.getKey(), e.getValue());
                }
            }
            index = Math.min(index, part.index);
            return filled;
        }

        /** Sets {@code field} of {@code target} to {@code value} when the target has none and the value is one. */
        private static boolean fill(ObjectNode target, String field, JsonNode value) {
            if (absent(target.path(field)) && !absent(value)) {
                target.set(field, value);
                return true;
            }
            return false;
        }

        /** Missing, null, "", or 0: what Zipkin's model holds as "not set". */
        private static boolean absent(JsonNode v) {
            return v.isMissingNode() || v.isNull() || (v.isTextual() && v.textValue().isEmpty())
                    || (v.isNumber() && v.asDouble() == 0);
        }

        private static String text(JsonNode v) {
            return absent(v) ? "" : v.asText();
        }
    }

    /** The halves the parts of one (trace, id) make, by the rules of the class comment; skips counted. */
    private static List<SpanHalf> halves(List<SpanPart> group, boolean shared, SpanCollector out) {
        List<SpanHalf> halves = new ArrayList<>(2);
        for (SpanPart p : group) {
            if (p.kind == null) {
                continue;
            }
            boolean server = shared && p.kind == SpanKind.SERVER;
            SpanHalf side = halves.stream().filter(h -> h.server == server).findFirst().orElse(null);
            if (side == null) {
                halves.add(new SpanHalf(p, server));
            } else {
                join(side, p, out);
            }
        }
        for (SpanPart p : group) {
            if (p.kind != null) {
                continue;
            }
            SpanHalf match = halves.stream().filter(h -> h.agrees(p))
                    .min(Comparator.comparing((SpanHalf h) -> h.shared != p.shared())).orElse(null);
            if (match != null) {
                join(match, p, out);
            } else if (halves.stream().noneMatch(h -> !h.server)) {
                halves.add(new SpanHalf(p, false));
            } else {
                out.skip(SpanCollector.DUPLICATE);
            }
        }
        return halves;
    }

    /** {@code part} joins {@code half} when their endpoints agree (merged or a duplicate); else it is a duplicate. */
    private static void join(SpanHalf half, SpanPart part, SpanCollector out) {
        if (half.agrees(part) && half.merge(part)) {
            out.skip(MERGED_PART);
        } else {
            out.skip(SpanCollector.DUPLICATE);
        }
    }

    private static SpanPart part(JsonNode s, JsonPath at, int index) {
        String traceId = id(s, "traceId", at);
        String id = id(s, "id", at);
        String parentId = id(s, "parentId", at);
        String kindText = s.path("kind").asText("");
        return new SpanPart(s, traceId, id, parentId, kindText.isEmpty() ? null : SpanKind.ofText(kindText), index);
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

    /** The span of a half, or empty when a time is out of range (nothing counted yet: the caller counts the skip). */
    private static Optional<Span> span(SpanHalf h, Set<String> sharedKeys, SpanCollector out) {
        JsonNode s = h.node;
        Optional<EpochNanos.SpanTimes> times = EpochNanos.ofMicros(s.path("timestamp"), s.path("duration"));
        if (times.isEmpty()) {
            return Optional.empty();
        }
        // Zipkin v2: "When absent, the span is local or incomplete" — a local (INTERNAL) span
        String kindText = s.path("kind").asText("");
        SpanKind kind = kindText.isEmpty() ? SpanKind.INTERNAL : SpanKind.ofText(kindText);
        String spanId = h.id;
        String parent;
        if (h.server) {
            spanId = h.id + SERVER_SUFFIX;
            parent = h.id;
        } else {
            parent = out.parentOrRoot(h.id, h.parentId);
            if (!parent.isEmpty() && sharedKeys.contains(h.traceId + '/' + parent)) {
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
        String service = s.path("localEndpoint").path("serviceName").asText("");
        return Optional.of(new Span(h.traceId, spanId, parent, List.of(), service, s.path("name").asText(""), kind, peer,
                tags, times.get().startNanos(), times.get().durationNanos(), InstrumentationScope.ofTags(tags)));
    }
}
