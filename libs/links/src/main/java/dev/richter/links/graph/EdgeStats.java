package dev.richter.links.graph;

/**
 * What one batch observed on an edge.
 *
 * @param calls spans (or dependency-list call counts) that produced the edge
 * @param fromService service of the calling node (equals the node in the service dimension)
 * @param toService service of the called node
 */
public record EdgeStats(long calls, String fromService, String toService) {}
