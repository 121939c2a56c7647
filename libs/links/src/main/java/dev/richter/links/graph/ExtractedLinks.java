package dev.richter.links.graph;

import java.util.List;
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
 * @param entrySamples     interface entry → the raw request paths its root spans carried ({@code url.path}, else
 *                         {@code http.target} without its query), distinct, in first-seen order, at most
 *                         {@link #MAX_ENTRY_SAMPLES} each; an entry whose spans carried no path has none. A gateway's
 *                         entry grouped by route ({@link dev.richter.links.trace.GatewayRoutes}) keeps its raw paths
 *                         here, e.g. {@code /api/customer/owners/1}
 */
public record ExtractedLinks(
        SortedMap<Edge, EdgeStats> serviceEdges,
        SortedMap<Edge, EdgeStats> interfaceEdges,
        Set<String> serviceEntries,
        Set<String> interfaceEntries,
        Map<String, Integer> repairedByReason,
        Map<String, List<String>> entrySamples) {
    /** The most raw paths kept per entry, per batch and in the store. */
    public static final int MAX_ENTRY_SAMPLES = 5;

    /** Edges of {@code dimension}. */
    public SortedMap<Edge, EdgeStats> edges(Dimension dimension) {
        return dimension == Dimension.SERVICE ? serviceEdges : interfaceEdges;
    }

    /** Entries of {@code dimension}. */
    public Set<String> entries(Dimension dimension) {
        return dimension == Dimension.SERVICE ? serviceEntries : interfaceEntries;
    }
}
