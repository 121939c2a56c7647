package dev.richter.report;

import dev.richter.common.model.Marker;
import dev.richter.common.model.MarkerAttributes;
import dev.richter.links.graph.Dimension;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.SpanKind;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Call paths that the stored links show below an entry and that the run's marked traces of that entry stopped taking:
 * the evidence of a fallback that answers without calling (a circuit breaker open, a cache served instead), which the
 * answers' status alone does not show.
 *
 * <p>The comparison is by service pair: an edge {@code A → B} of the call graph below an entry (both services in the
 * team's scope, {@code A ≠ B}) is <em>crossed</em> by a trace when the trace has a span of {@code B} whose parent is a
 * span of {@code A}, or a call span of {@code A} whose peer is {@code B}. A trace counts for the entry of its marked
 * root span (as in {@link TraceEvidence}) and for the step window its root started in, and only when its root answered
 * with success ({@link #answeredSuccess}): a 429 from a rate limiter skips the calls behind it by design.
 *
 * <p>An edge has <em>vanished</em> at a step when that step has at least {@link #MIN_TRACES} traces of the entry, at
 * least {@link #MIN_MISSING} of them do not cross it, and the share that crosses it is more than
 * {@link #MAX_SHARE_DROP} below the baseline: the highest share of an earlier step of the run with at least
 * {@link #MIN_TRACES} traces. At the first such step there is no baseline from the run: the edge has vanished there when
 * not one trace crossed it (the stored links, built from the team's own traffic, show the path; the marked requests
 * never took it), and otherwise that step's share is the baseline. So a conditional edge (called for some requests only)
 * keeps its share from step to step and is not reported; one that falls away under load is, from the first step where
 * it fell, with the traces of that step and every later one summed.
 *
 * @param entry       the entry's interface node, e.g. {@code order POST /orders}
 * @param fromService the calling service
 * @param toService   the service no longer called
 * @param stage       the stage of the first step where it vanished
 * @param stepIndex   that step, 0-based
 * @param missing     traces of the entry, from that step on, that did not cross the edge
 * @param traces      traces of the entry, from that step on
 * @param baseline    the share of traces that crossed it before (0..1)
 */
public record VanishedEdges(String entry, String fromService, String toService, String stage, int stepIndex,
                            long missing, long traces, double baseline) {
    /** Fewest traces of an entry in a step for the step to count. */
    public static final int MIN_TRACES = 5;
    /** Fewest traces missing the edge in a step for it to have vanished there. */
    public static final int MIN_MISSING = 3;
    /** Largest fall of the crossing share below its baseline that is still the same path (absolute, 0..1). */
    public static final double MAX_SHARE_DROP = 0.10;

    /** One sentence: {@code inventory not called in 153 of 355 order POST /orders requests from step 1 (before: 100 %)}. */
    public String line() {
        return String.format(java.util.Locale.ROOT, "%s → %s not called in %d of %d %s requests from %s (before: %.0f %%)",
                fromService, toService, missing, traces, entry, StepLabels.name(stage, stepIndex), 100 * baseline);
    }

    /**
     * What the marked traces crossed, and the edges that vanished.
     *
     * @param vanished       every vanished edge, by entry then edge
     * @param crossedByEntry per entry, the service pairs {@code "A->B"} its marked traces crossed in any step
     */
    public record Coverage(List<VanishedEdges> vanished, Map<String, Set<String>> crossedByEntry) {
        /** No traces read: nothing crossed, nothing vanished. */
        public static final Coverage NONE = new Coverage(List.of(), Map.of());

        public Coverage {
            vanished = List.copyOf(vanished);
            crossedByEntry = Map.copyOf(crossedByEntry);
        }

        /** Every service pair crossed by any entry's marked traces. */
        public Set<String> crossed() {
            Set<String> all = new TreeSet<>();
            crossedByEntry.values().forEach(all::addAll);
            return all;
        }
    }

    /**
     * Compares the marked traces of each step with the call graph below their entries.
     *
     * @param spans   the spans read for the run (any order, any traces)
     * @param stepWindows the steps' windows (put in run order by their start); a trace whose root started in none is left out
     * @param marker  the run's marker
     * @param graph   the call graph below the plan's entries (its edges and which nodes are in scope)
     */
    public static Coverage of(List<Span> spans, List<TraceEvidence.StepWindow> stepWindows, Marker marker, CallGraph graph) {
        List<TraceEvidence.StepWindow> windows = stepWindows.stream()
                .sorted(java.util.Comparator.comparingLong(TraceEvidence.StepWindow::fromMs)).toList();
        Map<String, Set<String>> expected = expectedPairs(graph);
        Map<String, List<Span>> byTrace = new HashMap<>();
        for (Span s : spans) {
            byTrace.computeIfAbsent(s.traceId(), k -> new ArrayList<>()).add(s);
        }
        // entry -> window -> [traces, and per pair: traces crossing]
        Map<String, Map<TraceEvidence.StepWindow, EntryWindowTally>> tallies = new LinkedHashMap<>();
        Map<String, Set<String>> crossedByEntry = new LinkedHashMap<>();
        for (List<Span> trace : byTrace.values()) {
            Span root = root(trace);
            if (root == null || !MarkerAttributes.carries(root.attributes(), marker)) {
                continue;
            }
            long startMs = root.startEpochNanos() / 1_000_000;
            TraceEvidence.StepWindow window = windows.stream().filter(w -> startMs >= w.fromMs() && startMs <= w.toMs())
                    .findFirst().orElse(null);
            if (window == null) {
                continue;
            }
            String entry = Dimension.interfaceNode(root.service(), root.operation());
            Set<String> pairs = crossedPairs(trace);
            crossedByEntry.computeIfAbsent(entry, k -> new TreeSet<>()).addAll(pairs);
            if (!answeredSuccess(root)) {
                continue;
            }
            EntryWindowTally t = tallies.computeIfAbsent(entry, k -> new LinkedHashMap<>()).computeIfAbsent(window, k -> new EntryWindowTally());
            t.traces++;
            pairs.forEach(p -> t.crossing.merge(p, 1L, Long::sum));
        }
        List<VanishedEdges> vanished = new ArrayList<>();
        expected.forEach((entry, pairs) -> {
            Map<TraceEvidence.StepWindow, EntryWindowTally> perWindow = tallies.getOrDefault(entry, Map.of());
            for (String pair : pairs) {
                double baseline = -1;
                for (int i = 0; i < windows.size(); i++) {
                    EntryWindowTally t = perWindow.get(windows.get(i));
                    if (t == null || t.traces < MIN_TRACES) {
                        continue;
                    }
                    long crossing = t.crossing.getOrDefault(pair, 0L);
                    double share = (double) crossing / t.traces;
                    double before = baseline < 0 ? 1.0 : baseline;
                    boolean fell = baseline < 0 ? crossing == 0 : share < baseline - MAX_SHARE_DROP;
                    if (t.traces - crossing >= MIN_MISSING && fell) {
                        long missing = 0;
                        long traces = 0;
                        for (int j = i; j < windows.size(); j++) {
                            EntryWindowTally later = perWindow.get(windows.get(j));
                            if (later != null) {
                                traces += later.traces;
                                missing += later.traces - later.crossing.getOrDefault(pair, 0L);
                            }
                        }
                        String[] ft = pair.split("->", 2);
                        TraceEvidence.StepWindow w = windows.get(i);
                        vanished.add(new VanishedEdges(entry, ft[0], ft[1], w.stage(), w.stepIndex(), missing, traces, before));
                        break;
                    }
                    baseline = Math.max(baseline, share);
                }
            }
        });
        return new Coverage(vanished, crossedByEntry);
    }

    /** Per entry of the graph, the in-scope service pairs {@code "A->B"} of the edges reachable from it. */
    static Map<String, Set<String>> expectedPairs(CallGraph graph) {
        Map<String, CallGraph.Node> nodes = new HashMap<>();
        graph.nodes().forEach(n -> nodes.put(n.id(), n));
        Map<String, List<CallGraph.CallEdge>> out = new HashMap<>();
        graph.edges().forEach(e -> out.computeIfAbsent(e.from(), k -> new ArrayList<>()).add(e));
        Map<String, Set<String>> expected = new LinkedHashMap<>();
        for (String entry : graph.entries()) {
            Set<String> pairs = new TreeSet<>();
            Set<String> seen = new HashSet<>(List.of(entry));
            ArrayDeque<String> queue = new ArrayDeque<>(List.of(entry));
            while (!queue.isEmpty()) {
                for (CallGraph.CallEdge e : out.getOrDefault(queue.poll(), List.of())) {
                    CallGraph.Node from = nodes.get(e.from());
                    CallGraph.Node to = nodes.get(e.to());
                    if (from != null && to != null && from.inScope() && to.inScope() && !e.exit()
                            && !from.service().equals(to.service())) {
                        pairs.add(from.service() + "->" + to.service());
                    }
                    if (seen.add(e.to())) {
                        queue.add(e.to());
                    }
                }
            }
            expected.put(entry, pairs);
        }
        return expected;
    }

    /**
     * The service pairs {@code "A->B"} a trace crossed: parent/child spans of two services, and the call spans no span
     * of another service answered (an uninstrumented peer) to their peer.
     */
    static Set<String> crossedPairs(List<Span> trace) {
        Map<String, Span> byId = new HashMap<>();
        trace.forEach(s -> byId.put(s.spanId(), s));
        Set<String> pairs = new TreeSet<>();
        Set<String> answered = new HashSet<>();
        for (Span s : trace) {
            Span parent = s.hasParent() ? byId.get(s.parentSpanId()) : null;
            if (parent != null && !parent.service().equals(s.service())) {
                pairs.add(parent.service() + "->" + s.service());
                answered.add(parent.spanId());
            }
        }
        for (Span s : trace) {
            if (s.kind().makesCall() && !answered.contains(s.spanId()) && !s.peerService().isEmpty()
                    && !s.peerService().equals(s.service())) {
                pairs.add(s.service() + "->" + s.peerService());
            }
        }
        return pairs;
    }

    /**
     * Whether the root answered with success, or recorded no status: a shed (429/503) or failed answer ends a request
     * without its downstream calls and is the shedding and error findings' evidence, not a fallback's. The status is
     * the OpenTelemetry HTTP server span's {@code http.response.status_code} (stable conventions) or
     * {@code http.status_code} (older ones).
     */
    static boolean answeredSuccess(Span root) {
        String status = root.attributes().getOrDefault("http.response.status_code", root.attributes().get("http.status_code"));
        if (status == null || status.isBlank()) {
            return true;
        }
        try {
            return Integer.parseInt(status.trim()) < 400;
        } catch (NumberFormatException e) {
            return true;
        }
    }

    /** The trace's root: the earliest span without a parent of kind SERVER, CONSUMER or unspecified. */
    private static Span root(List<Span> trace) {
        Span root = null;
        for (Span s : trace) {
            boolean rootKind = s.kind() == SpanKind.SERVER || s.kind() == SpanKind.CONSUMER || s.kind() == SpanKind.UNSPECIFIED;
            if (!s.hasParent() && rootKind && (root == null || s.startEpochNanos() < root.startEpochNanos())) {
                root = s;
            }
        }
        return root;
    }

    /** Traces of one entry in one window, and per pair how many crossed it. */
    private static final class EntryWindowTally {
        long traces;
        final Map<String, Long> crossing = new HashMap<>();
    }
}
