package dev.richter.checks.safety;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.common.model.Marker;
import dev.richter.links.Exit;
import dev.richter.links.LinkComparison;
import dev.richter.links.graph.Dimension;
import dev.richter.links.graph.Edge;
import dev.richter.links.graph.EdgeExtractor;
import dev.richter.links.graph.ExtractedLinks;
import dev.richter.links.trace.Span;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Dynamic check {@value #NAME}: marked (test) traffic takes the same links as unmarked (real)
 * traffic of the same entries.
 *
 * <p>An edge seen only under marked traffic is FAIL: the load test reaches somewhere real traffic
 * does not (a shadow switch routing to a wrong target, a test-only branch, a mock that calls out).
 * An edge seen only under real traffic is WARN: coverage — the test does not exercise it. A changed
 * shortest depth (stored link sets only) is WARN.
 */
public final class LinkComparisonCheck {
    /** Check name in {@link CheckResult#name()}. */
    public static final String NAME = "test-vs-real-links";

    private LinkComparisonCheck() {}

    /**
     * From stored link sets ({@code LinkService.compare(realTeamId, markedTeamId, dimension)}).
     *
     * @param comparison baseline = real traffic, candidate = marked traffic
     * @return FAIL per extra edge, WARN per missing edge and per changed depth (subject: the edge
     *     {@code from -> to} or the node), or one PASS when the link sets are the same
     */
    public static List<CheckResult> check(LinkComparison comparison) {
        List<CheckResult> out = new ArrayList<>();
        String scopes = "marked " + comparison.candidateTeamId() + " vs real " + comparison.baselineTeamId() + " ("
                + comparison.dimension().wireName() + " dimension)";
        for (Edge e : comparison.extraEdges()) {
            out.add(new CheckResult(NAME, Outcome.FAIL, e.from() + " -> " + e.to(),
                    "edge only under marked traffic: " + scopes));
        }
        for (Edge e : comparison.missingEdges()) {
            out.add(new CheckResult(NAME, Outcome.WARN, e.from() + " -> " + e.to(),
                    "edge of real traffic not exercised by marked traffic (coverage): " + scopes));
        }
        for (LinkComparison.DepthChange d : comparison.changedDepths()) {
            out.add(new CheckResult(NAME, Outcome.WARN, d.node(), "shortest depth below " + d.entry() + " is "
                    + d.candidateDepth() + " under marked traffic, " + d.baselineDepth() + " under real traffic: "
                    + scopes));
        }
        if (out.isEmpty()) {
            out.add(new CheckResult(NAME, Outcome.PASS, comparison.candidateTeamId(), "same edges and depths: " + scopes));
        }
        return out;
    }

    /**
     * From one batch holding both kinds of traffic. Spans are grouped into connected units (parent
     * references and span links, so a messaging hop stays with its producer); a unit is marked when a
     * root span carries the marker. Each unit's edges ({@link EdgeExtractor}) count for each of its
     * entries. Only entries seen under both kinds of traffic are compared.
     *
     * @param spans normalized spans of one batch
     * @param marker the team's marker
     * @param dimension service or interface edges
     * @return per common entry: FAIL per extra edge, WARN per missing edge (subject: the entry), or
     *     one PASS with the edge count; one WARN when no entry was seen under both
     */
    public static List<CheckResult> check(List<Span> spans, Marker marker, Dimension dimension) {
        return check(spans, marker, dimension, List.of());
    }

    /**
     * As {@link #check(List, Marker, Dimension)}, but an edge of real traffic into an exit annotated mock
     * required is expected to be missing under marked traffic (the mock answers instead) and is not WARN.
     *
     * @param exits the scope's exits ({@code LinkService.exits}); mock-required ones matter
     */
    public static List<CheckResult> check(List<Span> spans, Marker marker, Dimension dimension, List<Exit> exits) {
        List<Exit> mocked = exits.stream().filter(Exit::mockRequired).toList();
        SpanGraph g = new SpanGraph(spans);
        int n = g.size();
        int[] uf = new int[n];
        for (int i = 0; i < n; i++) {
            uf[i] = i;
        }
        for (int i = 0; i < n; i++) {
            if (g.parent[i] >= 0) {
                union(uf, i, g.parent[i]);
            }
            for (int c : g.linkChildren.get(i)) {
                union(uf, i, c);
            }
        }
        Map<Integer, List<Integer>> units = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            units.computeIfAbsent(find(uf, i), k -> new ArrayList<>()).add(i);
        }
        Map<String, SortedSet<Edge>> marked = new TreeMap<>();
        Map<String, SortedSet<Edge>> real = new TreeMap<>();
        Map<String, int[]> unitCounts = new TreeMap<>(); // entry -> {marked units, real units}
        for (List<Integer> unit : units.values()) {
            boolean isMarked = false;
            List<Span> unitSpans = new ArrayList<>(unit.size());
            for (int i : unit) {
                unitSpans.add(g.span(i));
                isMarked |= g.isRoot(i) && MarkerOnSpan.carries(g.span(i), marker);
            }
            ExtractedLinks links = EdgeExtractor.extract(unitSpans, List.of());
            for (String entry : links.entries(dimension)) {
                (isMarked ? marked : real).computeIfAbsent(entry, k -> new TreeSet<>())
                        .addAll(links.edges(dimension).keySet());
                unitCounts.computeIfAbsent(entry, k -> new int[2])[isMarked ? 0 : 1]++;
            }
        }
        List<CheckResult> out = new ArrayList<>();
        Set<String> common = new TreeSet<>(marked.keySet());
        common.retainAll(real.keySet());
        if (common.isEmpty()) {
            out.add(new CheckResult(NAME, Outcome.WARN, "entries", "no entry seen under both marked and real traffic"
                    + " (marked: " + marked.keySet() + ", real: " + real.keySet() + "): links not compared"));
            return out;
        }
        for (String entry : common) {
            int[] c = unitCounts.get(entry);
            String counts = c[0] + " marked vs " + c[1] + " real traces, " + dimension.wireName() + " dimension";
            int before = out.size();
            int answeredByMocks = 0;
            for (Edge e : marked.get(entry)) {
                if (!real.get(entry).contains(e)) {
                    out.add(new CheckResult(NAME, Outcome.FAIL, entry, "edge " + e.from() + " -> " + e.to()
                            + " only under marked traffic (" + counts + ")"));
                }
            }
            for (Edge e : real.get(entry)) {
                if (!marked.get(entry).contains(e) && mocked.stream().anyMatch(x -> intoExit(e, x))) {
                    answeredByMocks++;
                } else if (!marked.get(entry).contains(e)) {
                    out.add(new CheckResult(NAME, Outcome.WARN, entry, "edge " + e.from() + " -> " + e.to()
                            + " of real traffic not exercised by marked traffic (coverage; " + counts + ")"));
                }
            }
            if (out.size() == before) {
                out.add(new CheckResult(NAME, Outcome.PASS, entry, "same " + marked.get(entry).size() + " edges ("
                        + counts + (answeredByMocks == 0 ? "" : "; " + answeredByMocks
                        + " edges into mock-required exits answered by mocks") + ")"));
            }
        }
        return out;
    }

    /** True when edge {@code e} goes into {@code exit} (its node, or any node of its service for a service exit). */
    static boolean intoExit(Edge e, Exit exit) {
        return e.to().equals(exit.toNode()) || e.to().equals(exit.toService())
                || (exit.toNode().isEmpty() || exit.toNode().equals(exit.toService()))
                        && e.to().startsWith(exit.toService() + " ");
    }

    private static int find(int[] uf, int x) {
        while (uf[x] != x) {
            uf[x] = uf[uf[x]];
            x = uf[x];
        }
        return x;
    }

    private static void union(int[] uf, int a, int b) {
        int ra = find(uf, a);
        int rb = find(uf, b);
        if (ra != rb) {
            uf[Math.max(ra, rb)] = Math.min(ra, rb);
        }
    }
}
