package dev.richter.checks.safety;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.common.model.Marker;
import dev.richter.links.trace.Span;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Dynamic check {@value #NAME}: the isolation of Richter's agent extension held for the marked traffic, as its own
 * span evidence tells (agent/README.md).
 *
 * <p>Marked traffic: every trace holding a span that carries the marker ({@link MarkerOnSpan}). Any span of it, of a
 * scope service, that bears
 * <ul>
 *   <li>{@value #REFUSED}: the extension refused a call the traffic made (an exit with no mock, a write with no
 *       shadow, a request before its configuration loaded). Nothing reached production, but the link under test is
 *       not the link the system runs, and the next change may leak: FAIL;</li>
 *   <li>{@value #WOULD_REFUSE}: report mode let through a call that enforce mode refuses, so it reached its real
 *       target: FAIL;</li>
 *   <li>{@value #MODE}{@code =report}: the extension decided in report mode (onboarding only), so nothing would
 *       have been refused: FAIL.</li>
 * </ul>
 * Isolation is proven from evidence, never read from the absence of a refusal: the extension stamps every span it
 * sees start in marked work with its proof ({@value #ACTIVE}{@code =true}, {@value #MODE}, {@value #DOCUMENT},
 * {@value #MODULES}; {@value #ACTIVE}{@code =false} and {@value #ERROR} when it could not start). A scope service
 * with a span that carries the marker but no {@value #ACTIVE}{@code =true} FAILs, named with its count of such
 * spans: its JVM runs without the extension, with one that failed to start or load (a Java older than its classes),
 * or with one older than the proof, and nothing there isolates its marked work.
 *
 * <p>A span with {@value #FORGED} is an inbound request whose marker's proof did not verify: the extension ran it as
 * production traffic, so it owes no proof of isolation. When the proof it rejected claims the run being checked, the
 * run's own marked work ran as production traffic (a stale key, a clock far off): FAIL, naming the service and the
 * reason. Other forged markers are counted in the evidence (someone else's requests, treated as production).
 *
 * <p>The evidence counts each kind and quotes the first {@value #QUOTED} spans: trace, span, service, span name and
 * the reason. PASS says how many marked traces were read and which services proved their isolation on.
 */
public final class IsolationEnforcedCheck {
    /** Check name in {@link CheckResult#name()}. */
    public static final String NAME = "isolation-enforced";
    /** The extension's span attribute of a refused call, holding the refusal. */
    public static final String REFUSED = "richter.refused";
    /** The extension's span attribute of a call report mode let through, holding what enforce mode would say. */
    public static final String WOULD_REFUSE = "richter.would_refuse";
    /** The extension's span attribute of its mode, {@code enforce} or {@code report}. */
    public static final String MODE = "richter.isolation.mode";
    /** The extension's proof: {@code true} when its isolation runs in the span's JVM, {@code false} when it failed. */
    public static final String ACTIVE = dev.richter.links.middleware.MiddlewareInventory.ISOLATION_ACTIVE;
    /** The extension's proof: the isolation document it enforces, {@code sha256:<first 16 hex>} of its bytes. */
    public static final String DOCUMENT = "richter.isolation.document";
    /** The extension's proof: the modules that started (comma-separated, e.g. {@code jdbc,jdk-http-client}). */
    public static final String MODULES = "richter.isolation.modules";
    /** Why the extension's isolation did not start, with {@value #ACTIVE}{@code =false}. */
    public static final String ERROR = "richter.isolation.error";
    /** The extension's span attribute of an inbound request whose marker did not verify: the reason and claimed run. */
    public static final String FORGED = "richter.marker.forged";
    static final int QUOTED = 5;
    /** The extension's network catch-all module: refuses marked connections out of scope whatever the client. */
    static final String NETWORK_MODULE = "richter-network";
    /**
     * What the extension does not cover even with its network catch-all, said with every PASS (agent/README.md, "What
     * is guarded, and what is not").
     */
    static final String GAP = "not covered even by the network catch-all: I/O on threads that do not carry the marked"
            + " context (Netty event loops, the Kafka producer's sender), Netty's native transport, UDP, and on Java 8-13"
            + " writes on connections opened before the mark; those are seen only by mocked-exit and shadow-writes";
    /** Said with a PASS when a service's extension has no network catch-all (an older extension, or turned off). */
    static final String NO_CATCH_ALL = "a client no module names is not guarded (no network catch-all) in ";

    private IsolationEnforcedCheck() {}

    /**
     * @param spans  normalized spans of one batch (e.g. the pre-test's traces)
     * @param scope  service names of the test scope
     * @param marker the team's marker
     * @return one result, subject {@code marked traces}
     */
    public static CheckResult check(List<Span> spans, Set<String> scope, Marker marker) {
        return check(spans, scope, marker, "");
    }

    /** Distinct refusal reasons listed in the evidence, at most; the rest are counted. */
    static final int DISTINCT_REASONS = 10;

    /**
     * Each distinct {@code <service>: <refusal>} with its count, writes to a store with no shadow first (they name the
     * table, key space, topic or queue to shadow), then by count: e.g. {@code inventory: Richter isolation refused a
     * marked call to exit 'table reservation_audit' ... (12)}. At most {@value #DISTINCT_REASONS}, then how many more.
     */
    static String byReason(Map<String, Integer> refusals) {
        List<Map.Entry<String, Integer>> sorted = new ArrayList<>(refusals.entrySet());
        sorted.sort(java.util.Comparator.<Map.Entry<String, Integer>>comparingInt(e -> storeWithoutShadow(e.getKey()) ? 0 : 1)
                .thenComparing(Map.Entry.<String, Integer>comparingByValue().reversed())
                .thenComparing(Map.Entry.comparingByKey()));
        List<String> shown = new ArrayList<>();
        for (Map.Entry<String, Integer> e : sorted.subList(0, Math.min(DISTINCT_REASONS, sorted.size()))) {
            shown.add(e.getKey() + " (" + e.getValue() + ")");
        }
        int more = sorted.size() - shown.size();
        return String.join("; ", shown) + (more > 0 ? "; and " + more + " other reasons" : "");
    }

    /** Whether a refusal is of a write to a store with no shadow (the extension names it: {@code no shadow ...}). */
    private static boolean storeWithoutShadow(String refusal) {
        return refusal.contains("no shadow") || refusal.matches("(?s).*exit '(table|cache|dynamodb|topic|queue|s3|sns-topic|event-bus|kinesis-stream) .*");
    }

    /**
     * @param runId the run whose marked traffic the spans hold; {@code ""} when not known (a forged marker then never
     *              counts as the run's own)
     * @see #check(List, Set, Marker)
     */
    public static CheckResult check(List<Span> spans, Set<String> scope, Marker marker, String runId) {
        Set<String> markedTraces = new HashSet<>();
        for (Span s : spans) {
            if (MarkerOnSpan.carries(s, marker)) {
                markedTraces.add(s.traceId());
            }
        }
        int refused = 0;
        int letThrough = 0;
        Set<String> reportModeServices = new LinkedHashSet<>();
        Set<String> proven = new TreeSet<>();
        Map<String, Set<String>> modules = new TreeMap<>();
        Map<String, Integer> unproven = new TreeMap<>();
        Map<String, String> notStarted = new TreeMap<>();
        List<String> quoted = new ArrayList<>();
        Map<String, Integer> refusals = new java.util.LinkedHashMap<>();
        int forged = 0;
        Set<String> ownRejected = new TreeSet<>();
        for (Span s : spans) {
            if (!markedTraces.contains(s.traceId()) || !scope.contains(s.service())) {
                continue;
            }
            String forgery = s.attributes().get(FORGED);
            if (forgery != null) {
                forged++;
                if (!runId.isEmpty() && forgery.contains(" run " + runId + " of team ")) {
                    ownRejected.add(s.service() + " (" + forgery + ")");
                }
                continue;
            }
            if (MarkerOnSpan.carries(s, marker)) {
                String active = s.attributes().getOrDefault(ACTIVE, "").strip();
                if (active.equals("true")) {
                    proven.add(s.service());
                    modules.computeIfAbsent(s.service(), k -> new TreeSet<>())
                            .addAll(List.of(s.attributes().getOrDefault(MODULES, "").split(",")));
                } else {
                    unproven.merge(s.service(), 1, Integer::sum);
                    if (active.equals("false")) {
                        notStarted.putIfAbsent(s.service(), s.attributes().getOrDefault(ERROR, "no reason given"));
                    }
                }
            }
            String reason = null;
            if (s.attributes().containsKey(REFUSED)) {
                refused++;
                refusals.merge(s.service() + ": " + s.attributes().get(REFUSED).strip(), 1, Integer::sum);
                reason = "refused: " + s.attributes().get(REFUSED);
            } else if (s.attributes().containsKey(WOULD_REFUSE)) {
                letThrough++;
                reason = "let through by report mode: " + s.attributes().get(WOULD_REFUSE);
            } else if ("report".equals(s.attributes().get(MODE))) {
                reportModeServices.add(s.service());
            }
            if (reason != null && quoted.size() < QUOTED) {
                quoted.add("trace " + s.traceId() + " span " + s.spanId() + " " + s.service() + " '" + s.operation() + "' "
                        + reason);
            }
        }
        String others = forged == ownRejected.size() ? "" : (forged - ownRejected.size())
                + " requests whose marker did not verify ran as production traffic (not this run's); ";
        if (refused == 0 && letThrough == 0 && reportModeServices.isEmpty() && unproven.isEmpty() && ownRejected.isEmpty()) {
            List<String> on = new ArrayList<>();
            List<String> without = new ArrayList<>();
            for (Map.Entry<String, Set<String>> m : modules.entrySet()) {
                m.getValue().remove("");
                if (!m.getValue().contains(NETWORK_MODULE)) {
                    without.add(m.getKey());
                }
                on.add(m.getKey() + " (" + String.join(",", m.getValue()) + ")");
            }
            return new CheckResult(NAME, Outcome.PASS, "marked traces", markedTraces.size()
                    + " marked traces: no call refused by the isolation, none decided in report mode; isolation proven"
                    + " on in " + (on.isEmpty() ? "no service (no marked span in scope)" : String.join(", ", on))
                    + "; " + others + (without.isEmpty() ? "" : NO_CATCH_ALL + String.join(", ", without) + "; ") + GAP);
        }
        List<String> parts = new ArrayList<>();
        if (!ownRejected.isEmpty()) {
            parts.add("Richter's own marker for this run was not accepted by " + String.join(", ", ownRejected)
                    + ": that marked work ran as production traffic (check the extension's isolation document is the"
                    + " team's, and the clocks)");
        }
        if (refused > 0) {
            parts.add(refused + " marked calls refused by the isolation (an exit with no mock, a write with no shadow,"
                    + " or a request before the isolation loaded), by service and reason: " + byReason(refusals));
        }
        if (letThrough > 0) {
            parts.add(letThrough + " marked calls let through by report mode to their real target");
        }
        if (!reportModeServices.isEmpty()) {
            parts.add("the isolation is in report mode in " + String.join(", ", reportModeServices)
                    + " (onboarding only: nothing is refused); set isolation.mode to enforce (PUT /safety)");
        }
        for (Map.Entry<String, Integer> u : unproven.entrySet()) {
            String why = notStarted.containsKey(u.getKey())
                    ? "say its isolation did not start: " + notStarted.get(u.getKey())
                    : "carry no proof that its isolation is on (" + ACTIVE + "): the JVM runs without Richter's extension,"
                            + " with one that could not load or start (e.g. a Java older than its classes), or with one"
                            + " older than the proof";
            parts.add(u.getKey() + ": " + u.getValue() + " marked spans " + why);
        }
        return new CheckResult(NAME, Outcome.FAIL, "marked traces", String.join("; ", parts)
                + (quoted.isEmpty() ? "" : ": " + String.join("; ", quoted)) + (others.isEmpty() ? "" : "; " + others.strip()));
    }
}
