package dev.richter.checks.safety;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.common.model.Marker;
import dev.richter.links.middleware.MiddlewareInventory;
import dev.richter.links.middleware.MiddlewareUse;
import dev.richter.links.middleware.MiddlewareUse.Standing;
import dev.richter.links.trace.Span;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Check {@value #NAME}: every client and store a scope service really uses on marked traffic is one Richter's agent
 * extension guards (issue 46 item 6; the platform we follow refused a service whose middleware its isolation did not
 * support). What a service uses is read from its spans ({@link MiddlewareInventory}: the instrumentation scope that
 * recorded each span, its kind, {@code db.system}, {@code messaging.system}, {@code rpc.system}); what is guarded is
 * the one table {@link dev.richter.links.middleware.GuardedMiddleware}.
 *
 * <p>The rule, per scope service and library ({@link MiddlewareUse#verdict()}):
 * <ul>
 *   <li>guarded by the extension: PASS;</li>
 *   <li>not guarded and never in a marked trace: PASS, listed ("not on marked traffic");</li>
 *   <li>not guarded, an HTTP or RPC client, and every one of its marked calls reached a service in scope that itself
 *       proved its isolation (the call's child SERVER span is that service's and carries {@code
 *       richter.isolation.active=true}, as {@value IsolationEnforcedCheck#NAME} reads it): PASS with that evidence,
 *       "unguarded, but every marked call went to an in-scope service that enforces isolation" (e.g. a bare Netty or
 *       Jetty client calling a service that runs the extension);</li>
 *   <li>not guarded, a server (a gRPC server, a Servlet 2.x container): WARN, its marked requests are no exits, but it has no
 *       503 gate before the isolation document loads;</li>
 *   <li>anything else not guarded in a marked trace FAILs, naming the library, its version and the service: an
 *       unguarded store (Redisson, RabbitMQ, the AWS SDK for Java 1: what it writes lands in the store, with no service
 *       after it to prove anything), an unguarded client one of whose marked calls reached no isolating in-scope
 *       service (an exit, a service outside the scope, a call that failed before any server answered), and every
 *       library no row of the table names (fail closed).</li>
 * </ul>
 * Libraries are named with the versions their instrumentation covers and the scope's version ({@code reactor-netty
 * HttpClient 1.0+ (io.opentelemetry.reactor-netty-1.0 2.22.0-alpha)}): the OpenTelemetry Java agent records its own
 * version as the scope's, never the library's.
 *
 * <p>Where it runs. Marked traces exist only once marked traffic ran, so the check that decides is dynamic: {@link
 * #check} on the pre-test's spans, in the dynamic gate, which comes before the warm-up and the formal stage (issue 46
 * item 1: the pre-test is the run's only marked load before it), so an unguarded client seen on marked traffic stops
 * the run before its formal stage. The static gate runs {@link #checkRecorded} on what every earlier ingest recorded
 * ({@code LinkService.middleware}) and only WARNs: those counts add up across ingests and no ingest can show a client
 * gone, so a FAIL from them would hold the gate shut after the team fixed the service; and an ingest does not know the
 * run's scope, so it counts any service's proof for a callee.
 */
public final class GuardedMiddlewareCheck {
    /** Check name in {@link CheckResult#name()}. */
    public static final String NAME = "guarded-middleware";
    static final String VOUCHED = "unguarded, but every marked call went to an in-scope service that enforces isolation";

    private GuardedMiddlewareCheck() {}

    /**
     * The dynamic check on one batch of spans (the pre-test's traces).
     *
     * @param spans normalized spans of the batch
     * @param scope service names of the test scope: only their middleware is judged, and only their proof vouches
     * @param marker the team's marker
     * @return one result per scope service with middleware in the batch (subject: the service), in name order; one PASS
     *     with subject {@code marked traces} when no scope service shows any
     */
    public static List<CheckResult> check(List<Span> spans, Set<String> scope, Marker marker) {
        List<MiddlewareUse> uses = MiddlewareInventory.of(spans, marker, scope::contains);
        return judge(uses, scope, false);
    }

    /**
     * The static check on the middleware earlier ingests recorded; WARN where the dynamic check would FAIL (see the
     * class comment for why).
     *
     * @param recorded by service name, as {@code LinkService.middleware(teamId)} answers
     * @param scope service names of the test scope
     * @return one result per scope service with recorded middleware (subject: the service); one PASS with subject
     *     {@code recorded traces} when none has any
     */
    public static List<CheckResult> checkRecorded(Map<String, List<MiddlewareUse>> recorded, Set<String> scope) {
        List<MiddlewareUse> uses = new ArrayList<>();
        recorded.values().forEach(uses::addAll);
        return judge(uses, scope, true);
    }

    private static List<CheckResult> judge(List<MiddlewareUse> uses, Set<String> scope, boolean recorded) {
        Map<String, List<MiddlewareUse>> byService = new TreeMap<>();
        for (MiddlewareUse u : uses) {
            if (scope.contains(u.service())) {
                byService.computeIfAbsent(u.service(), k -> new ArrayList<>()).add(u);
            }
        }
        List<CheckResult> out = new ArrayList<>();
        if (byService.isEmpty()) {
            out.add(new CheckResult(NAME, Outcome.PASS, recorded ? "recorded traces" : "marked traces",
                    "no client, store or server of a scope service seen in the " + (recorded ? "recorded" : "batch's")
                            + " spans"));
            return out;
        }
        for (Map.Entry<String, List<MiddlewareUse>> e : byService.entrySet()) {
            Map<Standing, List<String>> by = new LinkedHashMap<>();
            for (MiddlewareUse u : e.getValue()) {
                String text = u.describe() + (u.seenMarked() ? ", " + u.markedCalls() + " marked calls" : "");
                if (u.verdict() == Standing.CALLEE_ISOLATED) {
                    text += " (" + VOUCHED + ")";
                }
                by.computeIfAbsent(u.verdict(), k -> new ArrayList<>()).add(text);
            }
            Outcome outcome = by.containsKey(Standing.UNGUARDED_ON_MARKED_TRAFFIC) ? (recorded ? Outcome.WARN : Outcome.FAIL)
                    : by.containsKey(Standing.UNGATED_SERVER) ? Outcome.WARN : Outcome.PASS;
            List<String> parts = new ArrayList<>();
            add(parts, by, Standing.UNGUARDED_ON_MARKED_TRAFFIC, "not guarded by Richter's agent extension, on marked"
                    + " traffic" + (recorded ? " in earlier ingested traces (the pre-test's check decides)" : ""));
            add(parts, by, Standing.UNGATED_SERVER, "server not gated (no 503 before the isolation document loads)");
            add(parts, by, Standing.CALLEE_ISOLATED, "not guarded, vouched for by its callees");
            add(parts, by, Standing.GUARDED, "guarded");
            add(parts, by, Standing.NOT_ON_MARKED_TRAFFIC, "not guarded, not on marked traffic");
            out.add(new CheckResult(NAME, outcome, e.getKey(), String.join("; ", parts)));
        }
        return out;
    }

    private static void add(List<String> parts, Map<Standing, List<String>> by, Standing v, String label) {
        if (by.containsKey(v)) {
            parts.add(label + ": " + String.join(", ", by.get(v)));
        }
    }
}
