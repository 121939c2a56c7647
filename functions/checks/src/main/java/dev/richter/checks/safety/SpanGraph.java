package dev.richter.checks.safety;

import dev.richter.common.model.Marker;
import dev.richter.links.graph.Dimension;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.SpanRef;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One batch of spans as a graph over span indices: parents, children, and span links followed
 * in the direction of the call (a consumer span that links to its producer is a "link child" of
 * the producer, OpenTelemetry messaging semantic conventions).
 *
 * <p>Parent references to spans outside the batch count as "no parent in the batch"; a span's
 * parent equal to itself is ignored. Link references to spans outside the batch are dropped.
 */
final class SpanGraph {
    final List<Span> spans;
    /** Index of each span's parent in {@link #spans}, -1 when the parent is not in the batch. */
    final int[] parent;
    /** Children by parent reference. */
    final List<List<Integer>> children;
    /** Spans that link to this one (the linking span continues the work this one started). */
    final List<List<Integer>> linkChildren;
    /** True when the span links to at least one span of the batch (it continues someone's work). */
    final boolean[] linksIntoBatch;
    /** First span of the batch this span links to (its producer), -1 when none. */
    final int[] linkParent;
    /** Interface node of every span, computed like {@code EdgeExtractor}: own operation for
     *  SERVER/CONSUMER spans and roots, else the caller's node in the same service. */
    final String[] interfaceNode;

    SpanGraph(List<Span> spans) {
        this.spans = List.copyOf(spans);
        int n = this.spans.size();
        Map<SpanRef, Integer> index = new HashMap<>(Math.max(16, n * 2));
        for (int i = 0; i < n; i++) {
            Span s = this.spans.get(i);
            index.putIfAbsent(new SpanRef(s.traceId(), s.spanId()), i);
        }
        parent = new int[n];
        children = new ArrayList<>(n);
        linkChildren = new ArrayList<>(n);
        linksIntoBatch = new boolean[n];
        linkParent = new int[n];
        Arrays.fill(linkParent, -1);
        for (int i = 0; i < n; i++) {
            children.add(new ArrayList<>(1));
            linkChildren.add(new ArrayList<>(0));
        }
        for (int i = 0; i < n; i++) {
            Span s = this.spans.get(i);
            Integer p = s.hasParent() ? index.get(new SpanRef(s.traceId(), s.parentSpanId())) : null;
            parent[i] = p == null || p == i ? -1 : p;
            if (parent[i] >= 0) {
                children.get(parent[i]).add(i);
            }
            for (SpanRef ref : s.links()) {
                Integer l = index.get(ref);
                if (l != null && l != i && l != parent[i]) {
                    linkChildren.get(l).add(i);
                    if (!linksIntoBatch[i]) {
                        linkParent[i] = l;
                    }
                    linksIntoBatch[i] = true;
                }
            }
        }
        breakParentCycles();
        interfaceNode = new String[n];
        for (int i = 0; i < n; i++) {
            interfaceNode[i] = iface(i);
        }
    }

    int size() {
        return spans.size();
    }

    Span span(int i) {
        return spans.get(i);
    }

    /** True when the span has neither a parent nor a link target in the batch: where a walk starts. */
    boolean isRoot(int i) {
        return parent[i] < 0 && !linksIntoBatch[i];
    }

    /** Children in the call direction: parent-children first, then spans linking to {@code i}. */
    List<Integer> next(int i) {
        List<Integer> c = children.get(i);
        List<Integer> l = linkChildren.get(i);
        if (l.isEmpty()) {
            return c;
        }
        List<Integer> all = new ArrayList<>(c.size() + l.size());
        all.addAll(c);
        all.addAll(l);
        return all;
    }

    /** True when {@code child} is reached from {@code from} through a span link, not a parent reference. */
    boolean viaLink(int from, int child) {
        return parent[child] != from;
    }

    /** {@code service 'operation'} for evidence text. */
    String describe(int i) {
        Span s = spans.get(i);
        return s.service() + " '" + s.operation() + "'";
    }

    private void breakParentCycles() {
        int n = parent.length;
        byte[] state = new byte[n];
        for (int i = 0; i < n; i++) {
            List<Integer> path = new ArrayList<>();
            int j = i;
            while (j >= 0 && state[j] == 0) {
                state[j] = 1;
                path.add(j);
                j = parent[j];
            }
            if (j >= 0 && state[j] == 1) { // cycle through j: cut j's parent edge
                children.get(parent[j]).remove(Integer.valueOf(j));
                parent[j] = -1;
            }
            for (int c : path) {
                state[c] = 2;
            }
        }
    }

    private String iface(int i) {
        int j = i;
        int guard = 0;
        while (guard++ < spans.size()) {
            Span s = spans.get(j);
            int p = parent[j];
            if (s.kind().receivesCall() || p < 0 || !spans.get(p).service().equals(s.service())) {
                return Dimension.interfaceNode(s.service(), s.operation());
            }
            j = p;
        }
        Span s = spans.get(i);
        return Dimension.interfaceNode(s.service(), s.operation());
    }

    /** Spans of marked traffic: traces with a marked span ({@link MarkerOnSpan}), closed over span links between traces. */
    boolean[] markedTraffic(Marker marker) {
        SpanGraph g = this;
        Map<String, String> uf = new HashMap<>();
        for (Span s : g.spans) {
            uf.putIfAbsent(s.traceId(), s.traceId());
        }
        for (Span s : g.spans) {
            for (SpanRef ref : s.links()) {
                if (uf.containsKey(ref.traceId())) {
                    uf.put(find(uf, s.traceId()), find(uf, ref.traceId()));
                }
            }
        }
        Set<String> markedRoots = new HashSet<>();
        for (Span s : g.spans) {
            if (MarkerOnSpan.carries(s, marker)) {
                markedRoots.add(find(uf, s.traceId()));
            }
        }
        boolean[] out = new boolean[g.size()];
        for (int i = 0; i < g.size(); i++) {
            out[i] = markedRoots.contains(find(uf, g.span(i).traceId()));
        }
        return out;
    }

    private static String find(Map<String, String> uf, String x) {
        String r = x;
        while (!uf.get(r).equals(r)) {
            r = uf.get(r);
        }
        while (!uf.get(x).equals(r)) {
            String next = uf.get(x);
            uf.put(x, r);
            x = next;
        }
        return r;
    }
}
