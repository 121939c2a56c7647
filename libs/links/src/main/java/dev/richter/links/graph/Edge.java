package dev.richter.links.graph;

/**
 * A directed call-graph edge between two nodes of one {@link Dimension}.
 *
 * @param from calling node id
 * @param to called node id
 */
public record Edge(String from, String to) implements Comparable<Edge> {
    @Override
    public int compareTo(Edge o) {
        int c = from.compareTo(o.from);
        return c != 0 ? c : to.compareTo(o.to);
    }
}
