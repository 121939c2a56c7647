package dev.richter.links.graph;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Incremental transitive closure with shortest depths, over any {@link ClosureView}.
 *
 * <p>Adding edge {@code u → v} (the standard closure-table insertion, e.g. Bill Karwin, "SQL
 * Antipatterns", ch. 3; Dong et al., "Incremental maintenance of recursive views"): for every
 * ancestor {@code a} of {@code u} (incl. {@code u}, depth 0) and every descendant {@code d} of
 * {@code v} (incl. {@code v}, depth 0), the candidate {@code (a, d)} has depth
 * {@code depth(a,u) + 1 + depth(v,d)} and {@code paths(a,u) · paths(v,d)} paths; a missing row is
 * inserted, a longer one replaced, an equally long one gets the paths added, a shorter one is kept.
 * Candidates are computed from the rows as they were before the edge, so the result is exact:
 * after any sequence of insertions each row holds the shortest depth and the number of shortest
 * paths (a shortest path is counted once, at the insertion of its last-inserted edge).
 *
 * <p>Cycles terminate by construction (each insertion visits finite snapshots) and are recorded:
 * closing {@code v ⇝ u} with {@code u → v} writes {@code (x, x)} for every {@code x} on the cycle.
 * {@code maxDepth} bounds the table: rows deeper than it are never written; rows within it stay
 * exact (every prefix and suffix of a shortest path within the cap is itself within the cap).
 * Re-adding an existing edge writes only that row (call count, last seen): idempotent in structure.
 */
public final class ClosureTable {
    /** No depth cap. */
    public static final int UNBOUNDED = Integer.MAX_VALUE;

    private final ClosureView view;
    private final int maxDepth;

    /**
     * @param view rows to read and update
     * @param maxDepth rows deeper than this are not stored ({@link #UNBOUNDED} for none); ≥ 1
     */
    public ClosureTable(ClosureView view, int maxDepth) {
        if (maxDepth < 1) {
            throw new IllegalArgumentException("maxDepth must be >= 1, got " + maxDepth);
        }
        this.view = view;
        this.maxDepth = maxDepth;
    }

    /**
     * Adds {@code from → to}, observed {@code calls} times, last at {@code seenEpochMs}.
     *
     * @return the rows written (for the repository to persist) and counts
     */
    public EdgeInsertion addEdge(String from, String to, long calls, long seenEpochMs) {
        ClosurePair direct = view.descendantsOf(from).get(to);
        if (direct != null && direct.depth() == 1) {
            ClosurePair updated = new ClosurePair(from, to, 1, direct.pathCount(), satAdd(direct.callCount(), calls),
                    Math.max(direct.lastSeenEpochMs(), seenEpochMs), direct.via());
            view.put(updated);
            return new EdgeInsertion(false, List.of(updated), 0, 0);
        }
        // snapshots: depth and paths to u from each ancestor, from v to each descendant
        Map<String, ClosurePair> upRows = view.ancestorsOf(from);
        int na = 1 + upRows.size();
        String[] aNode = new String[na];
        int[] aDepth = new int[na];
        long[] aPaths = new long[na];
        aNode[0] = from;
        aPaths[0] = 1;
        int ia = 1;
        for (ClosurePair p : upRows.values()) {
            if (!p.ancestor().equals(from)) {
                aNode[ia] = p.ancestor();
                aDepth[ia] = p.depth();
                aPaths[ia++] = p.pathCount();
            }
        }
        na = ia;
        Map<String, ClosurePair> downRows = view.descendantsOf(to);
        int nd = 1 + downRows.size();
        String[] dNode = new String[nd];
        int[] dDepth = new int[nd];
        long[] dPaths = new long[nd];
        String[] dVia = new String[nd];
        dNode[0] = to;
        dPaths[0] = 1;
        dVia[0] = from;
        int id = 1;
        for (ClosurePair p : downRows.values()) {
            if (!p.descendant().equals(to)) {
                dNode[id] = p.descendant();
                dDepth[id] = p.depth();
                dPaths[id] = p.pathCount();
                dVia[id++] = p.via();
            }
        }
        nd = id;

        List<ClosurePair> written = new ArrayList<>();
        int inserted = 0;
        int improved = 0;
        for (int i = 0; i < na; i++) {
            String a = aNode[i];
            if (aDepth[i] + 1 > maxDepth) {
                continue;
            }
            Map<String, ClosurePair> row = view.descendantsOf(a);
            for (int j = 0; j < nd; j++) {
                long depthL = (long) aDepth[i] + 1 + dDepth[j];
                if (depthL > maxDepth) {
                    continue;
                }
                int depth = (int) depthL;
                String d = dNode[j];
                long paths = satMul(aPaths[i], dPaths[j]);
                boolean isDirect = i == 0 && j == 0;
                ClosurePair cur = row.get(d);
                ClosurePair next;
                if (cur == null) {
                    next = new ClosurePair(a, d, depth, paths, isDirect ? calls : 0, seenEpochMs, dVia[j]);
                    inserted++;
                } else if (depth < cur.depth()) {
                    next = new ClosurePair(a, d, depth, paths, isDirect ? calls : 0, seenEpochMs, dVia[j]);
                    improved++;
                } else if (depth == cur.depth()) {
                    String via = dVia[j].compareTo(cur.via()) < 0 ? dVia[j] : cur.via();
                    next = new ClosurePair(a, d, depth, satAdd(cur.pathCount(), paths), cur.callCount(),
                            Math.max(cur.lastSeenEpochMs(), seenEpochMs), via);
                } else {
                    continue;
                }
                view.put(next);
                written.add(next);
                if (row.isEmpty()) {
                    row = view.descendantsOf(a); // first row of a: re-read the live map
                }
            }
        }
        return new EdgeInsertion(true, written, inserted, improved);
    }

    static long satMul(long x, long y) {
        long hi = Math.multiplyHigh(x, y);
        long lo = x * y;
        return (hi != 0 || lo < 0) ? Long.MAX_VALUE : lo;
    }

    static long satAdd(long x, long y) {
        long r = x + y;
        return r < 0 ? Long.MAX_VALUE : r;
    }
}
