package dev.richter.links;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.links.graph.ClosurePair;
import dev.richter.links.graph.ClosureTable;
import dev.richter.links.graph.EdgeInsertion;
import dev.richter.links.graph.InMemoryClosureView;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The incremental closure against a brute force: for each node a BFS over the final edge set
 * gives the shortest depth to every node (for a itself: the shortest cycle through a) and the
 * number of shortest paths; the table built by inserting the edges one by one, in random order
 * with repeats, must hold exactly those rows (within the depth cap), and every {@code via} must be
 * a predecessor on a shortest path.
 */
class ClosureTableTest {

    @ParameterizedTest
    @ValueSource(ints = {Integer.MAX_VALUE, 1, 2, 3, 5})
    void matchesBruteForceOnRandomGraphsWithCycles(int cap) {
        Random rnd = new Random(4242 + cap);
        for (int round = 0; round < 300; round++) {
            int n = 2 + rnd.nextInt(14);
            int m = rnd.nextInt(n * 3);
            List<int[]> edges = new ArrayList<>();
            for (int i = 0; i < m; i++) {
                edges.add(new int[] {rnd.nextInt(n), rnd.nextInt(n)}); // self-loops and 2-cycles included
            }
            List<int[]> order = new ArrayList<>(edges);
            order.addAll(edges.subList(0, edges.size() / 3)); // re-adding must change nothing structural
            Collections.shuffle(order, rnd);
            InMemoryClosureView view = new InMemoryClosureView();
            ClosureTable table = new ClosureTable(view, cap);
            for (int[] e : order) {
                table.addEdge("n" + e[0], "n" + e[1], 1, 1_000);
            }
            Map<String, long[]> expected = bruteForce(n, edges, cap);
            Map<String, ClosurePair> actual = new TreeMap<>();
            view.forEach(p -> actual.put(p.ancestor() + ">" + p.descendant(), p));
            assertEquals(new TreeMap<>(expected).keySet(), actual.keySet(), "pairs, round " + round + " edges " + str(edges));
            for (var e : expected.entrySet()) {
                ClosurePair p = actual.get(e.getKey());
                assertEquals(e.getValue()[0], p.depth(), "depth " + e.getKey() + " in " + str(edges));
                assertEquals(e.getValue()[1], p.pathCount(), "paths " + e.getKey() + " in " + str(edges));
                // via is a node before the descendant on a shortest path
                String viaKey = p.ancestor() + ">" + p.via();
                int viaDepth = p.via().equals(p.ancestor()) ? 0 : (int) expected.get(viaKey)[0];
                assertEquals(p.depth() - 1, viaDepth, "via " + e.getKey());
                assertTrue(edges.stream().anyMatch(x -> ("n" + x[0]).equals(p.via()) && ("n" + x[1]).equals(p.descendant())));
            }
        }
    }

    @Test
    void reAddingAnEdgeOnlyCountsCalls() {
        InMemoryClosureView view = new InMemoryClosureView();
        ClosureTable table = new ClosureTable(view, ClosureTable.UNBOUNDED);
        table.addEdge("a", "b", 2, 10);
        table.addEdge("b", "c", 1, 10);
        EdgeInsertion again = table.addEdge("a", "b", 3, 20);
        assertFalse(again.newEdge());
        assertEquals(1, again.written().size());
        assertEquals(5, view.descendantsOf("a").get("b").callCount());
        assertEquals(20, view.descendantsOf("a").get("b").lastSeenEpochMs());
        assertEquals(3, view.size());
    }

    @Test
    void closingACycleRecordsEveryNodeOnIt() {
        InMemoryClosureView view = new InMemoryClosureView();
        ClosureTable table = new ClosureTable(view, ClosureTable.UNBOUNDED);
        table.addEdge("a", "b", 1, 0);
        table.addEdge("b", "c", 1, 0);
        EdgeInsertion closing = table.addEdge("c", "a", 1, 0);
        // new pairs: (c,a) (c,b) (b,a) and (a,a) (b,b) (c,c); (a,b) (a,c) (b,c) existed
        assertEquals(6, closing.pairsInserted());
        for (String x : List.of("a", "b", "c")) {
            assertEquals(3, view.descendantsOf(x).get(x).depth(), x + " is on a 3-cycle");
        }
        assertEquals(9, view.size());
    }

    @Test
    void depthCapBoundsTheTable() {
        InMemoryClosureView view = new InMemoryClosureView();
        ClosureTable table = new ClosureTable(view, 2);
        for (int i = 0; i < 10; i++) {
            table.addEdge("s" + i, "s" + (i + 1), 1, 0);
        }
        assertEquals(10 + 9, view.size()); // depth-1 and depth-2 rows only
    }

    /** key "nA>nD" → {shortest depth, number of shortest paths}, rows with depth ≤ cap. */
    private static Map<String, long[]> bruteForce(int n, List<int[]> edgeList, int cap) {
        List<List<Integer>> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new ArrayList<>());
        }
        java.util.Set<Long> distinct = new java.util.HashSet<>();
        for (int[] e : edgeList) {
            if (distinct.add((long) e[0] * 1000 + e[1])) {
                out.get(e[0]).add(e[1]);
            }
        }
        Map<String, long[]> rows = new HashMap<>();
        for (int a = 0; a < n; a++) {
            int[] dist = new int[n];
            long[] count = new long[n];
            java.util.Arrays.fill(dist, -1);
            dist[a] = 0;
            count[a] = 1;
            ArrayDeque<Integer> q = new ArrayDeque<>(List.of(a));
            int cycle = -1;
            long cycleCount = 0;
            while (!q.isEmpty()) {
                int x = q.poll();
                for (int y : out.get(x)) {
                    if (y == a) {
                        if (cycle == -1 || dist[x] + 1 == cycle) {
                            cycle = dist[x] + 1;
                            cycleCount += count[x];
                        }
                        continue;
                    }
                    if (dist[y] == -1) {
                        dist[y] = dist[x] + 1;
                        count[y] = count[x];
                        q.add(y);
                    } else if (dist[y] == dist[x] + 1) {
                        count[y] += count[x];
                    }
                }
            }
            for (int d = 0; d < n; d++) {
                if (d != a && dist[d] > 0 && dist[d] <= cap) {
                    rows.put("n" + a + ">n" + d, new long[] {dist[d], count[d]});
                }
            }
            if (cycle > 0 && cycle <= cap) {
                rows.put("n" + a + ">n" + a, new long[] {cycle, cycleCount});
            }
        }
        return rows;
    }

    private static String str(List<int[]> edges) {
        StringBuilder b = new StringBuilder();
        edges.forEach(e -> b.append(e[0]).append("->").append(e[1]).append(' '));
        return b.toString();
    }
}
