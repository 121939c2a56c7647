package dev.richter.links.graph;

import dev.richter.links.trace.DependencyLink;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.SpanKind;
import dev.richter.links.trace.SpanRef;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Derives call-graph edges and entries from normalized spans. Edges come only from ids (parent
 * ids, span links) — never from timestamps, so clock skew cannot bend the graph.
 *
 * <p>Rules, per span {@code s} whose parent {@code p} is in the batch (same trace id):
 * <ul>
 *   <li><b>service</b> edge {@code service(p) → service(s)} when the services differ;</li>
 *   <li><b>interface</b> edge {@code iface(p) → iface(s)} when the nodes differ, where
 *       {@code iface(x)} is {@code service(x) + " " + op}, {@code op} being the operation of the
 *       span that <em>received</em> the work: x itself if it is SERVER/CONSUMER or the topmost span
 *       of its service in the chain, otherwise {@code iface(parent)}. So a CLIENT span (often
 *       named just "GET") stands for its caller's entry operation, and a CLIENT→SERVER pair gives
 *       {@code order-svc POST /orders → stock-svc GET /stock/{id}};</li>
 *   <li>every span link (OTLP links, extra Jaeger references) to a span in the batch adds the same
 *       edges from the linked span (producer → consumer hops, bug 03);</li>
 *   <li>a CLIENT/PRODUCER span with a peer ({@link Span#peerService()}) and no child or linking
 *       span in another service called something uninstrumented: edges {@code service → peer} and
 *       {@code iface(s) → }{@link ExitNode#of} (e.g. {@code yelp-main → mysql}; a database is named by system,
 *       host, database and table, {@code h2://127.0.0.1:18092/shop SELECT stock}); a SQL schema statement
 *       ({@code CREATE TABLE ...} at boot, {@link ExitNode#schemaStatement}) adds no such edge;</li>
 *   <li>a span without a parent in the batch, of kind SERVER, CONSUMER or unspecified, and not
 *       linked to a span in the batch, is an <b>entry</b>; its raw request path ({@link #rawPath}) is one of the
 *       entry's samples ({@link ExtractedLinks#entrySamples()}).</li>
 * </ul>
 * Parent references that form a cycle (e.g. Jaeger's {@code parent-cycle} fixture) are broken by
 * dropping the parent of the span with the smallest span id in the cycle ("parent cycle broken").
 * Dependency-list links add service edges only.
 */
public final class EdgeExtractor {
    static final String CYCLE_BROKEN = "parent cycle broken";

    private EdgeExtractor() {}

    /**
     * @param batch normalized, de-duplicated spans (as {@link dev.richter.links.trace.ParsedTraces#spans()}); a
     *     gateway's server span that knows only its raw path takes the route template of the server span below it
     *     ({@link dev.richter.links.trace.GatewayRoutes})
     * @param dependencies pre-aggregated service edges (may be empty)
     * @return edges and entries in both dimensions
     */
    public static ExtractedLinks extract(List<Span> batch, List<DependencyLink> dependencies) {
        List<Span> spans = dev.richter.links.trace.GatewayRoutes.templated(batch);
        int n = spans.size();
        Map<SpanRef, Integer> index = new HashMap<>(Math.max(16, n * 2));
        for (int i = 0; i < n; i++) {
            Span s = spans.get(i);
            index.put(new SpanRef(s.traceId(), s.spanId()), i);
        }
        int[] parent = new int[n];
        for (int i = 0; i < n; i++) {
            Span s = spans.get(i);
            Integer p = s.hasParent() ? index.get(new SpanRef(s.traceId(), s.parentSpanId())) : null;
            parent[i] = p == null || p == i ? -1 : p;
        }
        Map<String, Integer> repaired = new TreeMap<>();
        breakCycles(spans, parent, repaired);

        String[] iface = interfaceNodes(spans, parent);
        int[][] linked = new int[n][];
        boolean[] calledOut = new boolean[n];
        for (int i = 0; i < n; i++) {
            Span s = spans.get(i);
            int p = parent[i];
            if (p >= 0 && !spans.get(p).service().equals(s.service())) {
                calledOut[p] = true;
            }
            List<SpanRef> links = s.links();
            if (!links.isEmpty()) {
                int[] ls = new int[links.size()];
                int k = 0;
                for (SpanRef ref : links) {
                    Integer l = index.get(ref);
                    if (l != null && l != i && l != p) {
                        ls[k++] = l;
                        if (!spans.get(l).service().equals(s.service())) {
                            calledOut[l] = true;
                        }
                    }
                }
                linked[i] = Arrays.copyOf(ls, k);
            }
        }

        Accumulator acc = new Accumulator();
        for (int i = 0; i < n; i++) {
            Span s = spans.get(i);
            int p = parent[i];
            if (p >= 0) {
                acc.add(spans.get(p), iface[p], s, iface[i]);
            }
            int[] ls = linked[i];
            if (ls != null) {
                for (int l : ls) {
                    acc.add(spans.get(l), iface[l], s, iface[i]);
                }
            }
            if (s.kind().makesCall() && !s.peerService().isEmpty() && !s.peerService().equals(s.service())
                    && !calledOut[i] && !ExitNode.schemaStatement(s)) {
                acc.service(s.service(), s.peerService(), 1);
                acc.iface(iface[i], ExitNode.of(s), s.service(), s.peerService());
            }
            boolean entryKind = s.kind().receivesCall() || s.kind() == SpanKind.UNSPECIFIED;
            if (p < 0 && entryKind && (ls == null || ls.length == 0)) {
                acc.serviceEntries.add(s.service());
                acc.interfaceEntries.add(iface[i]);
                acc.sample(iface[i], rawPath(s));
            }
        }
        for (DependencyLink d : dependencies) {
            if (!d.parent().equals(d.child())) {
                acc.service(d.parent(), d.child(), d.callCount());
            }
        }
        return new ExtractedLinks(acc.sorted(acc.serviceEdges), acc.sorted(acc.interfaceEdges),
                Set.copyOf(acc.serviceEntries), Set.copyOf(acc.interfaceEntries), Map.copyOf(repaired),
                acc.entrySamples.entrySet().stream().collect(java.util.stream.Collectors.toUnmodifiableMap(
                        Map.Entry::getKey, e -> List.copyOf(e.getValue()))));
    }

    /**
     * The raw request path of a root span: {@code url.path} (semantic conventions 1.21+), else {@code http.target}
     * (older conventions) without its query; empty when it has neither.
     */
    static String rawPath(Span s) {
        String path = s.attributes().getOrDefault("url.path", "");
        if (path.isEmpty()) {
            path = s.attributes().getOrDefault("http.target", "");
            int query = path.indexOf('?');
            path = query < 0 ? path : path.substring(0, query);
        }
        return path.startsWith("/") ? path : "";
    }

    private static void breakCycles(List<Span> spans, int[] parent, Map<String, Integer> repaired) {
        int n = parent.length;
        byte[] state = new byte[n]; // 0 new, 1 on the current walk, 2 done
        List<Integer> path = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (state[i] != 0) {
                continue;
            }
            path.clear();
            int j = i;
            while (j >= 0 && state[j] == 0) {
                state[j] = 1;
                path.add(j);
                j = parent[j];
            }
            if (j >= 0 && state[j] == 1) {
                int from = path.indexOf(j);
                int victim = j;
                for (int k = from; k < path.size(); k++) {
                    int c = path.get(k);
                    if (spans.get(c).spanId().compareTo(spans.get(victim).spanId()) < 0) {
                        victim = c;
                    }
                }
                parent[victim] = -1;
                repaired.merge(CYCLE_BROKEN, 1, Integer::sum);
            }
            for (int c : path) {
                state[c] = 2;
            }
        }
    }

    /** Interface node of every span (see class comment); iterative, so deep chains cannot overflow the stack. */
    private static String[] interfaceNodes(List<Span> spans, int[] parent) {
        int n = parent.length;
        String[] iface = new String[n];
        Map<String, Map<String, String>> nodes = new HashMap<>(); // one String per node: hashes cached
        int[] stack = new int[16];
        for (int i = 0; i < n; i++) {
            int top = 0;
            int j = i;
            while (iface[j] == null) {
                Span s = spans.get(j);
                int p = parent[j];
                if (s.kind().receivesCall() || p < 0 || !spans.get(p).service().equals(s.service())) {
                    iface[j] = nodes.computeIfAbsent(s.service(), k -> new HashMap<>())
                            .computeIfAbsent(s.operation(), op -> Dimension.interfaceNode(s.service(), op));
                    break;
                }
                if (top == stack.length) {
                    stack = Arrays.copyOf(stack, top * 2);
                }
                stack[top++] = j;
                j = p;
            }
            String node = iface[j];
            while (top > 0) {
                iface[stack[--top]] = node;
            }
        }
        return iface;
    }

    private static final class Accumulator {
        final Map<Edge, long[]> serviceEdges = new HashMap<>();
        final Map<Edge, long[]> interfaceEdges = new HashMap<>();
        final Map<String, String> serviceOf = new HashMap<>();
        final Set<String> serviceEntries = new LinkedHashSet<>();
        final Set<String> interfaceEntries = new LinkedHashSet<>();
        final Map<String, List<String>> entrySamples = new HashMap<>();

        void sample(String entry, String path) {
            if (path.isEmpty()) {
                return;
            }
            List<String> samples = entrySamples.computeIfAbsent(entry, k -> new ArrayList<>());
            if (samples.size() < ExtractedLinks.MAX_ENTRY_SAMPLES && !samples.contains(path)) {
                samples.add(path);
            }
        }

        void add(Span from, String fromIface, Span to, String toIface) {
            if (!from.service().equals(to.service())) {
                service(from.service(), to.service(), 1);
            }
            if (!fromIface.equals(toIface)) {
                iface(fromIface, toIface, from.service(), to.service());
            }
        }

        void service(String from, String to, long calls) {
            serviceEdges.computeIfAbsent(new Edge(from, to), e -> new long[1])[0] += calls;
        }

        void iface(String from, String to, String fromService, String toService) {
            interfaceEdges.computeIfAbsent(new Edge(from, to), e -> new long[1])[0]++;
            serviceOf.putIfAbsent(from, fromService);
            serviceOf.putIfAbsent(to, toService);
        }

        TreeMap<Edge, EdgeStats> sorted(Map<Edge, long[]> edges) {
            TreeMap<Edge, EdgeStats> out = new TreeMap<>();
            boolean service = edges == serviceEdges;
            edges.forEach((e, c) -> out.put(e, new EdgeStats(c[0],
                    service ? e.from() : serviceOf.get(e.from()), service ? e.to() : serviceOf.get(e.to()))));
            return out;
        }
    }
}
