package dev.richter.checks.safety;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.common.model.Marker;
import dev.richter.links.trace.Span;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link IsolationEnforcedCheck} on spans of the Spring Boot demo shop with the agent extension (examples/shop),
 * captured from its logging-otlp exporter with an isolation document in a file (tables stock and reservations
 * shadowed, payment's POST /charge mocked): each capture is two marked {@code POST /orders} through the gateway.
 */
class IsolationEnforcedCheckTest {
    static final Set<String> SCOPE = Set.of("gateway", "order", "inventory");

    @Test
    void aWriteToATableWithNoShadowRefusedByTheExtensionFailsTheGate() {
        // SHOP_AUDIT_RESERVATIONS=1, enforce: inventory's INSERT INTO reservation_audit was refused, unsent
        CheckResult r = IsolationEnforcedCheck.check(
                SafetyFixtures.traces("shop-spring-refused-audit-insert.otlp.json").spans(), SCOPE, Marker.DEFAULT);
        assertEquals(Outcome.FAIL, r.outcome(), r.evidence());
        assertTrue(r.evidence().startsWith("2 marked calls refused by the isolation"), r.evidence());
        assertTrue(r.evidence().contains(" inventory 'POST /reserve' refused: Richter isolation refused a marked call to"
                + " exit 'table reservation_audit'"), r.evidence());
    }

    @Test
    void aRefusedWriteIsNamedWhateverOtherRefusalsCameFirst() {
        // issue 42: six refused calls to an exit with no mock came first; the table with no shadow must still be named
        List<Span> spans = new ArrayList<>(SafetyFixtures.traces("shop-spring-refused-audit-insert.otlp.json").spans());
        Span table = spans.stream().filter(s -> s.attributes().containsKey(IsolationEnforcedCheck.REFUSED)).findFirst()
                .orElseThrow();
        List<Span> all = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            java.util.Map<String, String> attributes = new java.util.HashMap<>(table.attributes());
            attributes.put(IsolationEnforcedCheck.REFUSED, "Richter isolation refused a marked call to exit"
                    + " 'partner.example:443' (no mock)");
            all.add(table.withAttributes(attributes));
        }
        all.addAll(spans);
        CheckResult r = IsolationEnforcedCheck.check(all, SCOPE, Marker.DEFAULT);
        assertEquals(Outcome.FAIL, r.outcome(), r.evidence());
        String byReason = r.evidence().substring(r.evidence().indexOf("by service and reason: ") + 23);
        assertTrue(byReason.startsWith("inventory: Richter isolation refused a marked call to exit 'table"
                + " reservation_audit'"), "the write with no shadow first: " + byReason);
        assertTrue(byReason.contains("; inventory: Richter isolation refused a marked call to exit 'partner.example:443'"
                + " (no mock) (6)"), byReason);
    }

    @Test
    void reportModeFailsTheGateEvenWhereItRoutedEveryShadow() {
        // SHOP_AUDIT_RESERVATIONS=1 and SHOP_FRAUD_URL set, report mode: the audit INSERT and the fraud score went
        // through to production, and every other decision says report
        CheckResult r = IsolationEnforcedCheck.check(
                SafetyFixtures.traces("shop-spring-report-mode.otlp.json").spans(), SCOPE, Marker.DEFAULT);
        assertEquals(Outcome.FAIL, r.outcome(), r.evidence());
        assertTrue(r.evidence().startsWith("4 marked calls let through by report mode to their real target; the isolation"
                + " is in report mode in "), r.evidence());
        assertTrue(r.evidence().contains("exit '127.0.0.1:18083 POST /score' (report mode)"), r.evidence());
        assertTrue(r.evidence().contains("exit 'table reservation_audit' (report mode)"), r.evidence());
    }

    /**
     * The capture's spans with the extension's proof on every marked span of {@code services}, as the extension
     * stamps it since it proves itself (the capture predates the proof).
     */
    static List<Span> proven(String capture, Set<String> services) {
        return proven(capture, services, "jdbc,jdk-http-client,richter-network");
    }

    /** The capture's marked spans of {@code services} with the proof of an extension running {@code modules}. */
    static List<Span> proven(String capture, Set<String> services, String modules) {
        List<Span> out = new ArrayList<>();
        for (Span s : SafetyFixtures.traces(capture).spans()) {
            if (services.contains(s.service()) && MarkerOnSpan.carries(s, Marker.DEFAULT)) {
                s = SafetyFixtures.with(SafetyFixtures.with(SafetyFixtures.with(s, IsolationEnforcedCheck.ACTIVE, "true"),
                        IsolationEnforcedCheck.MODE, "enforce"), IsolationEnforcedCheck.MODULES, modules);
            }
            out.add(s);
        }
        return out;
    }

    @Test
    void theDemosEnforcedIsolationPassesWhereEveryServiceProvesItOn() {
        CheckResult r = IsolationEnforcedCheck.check(proven("shop-spring-extension-mocked-payment.otlp.json", SCOPE),
                SCOPE, Marker.DEFAULT);
        assertEquals(Outcome.PASS, r.outcome(), r.evidence());
        assertEquals("2 marked traces: no call refused by the isolation, none decided in report mode; isolation proven"
                + " on in gateway (jdbc,jdk-http-client,richter-network), inventory (jdbc,jdk-http-client,richter-network),"
                + " order (jdbc,jdk-http-client,richter-network); " + IsolationEnforcedCheck.GAP, r.evidence());
    }

    /**
     * The proven capture with its first marked gateway span as the extension leaves a forged marker's: no proof, and
     * {@code reason} as its verdict (none when null).
     */
    private static List<Span> withForgedEntry(String reason) {
        List<Span> raw = SafetyFixtures.traces("shop-spring-extension-mocked-payment.otlp.json").spans();
        List<Span> out = new ArrayList<>(proven("shop-spring-extension-mocked-payment.otlp.json", SCOPE));
        for (int i = 0; i < raw.size(); i++) {
            if (raw.get(i).service().equals("gateway") && MarkerOnSpan.carries(raw.get(i), Marker.DEFAULT)) {
                out.set(i, reason == null ? raw.get(i) : SafetyFixtures.with(raw.get(i), IsolationEnforcedCheck.FORGED, reason));
                return out;
            }
        }
        throw new AssertionError("the capture has no marked gateway span");
    }

    @Test
    void aServiceThatRejectedThisRunsOwnMarkerFailsTheGateAndOtherForgeriesAreOnlyCounted() {
        CheckResult own = IsolationEnforcedCheck.check(withForgedEntry("expired: run run-7 of team t1"), SCOPE,
                Marker.DEFAULT, "run-7");
        assertEquals(Outcome.FAIL, own.outcome(), own.evidence());
        assertTrue(own.evidence().startsWith("Richter's own marker for this run was not accepted by gateway (expired: run"
                + " run-7 of team t1): that marked work ran as production traffic"), own.evidence());

        CheckResult other = IsolationEnforcedCheck.check(withForgedEntry("bad signature: run run-70 of team t1"), SCOPE,
                Marker.DEFAULT, "run-7");
        assertEquals(Outcome.PASS, other.outcome(), "a forged marker's span owes no proof: " + other.evidence());
        assertTrue(other.evidence().contains("; 1 requests whose marker did not verify ran as production traffic (not"
                + " this run's); "), other.evidence());
        // without the extension's verdict the same unproven span fails, as any marked span without proof does
        assertEquals(Outcome.FAIL, IsolationEnforcedCheck.check(withForgedEntry(null), SCOPE, Marker.DEFAULT, "run-7")
                .outcome());
    }

    @Test
    void anExtensionWithoutTheNetworkCatchAllPassesNamingTheServicesWhereAnyOtherClientIsUnguarded() {
        CheckResult r = IsolationEnforcedCheck.check(proven("shop-spring-extension-mocked-payment.otlp.json", SCOPE,
                "jdbc,jdk-http-client"), SCOPE, Marker.DEFAULT);
        assertEquals(Outcome.PASS, r.outcome(), r.evidence());
        assertTrue(r.evidence().endsWith("; a client no module names is not guarded (no network catch-all) in gateway,"
                + " inventory, order; " + IsolationEnforcedCheck.GAP), r.evidence());
    }

    @Test
    void noRefusalIsNoProof() {
        // the same capture without the proof: a JVM with no extension, or one that did not load (Java 17 and a jar
        // of class file 65), refuses nothing either
        CheckResult r = IsolationEnforcedCheck.check(
                SafetyFixtures.traces("shop-spring-extension-mocked-payment.otlp.json").spans(), SCOPE, Marker.DEFAULT);
        assertEquals(Outcome.FAIL, r.outcome(), r.evidence());
        assertTrue(r.evidence().startsWith("gateway: "), r.evidence());
        assertTrue(r.evidence().contains("inventory: "), r.evidence());
        assertTrue(r.evidence().contains("marked spans carry no proof that its isolation is on (richter.isolation.active)"),
                r.evidence());
        // one service of three without it is named alone
        CheckResult one = IsolationEnforcedCheck.check(proven("shop-spring-extension-mocked-payment.otlp.json",
                Set.of("gateway", "order")), SCOPE, Marker.DEFAULT);
        assertEquals(Outcome.FAIL, one.outcome(), one.evidence());
        assertTrue(one.evidence().startsWith("inventory: "), one.evidence());
        assertFalse(one.evidence().contains("gateway:"), one.evidence());
    }

    @Test
    void anExtensionThatSaysItDidNotStartFailsWithItsReason() {
        List<Span> spans = new ArrayList<>();
        for (Span s : proven("shop-spring-extension-mocked-payment.otlp.json", Set.of("gateway", "order"))) {
            if (s.service().equals("inventory") && MarkerOnSpan.carries(s, Marker.DEFAULT)) {
                s = SafetyFixtures.with(SafetyFixtures.with(s, IsolationEnforcedCheck.ACTIVE, "false"),
                        IsolationEnforcedCheck.ERROR, "cannot put its bridge on the boot class path: read-only");
            }
            spans.add(s);
        }
        CheckResult r = IsolationEnforcedCheck.check(spans, SCOPE, Marker.DEFAULT);
        assertEquals(Outcome.FAIL, r.outcome(), r.evidence());
        assertTrue(r.evidence().contains("inventory: "), r.evidence());
        assertTrue(r.evidence().contains("marked spans say its isolation did not start: cannot put its bridge on the"
                + " boot class path: read-only"), r.evidence());
    }

    @Test
    void aRefusalOutsideTheScopeOrInUnmarkedTrafficIsNotTheRunsConcern() {
        CheckResult r = IsolationEnforcedCheck.check(
                SafetyFixtures.traces("shop-spring-refused-audit-insert.otlp.json").spans(), Set.of("gateway", "order"),
                Marker.DEFAULT);
        assertEquals(Outcome.FAIL, r.outcome(), "gateway and order prove nothing: " + r.evidence());
        assertTrue(r.evidence().startsWith("gateway: "), r.evidence());
        assertFalse(r.evidence().contains("refused"), "inventory is not in this scope: " + r.evidence());
    }
}
