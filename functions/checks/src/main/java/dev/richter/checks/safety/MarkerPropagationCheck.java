package dev.richter.checks.safety;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.common.model.Marker;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.SpanKind;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Dynamic check {@value #NAME}: marked traffic keeps the marker on every span inside the test
 * scope, from the entry down to the scope boundary.
 *
 * <p>Rules:
 * <ul>
 *   <li>A <b>marked trace</b> starts at a root span (no parent in the batch, and not linking to a span
 *       of the batch) that carries the marker ({@link MarkerOnSpan}).</li>
 *   <li>The walk follows parent references <i>and span links</i>: a consumer span that links to
 *       its producer continues the producer's work (OpenTelemetry messaging semantic conventions;
 *       corpus bug 03) — it is never a new entry.</li>
 *   <li>Every reached span of a scope service must carry the marker. The first one that does not
 *       is the loss; the walk does not descend below it (everything below is a consequence). The walk
 *       stops at the scope boundary: after the trace has entered the scope, a span of an
 *       out-of-scope service (an exit) is neither checked nor descended.</li>
 *   <li>A root span of a scope service of kind CLIENT, PRODUCER or INTERNAL without any parent
 *       reference and without the marker is work whose trace context was dropped. It is attributed to
 *       the call its service was handling when it started: the latest-starting SERVER/CONSUMER span of
 *       the same service in progress at its start, else the one that ended last, at most
 *       {@link #ORPHAN_GRACE_NANOS} before (fire-and-forget). When that span belongs to a marked trace,
 *       the marker was lost at that async hand-off ({@link MarkerLoss.Hop#NEW_TRACE}; the shop's
 *       {@code SHOP_BREAK_ASYNC_MARKER}). This attribution is by time, so under mixed marked and real
 *       load it can blame the wrong request — but only ever for a real context loss in that service.
 *       Background work that is not request work (a scheduler, a config refresh) shows up the same way
 *       when it overlaps a marked request; Richter's own (threads named {@value #RICHTER_THREAD_PREFIX}…)
 *       is excluded.</li>
 * </ul>
 */
public final class MarkerPropagationCheck {
    /** Check name in {@link CheckResult#name()}. */
    public static final String NAME = "marker-propagation";
    /** How long after a marked span ended a parentless span of the same service is still attributed to it, ns. */
    public static final long ORPHAN_GRACE_NANOS = 1_000_000_000L;
    /** Orphans recorded on threads whose {@code thread.name} starts with this are Richter's own background work
     *  (the SDK's configuration refresh thread, {@code richter-exit-mocks-refresh}) and never attributed. */
    public static final String RICHTER_THREAD_PREFIX = "richter-";
    /** Trace ids quoted in evidence per loss. */
    static final int QUOTED_TRACES = 3;

    private MarkerPropagationCheck() {}

    /**
     * @param spans normalized spans of one batch (e.g. the pre-test's traces, {@code ParsedTraces.spans()})
     * @param scopeServices service names of the test scope (the registered services), as in {@link Span#service()}
     * @param marker the team's marker
     * @return one FAIL per {@link MarkerLoss} (subject: the entry), or one PASS with the figures, or one
     *     WARN when the batch holds no marked trace (propagation not verified)
     */
    public static List<CheckResult> check(List<Span> spans, Set<String> scopeServices, Marker marker) {
        Walk walk = walk(new SpanGraph(spans), scopeServices, marker);
        List<CheckResult> out = new ArrayList<>();
        if (walk.markedTraces == 0) {
            out.add(new CheckResult(NAME, Outcome.WARN, "marked traces",
                    "no marked trace in the batch (" + spans.size() + " spans; marker " + marker.key() + "="
                            + marker.value() + "): propagation not verified"));
            return out;
        }
        for (MarkerLoss loss : walk.losses) {
            out.add(new CheckResult(NAME, Outcome.FAIL, loss.entry(), evidence(loss, marker, walk.tracesOf(loss))));
        }
        if (out.isEmpty()) {
            out.add(new CheckResult(NAME, Outcome.PASS, "marked traces",
                    walk.markedTraces + " marked traces from " + walk.markedByEntry.size() + " entries "
                            + walk.markedByEntry.keySet() + ": all " + walk.checkedSpans + " in-scope spans carry "
                            + marker.key() + "=" + marker.value() + " (" + walk.linksFollowed
                            + " span links followed, " + walk.boundarySpans + " spans beyond the scope boundary)"));
        }
        return out;
    }

    /** The losses found in {@code spans}, grouped (see {@link MarkerLoss}), in order of first appearance. */
    public static List<MarkerLoss> losses(List<Span> spans, Set<String> scopeServices, Marker marker) {
        return walk(new SpanGraph(spans), scopeServices, marker).losses;
    }

    private static String evidence(MarkerLoss l, Marker marker, List<String> traceIds) {
        StringBuilder b = new StringBuilder();
        b.append("marker lost at ").append(l.hop().words()).append(": first span without ")
                .append(marker.key()).append('=').append(marker.value()).append(" is ")
                .append(l.service()).append(" '").append(l.operation()).append("' (span ").append(l.spanId());
        if (!l.thread().isEmpty()) {
            b.append(", thread ").append(l.thread());
        }
        b.append(", trace ").append(l.traceId()).append(')');
        if (l.hop() == MarkerLoss.Hop.NEW_TRACE) {
            b.append(", started without a parent while marked ").append(l.lastMarked()).append(" (trace ")
                    .append(l.markedTraceId()).append(") was in progress");
        } else {
            b.append(", below marked ").append(l.lastMarked());
        }
        if (!l.edge().isEmpty()) {
            b.append("; edge ").append(l.edge()).append(" runs without the marker");
        }
        b.append("; in ").append(l.traces()).append(" of ").append(l.markedTraces()).append(" marked traces of ")
                .append(l.entry());
        if (traceIds.size() > 1) {
            b.append(", e.g. ").append(String.join(", ", traceIds));
        }
        return b.toString();
    }

    private static final class Walk {
        final List<MarkerLoss> losses = new ArrayList<>();
        /** Distinct marked trace ids per loss key, in order of appearance. */
        final Map<String, LinkedHashSet<String>> traceIdsByLoss = new LinkedHashMap<>();
        final Map<String, Integer> markedByEntry = new TreeMap<>();
        int markedTraces;
        int checkedSpans;
        int linksFollowed;
        int boundarySpans;

        List<String> tracesOf(MarkerLoss l) {
            return traceIdsByLoss.getOrDefault(key(l), new LinkedHashSet<>()).stream()
                    .limit(QUOTED_TRACES).toList();
        }

        static String key(MarkerLoss l) {
            return l.entry() + '\n' + l.service() + '\n' + l.operation() + '\n' + l.hop() + '\n' + l.edge();
        }

        void add(MarkerLoss found) {
            String k = key(found);
            LinkedHashSet<String> ids = traceIdsByLoss.get(k);
            if (ids == null) {
                losses.add(found);
                traceIdsByLoss.put(k, new LinkedHashSet<>(List.of(found.markedTraceId())));
            } else {
                ids.add(found.markedTraceId());
            }
        }
    }

    private static Walk walk(SpanGraph g, Set<String> scope, Marker marker) {
        Walk w = new Walk();
        int n = g.size();
        boolean[] marked = new boolean[n];
        for (int i = 0; i < n; i++) {
            marked[i] = MarkerOnSpan.carries(g.span(i), marker);
        }
        boolean[] visited = new boolean[n];
        int[] entryOf = new int[n];
        Arrays.fill(entryOf, -1);
        for (int root = 0; root < n; root++) {
            if (!g.isRoot(root) || !marked[root]) {
                continue;
            }
            w.markedTraces++;
            w.markedByEntry.merge(g.interfaceNode[root], 1, Integer::sum);
            // frame: span index, whether the walk has entered the scope on this path
            Deque<int[]> stack = new ArrayDeque<>();
            stack.push(new int[] {root, -1, 0});
            while (!stack.isEmpty()) {
                int[] f = stack.pop();
                int i = f[0];
                int from = f[1];
                boolean entered = f[2] == 1;
                if (visited[i]) {
                    continue;
                }
                visited[i] = true;
                entryOf[i] = root;
                Span s = g.span(i);
                boolean inScope = scope.contains(s.service());
                if (!inScope && entered) {
                    w.boundarySpans++;
                    continue;
                }
                if (inScope) {
                    w.checkedSpans++;
                    if (!marked[i]) {
                        w.add(lossAt(g, root, from, i));
                        continue;
                    }
                }
                for (int c : g.next(i)) {
                    if (g.viaLink(i, c)) {
                        w.linksFollowed++;
                    }
                    stack.push(new int[] {c, i, entered || inScope ? 1 : 0});
                }
            }
        }
        orphans(g, scope, marked, visited, entryOf, w);
        // fill the counts: distinct marked traces with the loss, marked traces of the entry
        for (int i = 0; i < w.losses.size(); i++) {
            MarkerLoss l = w.losses.get(i);
            w.losses.set(i, new MarkerLoss(l.entry(), l.hop(), l.service(), l.operation(), l.spanId(), l.traceId(),
                    l.thread(), l.lastMarked(), l.markedTraceId(), l.edge(), w.traceIdsByLoss.get(Walk.key(l)).size(),
                    w.markedByEntry.getOrDefault(l.entry(), 0)));
        }
        return w;
    }

    private static MarkerLoss lossAt(SpanGraph g, int root, int from, int i) {
        Span s = g.span(i);
        String thread = s.attributes().getOrDefault("thread.name", "");
        MarkerLoss.Hop hop;
        String edge;
        if (from < 0) {
            hop = MarkerLoss.Hop.REMOTE; // cannot happen for a marked root; kept total
            edge = downstreamEdge(g, i);
        } else {
            Span p = g.span(from);
            if (g.viaLink(from, i) || p.kind() == SpanKind.PRODUCER || s.kind() == SpanKind.CONSUMER) {
                hop = MarkerLoss.Hop.MESSAGING;
            } else if (!p.service().equals(s.service())) {
                hop = MarkerLoss.Hop.REMOTE;
            } else {
                String parentThread = p.attributes().getOrDefault("thread.name", "");
                hop = !thread.isEmpty() && !parentThread.isEmpty() && !thread.equals(parentThread)
                        ? MarkerLoss.Hop.ASYNC : MarkerLoss.Hop.IN_PROCESS;
            }
            edge = p.service().equals(s.service()) ? downstreamEdge(g, i) : p.service() + "->" + s.service();
        }
        return new MarkerLoss(g.interfaceNode[root], hop, s.service(), s.operation(), s.spanId(), s.traceId(), thread,
                from < 0 ? "" : g.describe(from), s.traceId(), edge, 1, 0);
    }

    /** First service edge at or below span {@code i} (breadth first), {@code ""} when none. */
    private static String downstreamEdge(SpanGraph g, int i) {
        Deque<Integer> queue = new ArrayDeque<>();
        queue.add(i);
        Set<Integer> seen = new HashSet<>();
        seen.add(i);
        while (!queue.isEmpty()) {
            int a = queue.poll();
            Span sa = g.span(a);
            List<Integer> next = g.next(a);
            for (int b : next) {
                if (!g.span(b).service().equals(sa.service())) {
                    return sa.service() + "->" + g.span(b).service();
                }
            }
            if (next.isEmpty() && sa.kind().makesCall() && !sa.peerService().isEmpty()
                    && !sa.peerService().equals(sa.service())) {
                return sa.service() + "->" + sa.peerService();
            }
            for (int b : next) {
                if (seen.add(b)) {
                    queue.add(b);
                }
            }
        }
        return "";
    }

    /**
     * Parentless in-scope work (see class comment) attributed to the call its service was handling when it
     * started: among the service's SERVER/CONSUMER spans, the latest-starting one in progress at the orphan's
     * start, else the latest-ending one that ended at most {@link #ORPHAN_GRACE_NANOS} before it. Only an
     * attribution to a span of a marked trace is a loss.
     */
    private static void orphans(SpanGraph g, Set<String> scope, boolean[] marked, boolean[] visited, int[] entryOf,
                                Walk w) {
        Map<String, List<Integer>> handlersByService = new TreeMap<>();
        for (int i = 0; i < g.size(); i++) {
            Span s = g.span(i);
            if (s.kind().receivesCall() && scope.contains(s.service())) {
                handlersByService.computeIfAbsent(s.service(), k -> new ArrayList<>()).add(i);
            }
        }
        Map<String, Long> maxDurationByService = new TreeMap<>();
        for (Map.Entry<String, List<Integer>> e : handlersByService.entrySet()) {
            e.getValue().sort(Comparator.comparingLong(h -> g.span(h).startEpochNanos()));
            for (int h : e.getValue()) {
                maxDurationByService.merge(e.getKey(), g.span(h).durationNanos(), Math::max);
            }
        }
        for (int i = 0; i < g.size(); i++) {
            Span s = g.span(i);
            boolean startsWork = s.kind() == SpanKind.CLIENT || s.kind() == SpanKind.PRODUCER
                    || s.kind() == SpanKind.INTERNAL;
            if (s.hasParent() || g.linksIntoBatch[i] || !startsWork || marked[i] || !scope.contains(s.service())
                    || s.attributes().getOrDefault("thread.name", "").startsWith(RICHTER_THREAD_PREFIX)) {
                continue;
            }
            long t = s.startEpochNanos();
            int inProgress = -1;
            int endedBefore = -1;
            List<Integer> handlers = handlersByService.getOrDefault(s.service(), List.of());
            long horizon = t - maxDurationByService.getOrDefault(s.service(), 0L) - ORPHAN_GRACE_NANOS;
            // handlers are sorted by start: walk back from the last one that started by t, until none can reach t
            for (int k = lastStartedBy(g, handlers, t); k >= 0; k--) {
                int h = handlers.get(k);
                Span hs = g.span(h);
                if (hs.startEpochNanos() < horizon) {
                    break;
                }
                long end = hs.startEpochNanos() + hs.durationNanos();
                if (t <= end) {
                    if (inProgress < 0) {
                        inProgress = h; // the first found walking back is the latest-starting one
                    }
                } else if (t - end <= ORPHAN_GRACE_NANOS) {
                    if (endedBefore < 0 || end > g.span(endedBefore).startEpochNanos() + g.span(endedBefore).durationNanos()) {
                        endedBefore = h;
                    }
                }
            }
            int handler = inProgress >= 0 ? inProgress : endedBefore;
            if (handler < 0 || !visited[handler] || !marked[handler] || entryOf[handler] < 0) {
                continue;
            }
            w.add(new MarkerLoss(g.interfaceNode[entryOf[handler]], MarkerLoss.Hop.NEW_TRACE, s.service(), s.operation(),
                    s.spanId(), s.traceId(), s.attributes().getOrDefault("thread.name", ""), g.describe(handler),
                    g.span(handler).traceId(), downstreamEdge(g, i), 1, 0));
        }
    }

    /** Index of the last handler (sorted by start) that started at or before {@code t}, -1 when none. */
    private static int lastStartedBy(SpanGraph g, List<Integer> handlers, long t) {
        int lo = 0;
        int hi = handlers.size() - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (g.span(handlers.get(mid)).startEpochNanos() <= t) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }
}
