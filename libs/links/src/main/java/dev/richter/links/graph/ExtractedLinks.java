package dev.richter.links.graph;

import java.util.Map;
import java.util.Set;
import java.util.SortedMap;

/**
 * The call graph one batch of spans implies, in both dimensions.
 *
 * @param serviceEdges service → service edges with their call counts
 * @param interfaceEdges interface → interface edges with their call counts and services
 * @param serviceEntries services that received a root SERVER/CONSUMER/unspecified-kind span
 * @param interfaceEntries interface nodes of those root spans, e.g. {@code order-svc POST /orders}
 * @param repairedByReason spans whose parent reference was dropped, by reason (parent cycles)
 */
public record ExtractedLinks(
        SortedMap<Edge, EdgeStats> serviceEdges,
        SortedMap<Edge, EdgeStats> interfaceEdges,
        Set<String> serviceEntries,
        Set<String> interfaceEntries,
        Map<String, Integer> repairedByReason) {

    /** Edges of {@code dimension}. */
    public SortedMap<Edge, EdgeStats> edges(Dimension dimension) {
        return dimension == Dimension.SERVICE ? serviceEdges : interfaceEdges;
    }

    /** Entries of {@code dimension}. */
    public Set<String> entries(Dimension dimension) {
        return dimension == Dimension.SERVICE ? serviceEntries : interfaceEntries;
    }
}
