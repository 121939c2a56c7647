package dev.richter.links.trace;

import java.util.List;
import java.util.Map;

/**
 * What {@link TraceDocuments#parse} made of one document.
 *
 * @param fileName the caller's name for the document
 * @param format the detected format (of the first JSON value when a file holds several)
 * @param spans normalized spans, de-duplicated by (trace id, span id), in document order
 * @param skippedByReason spans (or CSV rows) dropped, by reason, e.g. {@code "missing trace id" → 1}
 * @param repairedByReason spans kept after a repair, by reason: {@code "missing service name"} (kept
 *     under {@link Span#UNKNOWN_SERVICE}), {@code "self-referencing parent ignored"}
 * @param dependencies pre-aggregated service edges (dependency-list documents only)
 */
public record ParsedTraces(
        String fileName,
        TraceFormat format,
        List<Span> spans,
        Map<String, Integer> skippedByReason,
        Map<String, Integer> repairedByReason,
        List<DependencyLink> dependencies) {

    /** Total spans skipped, over all reasons. */
    public int spansSkipped() {
        return skippedByReason.values().stream().mapToInt(Integer::intValue).sum();
    }
}
