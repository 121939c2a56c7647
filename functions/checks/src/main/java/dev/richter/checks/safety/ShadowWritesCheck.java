package dev.richter.checks.safety;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.common.model.Marker;
import dev.richter.common.model.RegisteredService;
import dev.richter.links.datastore.DatastoreCall;
import dev.richter.links.trace.Span;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Dynamic check {@value #NAME}: in the pre-test's traces, marked traffic wrote and read only shadows, and real traffic
 * never touched one.
 *
 * <p>Per database, cache and messaging CLIENT/PRODUCER span of a scope service ({@link DatastoreCall#of}: what the
 * application asked for, by the agent's semantic conventions), in marked traffic (traces holding a marked span,
 * closed over span links, as {@link MockedExitsCheck} reads it):
 * <ul>
 *   <li>{@value DatastoreCall#REFUSED}: the agent extension refused the call, nothing was sent: no leak, listed;</li>
 *   <li>{@value DatastoreCall#WOULD_REFUSE}: FAIL, the extension's report mode let it through;</li>
 *   <li>{@value DatastoreCall#SHADOW_TARGET} on the span: routed to that shadow. The extension decides a prepared
 *       statement when it is prepared and a pooled connection's schema when it is taken from the pool, and stamps that
 *       on the span current then (the request's SERVER span, in the agent's real output): a span without its own
 *       stamp is routed when the nearest span above it in the same service names the shadow of its target, or a
 *       declared shadow schema for an unqualified table;</li>
 *   <li>else every target is looked up in the team's declared datastores ({@link ShadowMap}): a write (SQL writes and
 *       DDL, Redis write commands, publish/send; unknown operations count as writes) to anything but a shadow FAILs;
 *       a read of a production target that has a shadow FAILs (marked reads must see shadow data); a read of an
 *       undeclared target is reference data: PASS, listed. A call whose targets cannot be read (its statement does
 *       not parse and no table attribute was recorded; a Redis call naming no key; a write naming no table, e.g.
 *       {@code CALL}) FAILs: isolation cannot be proven.</li>
 * </ul>
 * A span of real traffic that carries {@value DatastoreCall#SHADOW_TARGET} or names a declared shadow FAILs: real
 * traffic must never see shadow data.
 *
 * <p>Each failure names trace, span, service, operation and target, e.g. {@code trace 4bf9… span 00f0… inventory
 * INSERT stock (production, shadow stock_shadow): marked write reached production}; equal failures (service,
 * operation, target, reason) are one result counting the calls. At most {@value #MAX_FAILURES} failure results, the
 * rest counted in the summary, which closes the list: PASS when nothing failed, else FAIL, with the counts, the
 * refused calls and the reference data read.
 */
public final class ShadowWritesCheck {
    /** Check name in {@link CheckResult#name()}. */
    public static final String NAME = "shadow-writes";
    /** Failure results listed; further ones are counted in the summary. */
    static final int MAX_FAILURES = 20;
    /** Refused calls and reference targets quoted in the summary. */
    static final int QUOTED = 10;

    private ShadowWritesCheck() {}

    /**
     * @param spans normalized spans of one batch (e.g. the pre-test's traces)
     * @param scopeServices service names of the test scope, as in {@link Span#service()}
     * @param services the team's registered services: their declared datastores say what is a shadow
     * @param marker the team's marker
     * @return the failures (subject {@code service kind target}), then the summary (subject {@code marked datastore
     *     calls}); one WARN instead of the summary when the batch holds no marked span
     */
    public static List<CheckResult> check(List<Span> spans, Set<String> scopeServices, List<RegisteredService> services,
                                          Marker marker) {
        SpanGraph g = new SpanGraph(spans);
        boolean[] marked = g.markedTraffic(marker);
        ShadowMap map = ShadowMap.of(services);
        Tally t = new Tally();
        for (int i = 0; i < g.size(); i++) {
            Span s = g.span(i);
            Optional<DatastoreCall> call = DatastoreCall.of(s);
            if (call.isEmpty() || call.get().control() || !scopeServices.contains(s.service())) {
                continue;
            }
            if (marked[i]) {
                t.markedTraces.add(s.traceId());
                t.markedCalls++;
                judgeMarked(g, i, call.get(), map, t);
            } else {
                judgeUnmarked(s, call.get(), map, t);
            }
        }
        List<CheckResult> out = new ArrayList<>();
        int listed = 0;
        for (Failure f : t.failures.values()) {
            if (listed++ < MAX_FAILURES) {
                out.add(new CheckResult(NAME, Outcome.FAIL, f.subject, f.evidence + (f.calls > 1 ? " (" + f.calls
                        + " calls)" : "")));
            }
        }
        if (t.markedTraces.isEmpty() && t.failures.isEmpty()) {
            out.add(new CheckResult(NAME, Outcome.WARN, "marked datastore calls", "no marked trace with a datastore call"
                    + " of " + scopeServices + " (" + marker.key() + "=" + marker.value()
                    + "): shadow routing not verified"));
            return out;
        }
        out.add(new CheckResult(NAME, t.failures.isEmpty() ? Outcome.PASS : Outcome.FAIL, "marked datastore calls",
                summary(t)));
        return out;
    }

    private static void judgeMarked(SpanGraph g, int i, DatastoreCall c, ShadowMap map, Tally t) {
        Span s = g.span(i);
        String refused = s.attributes().getOrDefault(DatastoreCall.REFUSED, "").strip();
        if (!refused.isEmpty()) {
            t.refused.add(s.service() + " " + c.operation() + " " + String.join(",", c.targets()) + " (trace "
                    + s.traceId() + ")");
            return;
        }
        String wouldRefuse = s.attributes().getOrDefault(DatastoreCall.WOULD_REFUSE, "").strip();
        if (!wouldRefuse.isEmpty()) {
            t.fail(s, c, String.join(",", c.targets()), "unrouted", "report mode let a marked call through: "
                    + wouldRefuse);
            return;
        }
        if (!s.attributes().getOrDefault(DatastoreCall.SHADOW_TARGET, "").isBlank()) {
            t.shadowCalls++;
            return;
        }
        if (!c.problem().isEmpty() || c.write() && c.targets().isEmpty()) {
            t.fail(s, c, c.statement().isEmpty() ? "?" : c.statement(), "unread",
                    "cannot prove isolation of a marked call: " + (c.problem().isEmpty()
                            ? "a write that names no " + c.kind() : c.problem()));
            return;
        }
        String inherited = inheritedShadow(g, i);
        boolean allShadow = true;
        for (String target : c.written()) {
            ShadowMap.Match m = map.match(c.kind(), target, c.namespace());
            if (m.role() == ShadowMap.Role.SHADOW || routedAbove(inherited, m, c, target, map)) {
                continue;
            }
            allShadow = false;
            t.fail(s, c, target, role(m), m.role() == ShadowMap.Role.PRODUCTION
                    ? "marked write reached production" : "marked write reached a target that is no declared shadow");
        }
        for (String target : c.read()) {
            ShadowMap.Match m = map.match(c.kind(), target, c.namespace());
            if (m.role() == ShadowMap.Role.SHADOW || routedAbove(inherited, m, c, target, map)) {
                continue;
            }
            allShadow = false;
            if (m.role() == ShadowMap.Role.PRODUCTION) {
                t.fail(s, c, target, role(m), "marked read of production: marked reads must see shadow data");
            } else {
                t.reference.add(s.service() + " " + c.kind() + " " + target);
            }
        }
        if (allShadow) {
            t.shadowCalls++;
        }
    }

    private static void judgeUnmarked(Span s, DatastoreCall c, ShadowMap map, Tally t) {
        String stamped = s.attributes().getOrDefault(DatastoreCall.SHADOW_TARGET, "").strip();
        if (!stamped.isEmpty()) {
            t.fail(s, c, stamped, "shadow", "unmarked call reached a shadow");
            return;
        }
        for (String target : c.targets()) {
            ShadowMap.Match m = map.match(c.kind(), target, c.namespace());
            if (m.role() == ShadowMap.Role.SHADOW) {
                t.fail(s, c, target, "shadow", "unmarked call touched a shadow: real traffic must never see shadow data");
            }
        }
    }

    /** The nearest {@value DatastoreCall#SHADOW_TARGET} stamped above span {@code i} in its own service, or {@code ""}. */
    private static String inheritedShadow(SpanGraph g, int i) {
        String service = g.span(i).service();
        for (int p = g.parent[i], guard = 0; p >= 0 && guard < g.size(); p = g.parent[p], guard++) {
            if (!g.span(p).service().equals(service)) {
                return "";
            }
            String stamped = g.span(p).attributes().getOrDefault(DatastoreCall.SHADOW_TARGET, "").strip();
            if (!stamped.isEmpty()) {
                return stamped;
            }
        }
        return "";
    }

    /**
     * True when the shadow stamped above is this target's shadow (a key under it, for a cache), or a declared shadow
     * schema and the target an unqualified table (the connection's schema was switched).
     */
    private static boolean routedAbove(String inherited, ShadowMap.Match m, DatastoreCall c, String target, ShadowMap map) {
        if (inherited.isEmpty()) {
            return false;
        }
        if (!m.shadow().isEmpty() && (inherited.equalsIgnoreCase(m.shadow())
                || DatastoreCall.CACHE.equals(c.kind()) && inherited.startsWith(m.shadow()))) {
            return true;
        }
        return DatastoreCall.TABLE.equals(c.kind()) && !target.contains(".") && map.isSchemaShadow(inherited);
    }

    private static String role(ShadowMap.Match m) {
        return switch (m.role()) {
            case PRODUCTION -> "production, shadow " + m.shadow();
            case SHADOW -> "shadow";
            case UNMAPPED -> "no declared shadow";
        };
    }

    private static String summary(Tally t) {
        StringBuilder b = new StringBuilder();
        b.append(t.markedCalls).append(" marked datastore calls in ").append(t.markedTraces.size())
                .append(" marked traces: ").append(t.shadowCalls).append(" to shadows");
        int failed = t.failures.values().stream().mapToInt(f -> f.calls).sum();
        if (failed > 0) {
            b.append(", ").append(failed).append(" calls failed (").append(t.failures.size()).append(" distinct");
            if (t.failures.size() > MAX_FAILURES) {
                b.append(", ").append(t.failures.size() - MAX_FAILURES).append(" not listed");
            }
            b.append(')');
        }
        b.append("; refused by the agent extension (nothing sent): ").append(quoted(t.refused));
        b.append("; reference data read (no declared shadow): ").append(quoted(t.reference));
        return b.toString();
    }

    private static String quoted(Set<String> items) {
        if (items.isEmpty()) {
            return "none";
        }
        List<String> first = items.stream().limit(QUOTED).toList();
        return String.join(", ", first) + (items.size() > QUOTED ? ", … (" + items.size() + " in all)" : "");
    }

    private record Failure(String subject, String evidence, int calls) {}

    private static final class Tally {
        final Map<String, Failure> failures = new LinkedHashMap<>();
        final Set<String> markedTraces = new LinkedHashSet<>();
        final Set<String> refused = new LinkedHashSet<>();
        final Set<String> reference = new LinkedHashSet<>();
        int markedCalls;
        int shadowCalls;

        void fail(Span s, DatastoreCall c, String target, String role, String reason) {
            String key = s.service() + '\n' + c.operation() + '\n' + target + '\n' + reason;
            Failure old = failures.get(key);
            if (old != null) {
                failures.put(key, new Failure(old.subject, old.evidence, old.calls + 1));
                return;
            }
            failures.put(key, new Failure(s.service() + " " + c.kind() + " " + target, "trace " + s.traceId() + " span "
                    + s.spanId() + " " + s.service() + " " + c.operation() + " " + target + " (" + role + "): " + reason, 1));
        }
    }
}
