package dev.richter.links.graph;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/** A {@link ClosureView} held in two hash maps (forward and reverse); not thread-safe. */
public final class InMemoryClosureView implements ClosureView {
    private final Map<String, Map<String, ClosurePair>> forward = new HashMap<>();
    private final Map<String, Map<String, ClosurePair>> reverse = new HashMap<>();
    private long size;

    @Override
    public Map<String, ClosurePair> descendantsOf(String ancestor) {
        Map<String, ClosurePair> row = forward.get(ancestor);
        return row == null ? Map.of() : Collections.unmodifiableMap(row);
    }

    @Override
    public Map<String, ClosurePair> ancestorsOf(String descendant) {
        Map<String, ClosurePair> row = reverse.get(descendant);
        return row == null ? Map.of() : Collections.unmodifiableMap(row);
    }

    @Override
    public void put(ClosurePair pair) {
        if (forward.computeIfAbsent(pair.ancestor(), k -> new HashMap<>()).put(pair.descendant(), pair) == null) {
            size++;
        }
        reverse.computeIfAbsent(pair.descendant(), k -> new HashMap<>()).put(pair.ancestor(), pair);
    }

    /** Number of rows. */
    public long size() {
        return size;
    }

    /** Visits every row. */
    public void forEach(Consumer<ClosurePair> action) {
        forward.values().forEach(row -> row.values().forEach(action));
    }
}
