package dev.richter.links.graph;

import java.util.Map;

/**
 * The part of a closure table {@link ClosureTable} reads and writes. Implementations: the fully
 * in-memory {@link InMemoryClosureView}, and the working set {@code LinkRepository} loads from DynamoDB.
 */
public interface ClosureView {
    /** Rows {@code (ancestor, d)} keyed by {@code d}; empty map if none. Must reflect {@link #put}s. */
    Map<String, ClosurePair> descendantsOf(String ancestor);

    /** Rows {@code (a, descendant)} keyed by {@code a}; empty map if none. Must reflect {@link #put}s. */
    Map<String, ClosurePair> ancestorsOf(String descendant);

    /** Inserts or replaces the row for {@code (pair.ancestor(), pair.descendant())}. */
    void put(ClosurePair pair);
}
