package dev.richter.report;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.Plan;
import dev.richter.links.graph.ClosurePair;
import dev.richter.links.store.NodeAnnotation;
import dev.richter.links.store.StoredEdge;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The call graph below the plan's entries, in the interface dimension, from the link builder's closure table
 * (reachable nodes and shortest depths), its direct-edge listing (call counts) and the pre-test's dynamic checks
 * (marker and mock status).
 *
 * <p>Each edge carries its calls, its marker status and its mock status:
 * <ul>
 *   <li>marker LOST when {@code marker-propagation} failed on it (its evidence names the edge {@code from->to} by
 *       service, or the first span without the marker), and on every edge below such a loss; PROPAGATED when the
 *       check ran on marked traces and did not; NOT_VERIFIED when it did not run or saw no marked trace;</li>
 *   <li>mock MOCKED when the edge leaves the scope (an exit: the called service is not registered by the team) into a
 *       mock-required exit (the safety configuration's {@code exits} or a link annotation) and {@code mocked-exit} did
 *       not catch marked calls reaching it for real; otherwise REAL. A REAL exit edge is highlighted, as is a LOST
 *       one.</li>
 * </ul>
 * A graph with more than {@link #MAX_VISIBLE_NODES} nodes is collapsed below a depth (at least 1): the last visible
 * node of each branch says how many nodes, lost-marker and real-exit edges are hidden below it.
 *
 * @param read                 false when the links could not be read ({@link #note()} says why)
 * @param note                 what the graph lacks, {@code ""} when nothing
 * @param entries              the plan's entries found in the links, e.g. {@code order POST /orders}
 * @param entriesWithoutTraces the plan's entries with no link (no trace was ingested for them), as
 *                             {@code service METHOD path}
 * @param nodes                the visible nodes
 * @param edges                the visible edges
 * @param collapsedBelowDepth  the deepest visible depth, or -1 when nothing was collapsed
 * @param hiddenNodes          nodes hidden by the collapse
 */
public record CallGraph(boolean read, String note, List<String> entries, List<String> entriesWithoutTraces,
                        List<Node> nodes, List<CallEdge> edges, int collapsedBelowDepth, int hiddenNodes) {
    /** Most nodes drawn before deeper levels are collapsed. */
    public static final int MAX_VISIBLE_NODES = 40;

    public CallGraph {
        entries = List.copyOf(entries);
        entriesWithoutTraces = List.copyOf(entriesWithoutTraces);
        nodes = List.copyOf(nodes);
        edges = List.copyOf(edges);
        note = note == null ? "" : note;
    }

    /** No graph, and why (e.g. the links table could not be read). */
    public static CallGraph notRead(String why) {
        return new CallGraph(false, why, List.of(), List.of(), List.of(), List.of(), -1, 0);
    }

    /** Marker status of an edge. */
    public enum MarkerStatus { PROPAGATED, LOST, NOT_VERIFIED }

    /** Mock status of an edge. */
    public enum MockStatus { MOCKED, REAL }

    /**
     * @param id          interface node, {@code service operation}
     * @param service     its service
     * @param depth       shortest distance from an entry, edges (entries 0)
     * @param inScope     its service is registered by the team
     * @param entry       it is one of the plan's entries
     * @param hiddenBelow nodes collapsed below it
     * @param hiddenNote  e.g. {@code "2 lost-marker edges, 1 real exit"} hidden below it, {@code ""} when none
     */
    public record Node(String id, String service, int depth, boolean inScope, boolean entry, int hiddenBelow,
                       String hiddenNote) {}

    /**
     * @param from     calling node
     * @param to       called node
     * @param calls    calls observed on the edge (links), or for a mocked exit known only from the checks, the marked
     *                 calls its mock answered in the pre-test
     * @param marker   marker status
     * @param mock     mock status
     * @param exit     the edge leaves the scope
     * @param backEdge the edge goes back up or sideways (a cycle, or a shortcut to a shallower node)
     */
    public record CallEdge(String from, String to, long calls, MarkerStatus marker, MockStatus mock, boolean exit,
                       boolean backEdge) {
        /** True when the page highlights the edge: the marker is lost, or it is a real call out of the scope. */
        public boolean highlighted() {
            return marker == MarkerStatus.LOST || exit && mock == MockStatus.REAL;
        }
    }

    /**
     * A mock-required exit of the team's safety configuration.
     *
     * @param fromService calling service ({@code ""} when the configuration does not say)
     * @param service     called service
     * @param node        called interface node, or the service when the configuration names none
     */
    public record RequiredExit(String fromService, String service, String node) {}

    /**
     * The plan's entries as the links know them: for each scenario request, the team's entry nodes of the scenario's
     * service whose operation is the request's {@code METHOD path} (query dropped; route templates such as
     * {@code /orders/{id}} or {@code /orders/:id} match any segment), or the bare method when the instrumentation names
     * server spans by method only.
     *
     * @param plan        the plan
     * @param teamEntries the links' entry nodes of the team (interface dimension)
     * @return matched entry nodes (key {@code true}) and the requests no entry matched, as
     *         {@code service METHOD path} (key {@code false})
     */
    public static Map<Boolean, List<String>> planEntries(Plan plan, List<String> teamEntries) {
        Set<String> found = new LinkedHashSet<>();
        Set<String> missing = new LinkedHashSet<>();
        for (Plan.ScenarioSpec s : plan.scenarios()) {
            for (Plan.RequestSpec r : s.requests()) {
                String method = r.method().toUpperCase(Locale.ROOT);
                String path = r.path().split("[?#]", 2)[0];
                List<String> hits = new ArrayList<>();
                for (String node : teamEntries) {
                    if (!node.startsWith(s.service() + " ")) {
                        continue;
                    }
                    String op = node.substring(s.service().length() + 1).trim();
                    String[] parts = op.split("\\s+", 2);
                    if (parts[0].equalsIgnoreCase(method) && (parts.length == 1 || pathMatches(parts[1], path))) {
                        hits.add(node);
                    }
                }
                List<String> specific = hits.stream().filter(h -> h.trim().split("\\s+").length > 2).toList();
                if (hits.isEmpty()) {
                    missing.add(s.service() + " " + method + " " + path);
                } else {
                    found.addAll(specific.isEmpty() ? hits : specific);
                }
            }
        }
        Map<Boolean, List<String>> out = new HashMap<>();
        out.put(true, List.copyOf(found));
        out.put(false, List.copyOf(missing));
        return out;
    }

    /** True when a span's route (or path) matches a request path, templates matching any one segment. */
    static boolean pathMatches(String route, String path) {
        String[] r = route.replaceAll("/+$", "").split("/");
        String[] p = path.replaceAll("/+$", "").split("/");
        if (r.length != p.length) {
            return false;
        }
        for (int i = 0; i < r.length; i++) {
            boolean template = r[i].startsWith("{") && r[i].endsWith("}") || r[i].startsWith(":") || r[i].equals("*");
            if (!template && !r[i].equals(p[i])) {
                return false;
            }
        }
        return true;
    }

    /**
     * Builds the graph.
     *
     * @param entries              the plan's entries found in the links ({@link #planEntries} key true)
     * @param entriesWithoutTraces the plan's requests no entry matched ({@link #planEntries} key false)
     * @param descendants          closure rows below each entry ({@code LinkRepository.descendants})
     * @param edges                the team's direct edges in the interface dimension
     * @param annotations          the team's link annotations by subject (mock-required nodes and services)
     * @param requiredExits        the safety configuration's mock-required exits
     * @param scope                the team's registered service names
     * @param dynamicChecks        the pre-test's dynamic check results
     */
    public static CallGraph build(List<String> entries, List<String> entriesWithoutTraces,
                                  Map<String, List<ClosurePair>> descendants, List<StoredEdge> edges,
                                  Map<String, NodeAnnotation> annotations, List<RequiredExit> requiredExits,
                                  Set<String> scope, List<CheckResult> dynamicChecks) {
        Map<String, Integer> depth = new LinkedHashMap<>();
        Map<String, String> parent = new HashMap<>();
        entries.forEach(e -> depth.put(e, 0));
        for (String e : entries) {
            for (ClosurePair p : descendants.getOrDefault(e, List.of())) {
                if (p.descendant().equals(e)) {
                    continue;
                }
                Integer known = depth.get(p.descendant());
                if (known == null || p.depth() < known) {
                    depth.put(p.descendant(), p.depth());
                    parent.put(p.descendant(), p.via());
                }
            }
        }
        Map<String, String> serviceOf = new HashMap<>();
        List<CallEdge> all = new ArrayList<>();
        Set<String> present = new HashSet<>();
        Marking marking = Marking.of(dynamicChecks);
        for (StoredEdge se : edges) {
            if (!depth.containsKey(se.from()) || !depth.containsKey(se.to())) {
                continue;
            }
            serviceOf.put(se.from(), se.fromService());
            serviceOf.put(se.to(), se.toService());
            present.add(se.from() + "\u001f" + se.to());
            boolean exit = !scope.contains(se.toService());
            all.add(new CallEdge(se.from(), se.to(), se.callCount(), MarkerStatus.NOT_VERIFIED,
                    mockStatus(exit, se.to(), se.toService(), annotations, requiredExits, marking), exit,
                    depth.get(se.to()) <= depth.get(se.from())));
        }
        for (RequiredExit x : requiredExits) {
            boolean known = all.stream().anyMatch(e -> serviceOf.getOrDefault(e.to(), service(e.to())).equals(x.service())
                    && (x.node().equals(x.service()) || e.to().equals(x.node())));
            if (known || x.fromService().isEmpty() || scope.contains(x.service())) {
                continue;
            }
            long calls = marking.mockedCalls.getOrDefault(x.node(), 0L);
            for (String from : List.copyOf(depth.keySet())) {
                if (serviceOf.getOrDefault(from, service(from)).equals(x.fromService())
                        && present.add(from + "\u001f" + x.node())) {
                    depth.putIfAbsent(x.node(), depth.get(from) + 1);
                    parent.putIfAbsent(x.node(), from);
                    serviceOf.put(x.node(), x.service());
                    all.add(new CallEdge(from, x.node(), calls, MarkerStatus.NOT_VERIFIED,
                            mockStatus(true, x.node(), x.service(), annotations, requiredExits, marking), true, false));
                }
            }
        }
        all = marking.mark(all, serviceOf);

        int collapse = depth.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        while (collapse > 1 && countVisible(depth, collapse) > MAX_VISIBLE_NODES) {
            collapse--;
        }
        int deepest = depth.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        boolean collapsed = collapse < deepest;
        Map<String, int[]> hidden = new HashMap<>();
        if (collapsed) {
            for (Map.Entry<String, Integer> n : depth.entrySet()) {
                if (n.getValue() <= collapse) {
                    continue;
                }
                String up = n.getKey();
                for (int guard = 0; up != null && depth.getOrDefault(up, 0) > collapse && guard < 1000; guard++) {
                    up = parent.get(up);
                }
                if (up != null) {
                    hidden.computeIfAbsent(up, k -> new int[3])[0]++;
                }
            }
            for (CallEdge e : all) {
                if (depth.get(e.to()) > collapse || depth.get(e.from()) > collapse) {
                    String up = depth.get(e.from()) > collapse ? e.from() : e.to();
                    for (int guard = 0; up != null && depth.getOrDefault(up, 0) > collapse && guard < 1000; guard++) {
                        up = parent.get(up);
                    }
                    if (up != null) {
                        int[] h = hidden.computeIfAbsent(up, k -> new int[3]);
                        h[1] += e.marker() == MarkerStatus.LOST ? 1 : 0;
                        h[2] += e.exit() && e.mock() == MockStatus.REAL ? 1 : 0;
                    }
                }
            }
        }
        final int limit = collapse;
        List<Node> nodes = new ArrayList<>();
        Set<String> entrySet = new HashSet<>(entries);
        depth.entrySet().stream().filter(n -> n.getValue() <= limit)
                .sorted(Map.Entry.<String, Integer>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
                .forEach(n -> {
                    String svc = serviceOf.getOrDefault(n.getKey(), service(n.getKey()));
                    int[] h = hidden.getOrDefault(n.getKey(), new int[3]);
                    List<String> notes = new ArrayList<>();
                    if (h[1] > 0) {
                        notes.add(h[1] + " lost-marker edge" + (h[1] == 1 ? "" : "s"));
                    }
                    if (h[2] > 0) {
                        notes.add(h[2] + " real exit" + (h[2] == 1 ? "" : "s"));
                    }
                    nodes.add(new Node(n.getKey(), svc, n.getValue(), scope.contains(svc), entrySet.contains(n.getKey()),
                            h[0], String.join(", ", notes)));
                });
        List<CallEdge> visible = all.stream().filter(e -> depth.get(e.from()) <= limit && depth.get(e.to()) <= limit)
                .sorted(Comparator.comparing(CallEdge::from).thenComparing(CallEdge::to)).toList();
        String note = entries.isEmpty() ? "none of the plan's entries has links: ingest traces of marked traffic"
                + " (POST /traces, or the team's trace source) to see the call graph" : "";
        return new CallGraph(true, note, entries, entriesWithoutTraces, nodes, visible, collapsed ? collapse : -1,
                collapsed ? (int) depth.values().stream().filter(d -> d > limit).count() : 0);
    }

    private static long countVisible(Map<String, Integer> depth, int collapse) {
        return depth.values().stream().filter(d -> d <= collapse).count();
    }

    /**
     * The same graph where an in-scope edge between two services that no marked trace of the run crossed is
     * NOT_VERIFIED instead of PROPAGATED: the marker check saw it on no marked call, so it cannot vouch for it (a path
     * that vanished under a fallback, e.g. a circuit breaker open, is not "propagated").
     *
     * @param crossedPairs service pairs {@code "A->B"} the marked traces crossed ({@link VanishedEdges.Coverage#crossed})
     */
    public CallGraph withCrossings(java.util.Set<String> crossedPairs) {
        Map<String, Node> byId = new HashMap<>();
        nodes.forEach(n -> byId.put(n.id(), n));
        List<CallEdge> out = new ArrayList<>();
        for (CallEdge e : edges) {
            Node from = byId.get(e.from());
            Node to = byId.get(e.to());
            boolean between = from != null && to != null && !e.exit() && !from.service().equals(to.service());
            boolean unseen = between && e.marker() == MarkerStatus.PROPAGATED
                    && !crossedPairs.contains(from.service() + "->" + to.service());
            out.add(unseen ? new CallEdge(e.from(), e.to(), e.calls(), MarkerStatus.NOT_VERIFIED, e.mock(), e.exit(), e.backEdge()) : e);
        }
        return new CallGraph(read, note, entries, entriesWithoutTraces, nodes, out, collapsedBelowDepth, hiddenNodes);
    }

    /** The same graph with this note. */
    public CallGraph withNote(String newNote) {
        return new CallGraph(read, newNote, entries, entriesWithoutTraces, nodes, edges, collapsedBelowDepth, hiddenNodes);
    }

    /**
     * Closure rows below each entry, by breadth-first search over direct edges: the shortest depth and, as {@code via},
     * the node before it on a shortest path (the first found). For a graph known only from edges (e.g. one batch of
     * traces), in the shape the links table stores.
     */
    public static Map<String, List<ClosurePair>> closure(List<String> entries, List<StoredEdge> edges) {
        Map<String, List<StoredEdge>> out = new HashMap<>();
        edges.forEach(e -> out.computeIfAbsent(e.from(), k -> new ArrayList<>()).add(e));
        Map<String, List<ClosurePair>> rows = new LinkedHashMap<>();
        for (String entry : entries) {
            Map<String, Integer> depth = new LinkedHashMap<>();
            Map<String, String> via = new HashMap<>();
            ArrayDeque<String> queue = new ArrayDeque<>(List.of(entry));
            depth.put(entry, 0);
            while (!queue.isEmpty()) {
                String n = queue.poll();
                for (StoredEdge e : out.getOrDefault(n, List.of())) {
                    if (!depth.containsKey(e.to())) {
                        depth.put(e.to(), depth.get(n) + 1);
                        via.put(e.to(), n);
                        queue.add(e.to());
                    }
                }
            }
            List<ClosurePair> list = new ArrayList<>();
            depth.forEach((n, d) -> {
                if (d > 0) {
                    list.add(new ClosurePair(entry, n, d, 1, 0, 0, via.get(n)));
                }
            });
            rows.put(entry, list);
        }
        return rows;
    }

    /** The service of an interface node: its text before the first space. */
    static String service(String node) {
        int sp = node.indexOf(' ');
        return sp < 0 ? node : node.substring(0, sp);
    }

    private static MockStatus mockStatus(boolean exit, String to, String toService, Map<String, NodeAnnotation> annotations,
                                         List<RequiredExit> requiredExits, Marking marking) {
        if (!exit) {
            return MockStatus.REAL;
        }
        boolean required = requiredExits.stream().anyMatch(x -> x.service().equals(toService)
                && (x.node().isEmpty() || x.node().equals(toService) || x.node().equals(to)))
                || annotations.containsKey(to) && annotations.get(to).mockRequired()
                || annotations.containsKey(toService) && annotations.get(toService).mockRequired();
        boolean reachedForReal = marking.realExits.contains(to) || marking.realExits.contains(toService);
        return required && !reachedForReal ? MockStatus.MOCKED : MockStatus.REAL;
    }

    /** What the dynamic checks say about markers and mocks. */
    private record Marking(boolean verified, Set<String> lostServiceEdges, Set<String> lostNodes, Set<String> realExits,
                           Map<String, Long> mockedCalls) {
        private static final Pattern LOST_EDGE = Pattern.compile("edge (\\S+)->(\\S+) runs without the marker");
        private static final Pattern FIRST_UNMARKED = Pattern.compile("first span without \\S+ is (\\S+) '([^']*)'");
        private static final Pattern BELOW = Pattern.compile("below marked (\\S+) '");
        private static final Pattern MOCKED_CALLS = Pattern.compile("^(\\d+) marked calls answered by the mock");

        static Marking of(List<CheckResult> checks) {
            boolean verified = false;
            Set<String> edges = new HashSet<>();
            Set<String> nodes = new HashSet<>();
            Set<String> real = new HashSet<>();
            Map<String, Long> mocked = new TreeMap<>();
            for (CheckResult c : checks) {
                if (c.name().equals("marker-propagation")) {
                    verified |= c.outcome() != CheckResult.Outcome.WARN;
                    if (c.outcome() == CheckResult.Outcome.FAIL) {
                        Matcher m = LOST_EDGE.matcher(c.evidence());
                        if (m.find()) {
                            edges.add(m.group(1) + "->" + m.group(2));
                        }
                        Matcher first = FIRST_UNMARKED.matcher(c.evidence());
                        if (first.find()) {
                            nodes.add(first.group(1) + " " + first.group(2));
                            Matcher below = BELOW.matcher(c.evidence());
                            if (below.find() && !below.group(1).equals(first.group(1))) {
                                edges.add(below.group(1) + "->" + first.group(1));
                            }
                        }
                    }
                } else if (c.name().equals("mocked-exit")) {
                    if (c.outcome() == CheckResult.Outcome.FAIL) {
                        real.add(c.subject());
                    } else {
                        Matcher m = MOCKED_CALLS.matcher(c.evidence());
                        if (m.find()) {
                            mocked.put(c.subject(), Long.parseLong(m.group(1)));
                        }
                    }
                }
            }
            return new Marking(verified, edges, nodes, real, mocked);
        }

        /** The edges with their marker status: LOST at a named loss and everywhere below it. */
        List<CallEdge> mark(List<CallEdge> edges, Map<String, String> serviceOf) {
            Set<String> lostFrom = new HashSet<>();
            ArrayDeque<String> queue = new ArrayDeque<>();
            Map<String, List<CallEdge>> out = new HashMap<>();
            for (CallEdge e : edges) {
                out.computeIfAbsent(e.from(), k -> new ArrayList<>()).add(e);
                String pair = serviceOf.getOrDefault(e.from(), service(e.from())) + "->" + serviceOf.getOrDefault(e.to(), service(e.to()));
                if (lostServiceEdges.contains(pair) || lostNodes.contains(e.to())) {
                    if (lostFrom.add(e.to())) {
                        queue.add(e.to());
                    }
                }
            }
            while (!queue.isEmpty()) {
                for (CallEdge e : out.getOrDefault(queue.poll(), List.of())) {
                    if (lostFrom.add(e.to())) {
                        queue.add(e.to());
                    }
                }
            }
            List<CallEdge> marked = new ArrayList<>();
            for (CallEdge e : edges) {
                String pair = serviceOf.getOrDefault(e.from(), service(e.from())) + "->" + serviceOf.getOrDefault(e.to(), service(e.to()));
                boolean lost = lostServiceEdges.contains(pair) || lostNodes.contains(e.to()) || lostFrom.contains(e.from());
                MarkerStatus status = lost ? MarkerStatus.LOST : verified ? MarkerStatus.PROPAGATED : MarkerStatus.NOT_VERIFIED;
                marked.add(new CallEdge(e.from(), e.to(), e.calls(), status, e.mock(), e.exit(), e.backEdge()));
            }
            return marked;
        }
    }
}
