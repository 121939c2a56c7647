package dev.richter.links;

import dev.richter.links.trace.TraceFormat;
import java.util.List;
import java.util.Map;

/**
 * What one {@link LinkService#ingest} did.
 *
 * @param fileName the caller's name for the document
 * @param format the detected format
 * @param spansParsed spans kept after normalization
 * @param spansSkipped spans dropped, total
 * @param spansSkippedByReason spans dropped, by reason (e.g. {@code "duplicate span id" → 1})
 * @param spansRepairedByReason spans kept after a repair, by reason (self-referencing parent, parent cycle,
 *     {@code "missing service name"}: kept as {@link dev.richter.links.trace.Span#UNKNOWN_SERVICE})
 * @param serviceEdgesObserved distinct service edges in the document
 * @param interfaceEdgesObserved distinct interface edges in the document
 * @param edgesAdded edges (both dimensions) that were not in the team's link set before
 * @param closureItemsWritten closure rows inserted or updated (both dimensions)
 * @param itemsWritten all DynamoDB items written (closure rows, edge list, entries, discovered datastores)
 * @param serviceEntries entry services seen in the document
 * @param interfaceEntries entry interfaces seen in the document
 * @param datastoresSeen distinct datastores the document's spans touch (per service: tables, key spaces, topics)
 * @param datastoresDropped of those, new ones not stored: their service already has {@link
 *     LinkService#MAX_DATASTORES_PER_SERVICE}
 */
public record IngestResult(
        String fileName,
        TraceFormat format,
        int spansParsed,
        int spansSkipped,
        Map<String, Integer> spansSkippedByReason,
        Map<String, Integer> spansRepairedByReason,
        int serviceEdgesObserved,
        int interfaceEdgesObserved,
        int edgesAdded,
        int closureItemsWritten,
        int itemsWritten,
        List<String> serviceEntries,
        List<String> interfaceEntries,
        int datastoresSeen,
        int datastoresDropped) {}
