package dev.richter.links.trace;

import java.util.ArrayList;
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
 */
final class SpanCollector {
    static final String DUPLICATE = "duplicate span id";
    static final String NO_TRACE_ID = "missing trace id";
    static final String NO_SPAN_ID = "missing span id";
    static final String NO_SERVICE = "missing service name";
    static final String SELF_PARENT = "self-referencing parent ignored";

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
                    span.durationNanos());
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
        return new ParsedTraces(fileName, format, List.copyOf(spans), Map.copyOf(skipped), Map.copyOf(repaired),
                List.copyOf(dependencies));
    }
}
