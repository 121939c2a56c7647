package dev.richter.links.trace;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Accumulates one document's spans: de-duplicates by (trace, span) id and counts skips and repairs.
 * A span without trace or span id is skipped (nothing could join it); a span without a service name
 * is kept under {@link Span#UNKNOWN_SERVICE} and counted as the repair {@value #NO_SERVICE}, so the
 * edges through it survive.
 *
 * <p>A client that propagates only the low 64 bits of a 128-bit trace id (jaegertracing/jaeger
 * #3084; corpus bug 05) records its spans under the id whose high half is zero. When exactly one
 * trace of the document has a non-zero high half and the same low half, those spans (and their
 * links) are moved onto it and counted as the repair {@value #JOINED_LOW_HALF}. A low half that
 * matches two or more such traces is ambiguous and is left alone.
 */
final class SpanCollector {
    static final String DUPLICATE = "duplicate span id";
    static final String NO_TRACE_ID = "missing trace id";
    static final String NO_SPAN_ID = "missing span id";
    static final String NO_SERVICE = "missing service name";
    static final String SELF_PARENT = "self-referencing parent ignored";
    static final String JOINED_LOW_HALF = "64-bit trace id joined to its 128-bit trace";
    static final String ZERO_HIGH_HALF = "0".repeat(16);

    private final List<Span> spans = new ArrayList<>();
    private final Set<SpanRef> keys = new HashSet<>();
    private final Map<String, Integer> skipped = new TreeMap<>();
    private final Map<String, Integer> repaired = new TreeMap<>();
    private final List<DependencyLink> dependencies = new ArrayList<>();

    /**
     * Adds a span unless an id is missing or it repeats an earlier (trace, span) id; a missing
     * service becomes {@link Span#UNKNOWN_SERVICE}.
     */
    void add(Span span) {
        if (span.traceId().isEmpty()) {
            skip(NO_TRACE_ID);
            return;
        }
        if (span.spanId().isEmpty()) {
            skip(NO_SPAN_ID);
            return;
        }
        if (!keys.add(new SpanRef(span.traceId(), span.spanId()))) {
            skip(DUPLICATE);
            return;
        }
        if (span.service().isBlank()) {
            repair(NO_SERVICE);
            span = new Span(span.traceId(), span.spanId(), span.parentSpanId(), span.links(), Span.UNKNOWN_SERVICE,
                    span.operation(), span.kind(), span.peerService(), span.attributes(), span.startEpochNanos(),
                    span.durationNanos(), span.scope());
        }
        spans.add(span);
    }

    /** Returns {@code parent}, or "" (counted as a repair) when it equals {@code spanId}. */
    String parentOrRoot(String spanId, String parent) {
        if (!parent.isEmpty() && parent.equals(spanId)) {
            repair(SELF_PARENT);
            return "";
        }
        return parent;
    }

    void skip(String reason) {
        skipped.merge(reason, 1, Integer::sum);
    }

    void repair(String reason) {
        repaired.merge(reason, 1, Integer::sum);
    }

    void dependency(DependencyLink link) {
        dependencies.add(link);
    }

    ParsedTraces result(String fileName, TraceFormat format) {
        List<Span> joined = joinLowHalves();
        return new ParsedTraces(fileName, format, joined, Map.copyOf(skipped), Map.copyOf(repaired),
                List.copyOf(dependencies));
    }

    /** The spans, with 64-bit trace ids moved onto the one 128-bit trace of the same low half. */
    private List<Span> joinLowHalves() {
        Map<String, String> fullByLowHalf = new HashMap<>();
        for (Span span : spans) {
            String id = span.traceId();
            if (id.length() == 32 && !id.startsWith(ZERO_HIGH_HALF)) {
                String before = fullByLowHalf.putIfAbsent(id.substring(16), id);
                if (before != null && !before.equals(id)) {
                    fullByLowHalf.put(id.substring(16), "");
                }
            }
        }
        if (fullByLowHalf.isEmpty()) {
            return List.copyOf(spans);
        }
        List<Span> out = new ArrayList<>(spans.size());
        Set<SpanRef> seen = new HashSet<>();
        for (Span span : spans) {
            String traceId = fullTraceId(span.traceId(), fullByLowHalf);
            if (!traceId.equals(span.traceId())) {
                repair(JOINED_LOW_HALF);
                List<SpanRef> links = span.links().stream()
                        .map(l -> new SpanRef(fullTraceId(l.traceId(), fullByLowHalf), l.spanId()))
                        .toList();
                span = new Span(traceId, span.spanId(), span.parentSpanId(), links, span.service(),
                        span.operation(), span.kind(), span.peerService(), span.attributes(), span.startEpochNanos(),
                        span.durationNanos(), span.scope());
            }
            if (seen.add(new SpanRef(span.traceId(), span.spanId()))) {
                out.add(span);
            } else {
                skip(DUPLICATE);
            }
        }
        return List.copyOf(out);
    }

    private static String fullTraceId(String id, Map<String, String> fullByLowHalf) {
        if (id.length() != 32 || !id.startsWith(ZERO_HIGH_HALF)) {
            return id;
        }
        String full = fullByLowHalf.get(id.substring(16));
        return full == null || full.isEmpty() ? id : full;
    }
}
