package dev.richter.links.trace;

import java.util.List;
import java.util.Map;

/**
 * What {@link TraceDocuments#parse} made of one document.
 *
 * @param fileName the caller's name for the document
 * @param format the detected format (of the first JSON value when a file holds several)
 * @param spans normalized spans, de-duplicated by (trace id, span id), in document order
 * @param skippedByReason spans (or CSV rows) dropped, by reason, e.g. {@code "missing trace id" → 1}; among them
 *     {@code "time out of range"} (a time outside what a {@code long} of epoch nanoseconds holds, {@link EpochNanos}),
 *     {@code "xray segment without a numeric start_time or end_time"} ({@link XRayParser}), and the parts of a Zipkin
 *     span merged into the span kept, as {@code "span part merged"} or, when they add nothing,
 *     {@code "duplicate span id"} ({@link ZipkinParser})
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
