package dev.richter.links.graph;

/**
 * One closure-table row: {@code descendant} is reachable from {@code ancestor} in one dimension of
 * one team scope. A row with {@code ancestor == descendant} means the node lies on a cycle of
 * length {@code depth}; there are no depth-0 self rows.
 *
 * @param ancestor upstream node
 * @param descendant downstream node
 * @param depth shortest path length in edges (≥ 1)
 * @param pathCount number of distinct shortest paths (saturates at {@link Long#MAX_VALUE})
 * @param callCount calls observed on the direct edge; 0 unless {@code depth == 1}
 * @param lastSeenEpochMs when the row was last derived or (for direct edges) observed
 * @param via the node just before {@code descendant} on a shortest path (the lexicographically
 *     smallest if several): following {@code via} from any descendant back to the ancestor gives
 *     a shortest-path tree, so one query renders the tree below a node
 */
public record ClosurePair(String ancestor, String descendant, int depth, long pathCount, long callCount,
                          long lastSeenEpochMs, String via) {

    /** True for a direct edge. */
    public boolean isEdge() {
        return depth == 1;
    }
}
