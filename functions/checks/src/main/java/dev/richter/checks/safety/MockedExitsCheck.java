package dev.richter.checks.safety;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.common.model.Marker;
import dev.richter.links.Exit;
import dev.richter.links.graph.Dimension;
import dev.richter.links.graph.ExitNode;
import dev.richter.links.trace.Span;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Dynamic check {@value #NAME}: under marked traffic no call reaches, for real, an exit annotated
 * "mock required".
 *
 * <p>Marked traffic: every trace holding a span that carries the marker ({@link MarkerOnSpan}),
 * together with the traces joined to it by span links (messaging hops). In it:
 * <ul>
 *   <li>a <b>real call</b> is a span of the exit's service (outside the scope) whose parent or linked
 *       producer is in a scope service, or a CLIENT/PRODUCER span of a scope service to an
 *       uninstrumented peer ({@link Span#peerService()}) that is the exit and is not marked as mocked;</li>
 *   <li>a <b>mocked call</b> is a span with {@value #MOCK_ATTRIBUTE}={@value #MOCK_ATTRIBUTE_VALUE}
 *       (what {@code dev.richter.sdk.ExitMocks} asks its caller to set), attributed to the exit by
 *       {@value #MOCK_EXIT_ATTRIBUTE} when present. A mocked span with a child in the exit's service is
 *       still a real call: the child proves the request left.</li>
 * </ul>
 * An exit matches a called node when the services are equal and the exit's {@link Exit#toNode()} is
 * the service itself (service dimension) or the called interface node, e.g. {@code payment POST /charge}.
 */
public final class MockedExitsCheck {
    /** Check name in {@link CheckResult#name()}. */
    public static final String NAME = "mocked-exit";
    /** Span attribute that marks a call answered by a mock (same constant as {@code dev.richter.sdk.ExitMocks}). */
    public static final String MOCK_ATTRIBUTE = "richter.mock";
    /** Value of {@link #MOCK_ATTRIBUTE} on a mocked call. */
    public static final String MOCK_ATTRIBUTE_VALUE = "true";
    /** Span attribute naming the mocked exit, e.g. {@code payment POST /charge}. */
    public static final String MOCK_EXIT_ATTRIBUTE = "richter.mock.exit";
    static final int QUOTED_CALLS = 5;

    private MockedExitsCheck() {}

    /**
     * @param spans normalized spans of one batch (e.g. the pre-test's traces)
     * @param scopeServices service names of the test scope
     * @param exits the scope's exits (e.g. {@code LinkService.exits}); only those with
     *     {@link Exit#mockRequired()} are checked
     * @param marker the team's marker
     * @return per mock-required exit (subject: its {@code toNode}): FAIL naming the trace ids of real
     *     calls, else PASS with the mocked-call count; one PASS when no exit requires a mock
     */
    public static List<CheckResult> check(List<Span> spans, Set<String> scopeServices, List<Exit> exits,
                                          Marker marker) {
        return check(spans, scopeServices, exits, marker, Map.of());
    }

    /**
     * {@link #check(List, Set, List, Marker)}, where {@code exitAddresses} gives the {@code host:port} of exit services
     * by name: a mocked span may name its exit under that address, as the agent extension does ({@code
     * richter.mock.exit=10.0.3.7:8083 POST /charge} for the exit {@code payment POST /charge} of {@code payment} at
     * {@code 10.0.3.7:8083}).
     */
    public static List<CheckResult> check(List<Span> spans, Set<String> scopeServices, List<Exit> exits,
                                          Marker marker, Map<String, String> exitAddresses) {
        Map<String, Exit> required = MockRequiredExits.byNode(exits);
        List<CheckResult> out = new ArrayList<>();
        if (required.isEmpty()) {
            out.add(new CheckResult(NAME, Outcome.PASS, "exits", "no exit is annotated mock required"));
            return out;
        }
        SpanGraph g = new SpanGraph(spans);
        boolean[] markedTraffic = g.markedTraffic(marker);
        Map<String, List<String>> real = new LinkedHashMap<>();
        Map<String, Integer> realCount = new HashMap<>();
        Map<String, Integer> mocked = new HashMap<>();
        for (int i = 0; i < g.size(); i++) {
            if (!markedTraffic[i]) {
                continue;
            }
            Span s = g.span(i);
            boolean inScope = scopeServices.contains(s.service());
            if (isMocked(s)) {
                for (Map.Entry<String, Exit> e : required.entrySet()) {
                    if (mockNames(s, e.getValue(), exitAddresses)) {
                        mocked.merge(e.getKey(), 1, Integer::sum);
                    }
                }
            }
            int caller = g.parent[i] >= 0 ? g.parent[i] : g.linkParent[i];
            if (!inScope && caller >= 0 && scopeServices.contains(g.span(caller).service())) {
                String node = Dimension.interfaceNode(s.service(), s.operation());
                for (Map.Entry<String, Exit> e : required.entrySet()) {
                    if (matches(e.getValue(), s.service(), node)) {
                        record(real, realCount, e.getKey(), s.traceId() + " (" + g.describe(caller) + " -> "
                                + g.describe(i) + ")");
                    }
                }
            }
            if (inScope && s.kind().makesCall() && !s.peerService().isEmpty()
                    && !scopeServices.contains(s.peerService()) && !isMocked(s) && !callsOut(g, i)) {
                String node = ExitNode.of(s);
                for (Map.Entry<String, Exit> e : required.entrySet()) {
                    if (matches(e.getValue(), s.peerService(), node)) {
                        record(real, realCount, e.getKey(), s.traceId() + " (" + g.describe(i) + " -> "
                                + s.peerService() + ", uninstrumented)");
                    }
                }
            }
        }
        for (Map.Entry<String, Exit> e : required.entrySet()) {
            String key = e.getKey();
            int m = mocked.getOrDefault(key, 0);
            int r = realCount.getOrDefault(key, 0);
            if (r > 0) {
                out.add(new CheckResult(NAME, Outcome.FAIL, key, r + " marked calls reached " + key
                        + " for real (mock required; no " + MOCK_ATTRIBUTE + "=" + MOCK_ATTRIBUTE_VALUE + "), trace "
                        + String.join(", trace ", real.get(key)) + (r > QUOTED_CALLS ? ", …" : "")
                        + "; " + m + " mocked calls"));
            } else {
                out.add(new CheckResult(NAME, Outcome.PASS, key, m == 0
                        ? "no marked call reached " + key + " (none mocked either: the exit was not exercised)"
                        : m + " marked calls answered by the mock (" + MOCK_ATTRIBUTE + "=" + MOCK_ATTRIBUTE_VALUE
                                + "), 0 real"));
            }
        }
        return out;
    }

    /** True when the exit covers the called {@code service} / interface {@code node}. */
    static boolean matches(Exit exit, String service, String node) {
        return exit.toService().equals(service)
                && (exit.toNode().isEmpty() || exit.toNode().equals(service) || exit.toNode().equals(node));
    }

    private static boolean isMocked(Span s) {
        return MOCK_ATTRIBUTE_VALUE.equals(s.attributes().getOrDefault(MOCK_ATTRIBUTE, "").trim());
    }

    /** True when a mocked span names {@code exit} (or names nothing: then it counts for every exit of its call). */
    private static boolean mockNames(Span s, Exit exit, Map<String, String> exitAddresses) {
        String named = s.attributes().getOrDefault(MOCK_EXIT_ATTRIBUTE, "").trim();
        if (named.isEmpty()) {
            return exit.toService().equals(s.peerService());
        }
        String address = exitAddresses.get(exit.toService());
        if (address != null && (named.equals(address) || named.startsWith(address + " ") || named.startsWith(address + "/"))) {
            // the service's name written as its address: payment POST /charge ≡ 10.0.3.7:8083 POST /charge
            named = exit.toService() + named.substring(address.length());
        }
        return named.equals(exit.toNode()) || named.equals(exit.toService())
                || named.startsWith(exit.toService() + " ") && exit.toNode().equals(exit.toService());
    }

    private static boolean callsOut(SpanGraph g, int i) {
        for (int c : g.next(i)) {
            if (!g.span(c).service().equals(g.span(i).service())) {
                return true;
            }
        }
        return false;
    }

    private static void record(Map<String, List<String>> real, Map<String, Integer> count, String key, String call) {
        count.merge(key, 1, Integer::sum);
        List<String> l = real.computeIfAbsent(key, k -> new ArrayList<>());
        if (l.size() < QUOTED_CALLS) {
            l.add(call);
        }
    }
}
