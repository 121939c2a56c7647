package dev.richter.decider;

import static dev.richter.decider.Fixtures.http;
import static dev.richter.decider.Fixtures.windows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.HealthReport;
import dev.richter.common.model.HealthReport.Evidence;
import dev.richter.common.model.Verdict.State;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rule matrix rows of the team's own evidence ({@link TeamEvidenceRules}): alerts and business metrics. */
class TeamEvidenceRuleTest {
    final FaultDecider decider = new FaultDecider();
    final Map<String, ModuleState> states = new HashMap<>();
    DecisionRules rules = DecisionRules.defaults();
    long now = 1_700_000_000_000L;
    String stage = "formal";
    int step = 0;
    /** The load's rate in the passive windows, requests per second (0: no traffic). */
    long qps = 0;

    Decision round(HealthReport... reports) {
        long sec = Math.floorDiv(now, 1000);
        PassiveEvidence passive = qps == 0 ? PassiveEvidence.none()
                : PassiveEvidence.fromWindows(windows(sec - 3, sec - 1, qps, 0, 5));
        Decision d = decider.decide(new DecisionInput("run", stage, step, List.of("order"), now, List.of(reports)),
                rules, states, passive);
        d.modules().forEach(m -> states.put(m.verdict().module(), m.next()));
        now += 2000;
        return d;
    }

    static ModuleDecision of(Decision d, String module) {
        return d.modules().stream().filter(m -> m.verdict().module().equals(module)).findFirst().orElseThrow();
    }

    static HealthReport firing(String module, String... alerts) {
        Map<String, Double> m = new HashMap<>();
        for (String a : alerts) m.put("alert:" + a, 1_699_999_999_000.0);
        return new HealthReport(module, "alertmanager", false, "FIRING", List.of(alerts), 3, "alerts firing", m, 0);
    }

    static HealthReport noAlerts(String module) {
        return new HealthReport(module, "alertmanager", true, "NONE_FIRING", List.of(), 3, "", Map.of(), 0);
    }

    /** {@code orders-per-second} of order at {@code value}, expected at least half its load-proportional baseline. */
    static HealthReport orders(double value) {
        return new HealthReport("order", "promql", true, "READ", List.of(), 3, "", Map.of(
                "business:orders-per-second", value, "business:orders-per-second:baselineMinRatio", 0.5,
                "business:orders-per-second:loadProportional", 1.0), 0);
    }

    static HealthReport unreadable(String module, String kind) {
        return new HealthReport(module, kind, false, "TIMEOUT", List.of(), 500, "source timed out", Map.of(), 0,
                Evidence.MONITORING, List.of());
    }

    @Test
    void aFiringAlertOnACoreModuleIsDamagedWhileEveryProbeIsGreenAndAbortsTheRun() {
        Decision d = round(http("order", true), firing("order", "ShopShedding"));
        ModuleDecision m = of(d, "order");
        assertEquals(State.DAMAGED, m.verdict().state());
        assertEquals("alert-firing", m.evidence().rule());
        assertEquals("alert ShopShedding firing on core module order", m.verdict().reason());
        assertEquals(List.of(new TeamEvidenceRound.FiringAlert("ShopShedding", 1_699_999_999_000L)),
                m.evidence().teamEvidence().alerts());
        assertEquals("DAMAGED core module order: alert ShopShedding firing on core module order", d.abortReason());
    }

    @Test
    void aFiringAlertOnAModuleThatIsNotCoreIsSuspect() {
        ModuleDecision m = of(round(http("inventory", true), firing("inventory", "StockLow", "DiskFull")), "inventory");
        assertEquals(State.SUSPECT, m.verdict().state());
        assertEquals("alert-firing", m.evidence().rule());
        assertEquals("alerts DiskFull, StockLow firing on inventory", m.verdict().reason());
    }

    @Test
    void aResolvedAlertLetsTheModuleRecoverByItsProbes() {
        round(http("order", true), firing("order", "ShopShedding"));
        assertEquals(State.DAMAGED, of(round(http("order", true), noAlerts("order")), "order").verdict().state());
        assertEquals(State.DAMAGED, of(round(http("order", true), noAlerts("order")), "order").verdict().state());
        ModuleDecision m = of(round(http("order", true), noAlerts("order")), "order");
        assertEquals(State.HEALTHY, m.verdict().state());
        assertEquals("recovered", m.evidence().rule());
    }

    @Test
    void aBusinessMetricOffItsLoadScaledBaselineIsSuspectAfterThreeRoundsThenDamaged() {
        stage = "pre-test";
        qps = 10;
        // the pre-test's first 15 s settle too: the baseline takes the values after them only
        for (int i = 0; i < 8; i++) round(http("order", true), orders(50.0));
        for (int i = 0; i < 5; i++) round(http("order", true), orders(5.0));
        assertEquals(5, states.get("order").teamEvidence().metrics().get("orders-per-second").baseline().values().size());
        stage = "formal";
        qps = 20;
        // the step's first 15 s settle: a rate(...[15s]) still lags the new load
        for (int i = 0; i < 8; i++) {
            ModuleDecision m = of(round(http("order", true), orders(0)), "order");
            assertEquals("settling", m.evidence().teamEvidence().metrics().getFirst().judgement(), "round " + i);
            assertEquals(State.HEALTHY, m.verdict().state());
        }
        Decision okRound = round(http("order", true), orders(9.0));
        assertEquals(2000, FaultDeciderService.nextWaitMs(okRound), "all well: the normal wait");
        ModuleDecision ok = of(okRound, "order");
        TeamEvidenceRound.MetricReading r = ok.evidence().teamEvidence().metrics().getFirst();
        assertEquals("ok", r.judgement());
        assertEquals(10.0, r.expected(), 1e-9, "5 orders/s at 10 QPS, scaled to 20 QPS");
        assertEquals(5.0, r.low(), 1e-9);
        assertNull(r.high());
        for (int i = 1; i <= 2; i++) {
            Decision d = round(http("order", true), orders(4.0));
            ModuleDecision m = of(d, "order");
            assertEquals(State.HEALTHY, m.verdict().state(), "breach round " + i);
            assertEquals(1000, FaultDeciderService.nextWaitMs(d), "a metric past its expectation brings the next round sooner");
            assertEquals(i, m.evidence().teamEvidence().metrics().getFirst().breachRounds());
        }
        ModuleDecision suspect = of(round(http("order", true), orders(4.0)), "order");
        assertEquals(State.SUSPECT, suspect.verdict().state());
        assertEquals("business-metric", suspect.evidence().rule());
        assertEquals("business metric orders-per-second 4.000 below 5.000 (baseline 10.00) for 3 rounds", suspect.verdict().reason());
        for (int i = 4; i <= 5; i++) assertEquals(State.SUSPECT, of(round(http("order", true), orders(4.0)), "order").verdict().state());
        Decision d = round(http("order", true), orders(4.0));
        assertEquals(State.DAMAGED, of(d, "order").verdict().state());
        assertTrue(d.abortReason().startsWith("DAMAGED core module order: business metric orders-per-second"), d.abortReason());
    }

    @Test
    void aLowRatePreTestStillGivesTheBaselineItsRate() {
        rules = rules.toBuilder().teamEvidence(new TeamEvidenceRules(3, 6, 0, 3)).build();
        stage = "pre-test";
        qps = 2; // 4 requests in the passive window: below minPassiveRequests, which guards error rates only
        for (int i = 0; i < 3; i++) round(http("order", true), orders(1.0));
        TeamEvidenceState.Metric m = states.get("order").teamEvidence().metrics().get("orders-per-second");
        assertEquals(List.of(1.0, 1.0, 1.0), m.baseline().values());
        assertEquals(List.of(2.0, 2.0, 2.0), m.baselineQps().values());
        stage = "formal";
        qps = 10;
        TeamEvidenceRound.MetricReading r = of(round(http("order", true), orders(5.0)), "order").evidence().teamEvidence().metrics().getFirst();
        assertEquals(5.0, r.expected(), 1e-9, "1 order/s at 2 QPS, scaled to 10 QPS");
        assertEquals("ok", r.judgement());
    }

    @Test
    void aRoundThatHoldsABreachCountWithoutALimitStillExplainsTheVerdict() {
        // TeamEvidenceIT: a SUSPECT metric whose next round had no limit (settling) failed the decision (NullPointerException)
        rules = DecisionRules.fromJson("{\"teamEvidence\":{\"businessMetricSuspectRounds\":1,\"businessMetricSettleMs\":0}}");
        HealthReport low = new HealthReport("order", "promql", true, "READ", List.of(), 3, "",
                Map.of("business:orders", 0.2, "business:orders:baselineMinRatio", 0.5, "business:orders:loadProportional", 1.0), 0);
        rules = rules.toBuilder().teamEvidence(new TeamEvidenceRules(1, 6, 0, 1)).build();
        stage = "pre-test";
        qps = 10;
        round(http("order", true), new HealthReport("order", "promql", true, "READ", List.of(), 3, "",
                Map.of("business:orders", 5.0, "business:orders:baselineMinRatio", 0.5, "business:orders:loadProportional", 1.0), 0));
        stage = "formal";
        assertEquals(State.SUSPECT, of(round(http("order", true), low), "order").verdict().state());
        qps = 0; // no traffic: no rate, so no expected value this round; the count is held
        ModuleDecision held = of(round(http("order", true), low), "order");
        assertEquals(State.SUSPECT, held.verdict().state());
        assertTrue(held.verdict().reason().endsWith("business metric orders past its expectation for 1 rounds (now 0.2000, no-baseline)"),
                held.verdict().reason());
    }

    @Test
    void anUnreadableSourceIsMissingEvidenceAndHoldsTheCount() {
        rules = rules.toBuilder().teamEvidence(new TeamEvidenceRules(3, 6, 0, 3)).build();
        stage = "pre-test";
        qps = 10;
        for (int i = 0; i < 3; i++) round(http("order", true), orders(5.0));
        stage = "formal";
        round(http("order", true), orders(1.0));
        round(http("order", true), orders(1.0));
        ModuleDecision held = of(round(http("order", true), unreadable("order", "promql"), unreadable("order", "alertmanager")), "order");
        assertEquals(State.HEALTHY, held.verdict().state());
        assertEquals(List.of("promql: source timed out", "alertmanager: source timed out"), held.evidence().missingEvidence());
        assertTrue(held.verdict().reason().endsWith("; missing evidence: promql: source timed out; alertmanager: source timed out"),
                held.verdict().reason());
        assertEquals(2, states.get("order").teamEvidence().metrics().get("orders-per-second").breachRounds(), "held, not restarted");
        assertEquals(State.SUSPECT, of(round(http("order", true), orders(1.0)), "order").verdict().state(), "the third breach");
    }

    @Test
    void aModuleWithOnlyTeamEvidenceIsJudgedByItAlone() {
        ModuleDecision m = of(round(firing("payment", "PaymentErrors")), "payment");
        assertEquals(State.SUSPECT, m.verdict().state());
        assertEquals("alert PaymentErrors firing on payment", m.verdict().reason());
    }

    @Test
    void boundsAreJudgedWithoutABaselineAndTheRulesReloadFromStoredJson() {
        rules = DecisionRules.fromJson("{\"teamEvidence\":{\"businessMetricSuspectRounds\":1,\"businessMetricSettleMs\":0}}");
        assertEquals(6, rules.teamEvidence().businessMetricDamagedRounds(), "the other fields keep their defaults");
        HealthReport low = new HealthReport("order", "promql", true, "READ", List.of(), 3, "",
                Map.of("business:checkout-ratio", 0.2, "business:checkout-ratio:min", 0.9), 0);
        ModuleDecision m = of(round(http("order", true), low), "order");
        assertEquals(State.SUSPECT, m.verdict().state());
        assertEquals("business metric checkout-ratio 0.2000 below 0.9000 for 1 rounds", m.verdict().reason());
    }

    @Test
    void badTeamEvidenceRulesAreRefusedNamingTheField() {
        var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> DecisionRules.fromJson("{\"teamEvidence\":{\"businessMetricSuspectRounds\":0}}"));
        assertTrue(e.getMessage().contains("teamEvidence.businessMetricSuspectRounds"), e.getMessage());
    }
}
