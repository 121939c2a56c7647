package dev.richter.links.trace;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Accumulates one document's spans: de-duplicates by (trace, span) id and counts skips and repairs. */
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

    /** Adds a span unless its ids or service are missing or it repeats an earlier (trace, span) id. */
    void add(Span span) {
        if (span.traceId().isEmpty()) {
            skip(NO_TRACE_ID);
            return;
        }
        if (span.spanId().isEmpty()) {
            skip(NO_SPAN_ID);
            return;
        }
        if (span.service().isEmpty()) {
            skip(NO_SERVICE);
            return;
        }
        if (!keys.add(new SpanRef(span.traceId(), span.spanId()))) {
            skip(DUPLICATE);
            return;
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
