package dev.richter.links;

import dev.richter.links.graph.Dimension;
import java.util.List;

/**
 * The nodes below (downstream) or above (upstream) a node, from one closure query.
 *
 * @param teamId team scope queried
 * @param dimension dimension queried
 * @param root the node asked about
 * @param direction {@code downstream} (what root calls) or {@code upstream} (what calls root)
 * @param maxDepth depth bound of the query (edges)
 * @param rootCycleDepth length of the shortest cycle through root, 0 if root is on no cycle
 * @param nodes one row per reachable node, by depth then name
 */
public record LinkTree(String teamId, Dimension dimension, String root, String direction, int maxDepth,
                       int rootCycleDepth, List<TreeNode> nodes) {

    /**
     * @param node node id
     * @param depth shortest distance from (downstream) or to (upstream) root, in edges
     * @param parent downstream: the node before this one on a shortest path from root (a
     *     shortest-path tree: follow {@code parent} back to root); upstream: {@code ""}
     * @param pathCount number of shortest paths
     * @param callCount calls on the direct edge with root (depth 1), else 0
     * @param lastSeenEpochMs when the row was last derived or observed
     */
    public record TreeNode(String node, int depth, String parent, long pathCount, long callCount,
                           long lastSeenEpochMs) {}
}
