package dev.richter.checks.safety;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.common.model.Marker;
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

    @Test
    void theDemosEnforcedIsolationPasses() {
        CheckResult r = IsolationEnforcedCheck.check(
                SafetyFixtures.traces("shop-spring-extension-mocked-payment.otlp.json").spans(), SCOPE, Marker.DEFAULT);
        assertEquals(Outcome.PASS, r.outcome(), r.evidence());
        assertEquals("2 marked traces: no call refused by the isolation, none decided in report mode", r.evidence());
    }

    @Test
    void aRefusalOutsideTheScopeOrInUnmarkedTrafficIsNotTheRunsConcern() {
        CheckResult r = IsolationEnforcedCheck.check(
                SafetyFixtures.traces("shop-spring-refused-audit-insert.otlp.json").spans(), Set.of("gateway", "order"),
                Marker.DEFAULT);
        assertEquals(Outcome.PASS, r.outcome(), "inventory is not in this scope: " + r.evidence());
    }
}
