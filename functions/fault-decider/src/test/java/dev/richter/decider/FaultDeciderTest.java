package dev.richter.decider;

import static dev.richter.decider.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.richter.common.model.HealthReport;
import dev.richter.common.model.Verdict.State;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** One test per row of the DESIGN.md §4 rule matrix, plus the dynamic detectors and the abort policy. */
class FaultDeciderTest {
    static final long INTERVAL_MS = 2000;
    final FaultDecider decider = new FaultDecider();
    final Map<String, ModuleState> states = new HashMap<>();
    DecisionRules rules = DecisionRules.defaults();
    long now = 1_700_000_000_000L;
    String stage = "formal";
    int step = 0;

    /** Decides one round at {@code now}, then advances the clock by the probe interval. */
    Decision round(PassiveEvidence passive, HealthReport... reports) {
        Decision d = decider.decide(new DecisionInput("run", stage, step, List.of("order"), now, List.of(reports)),
                rules, states, passive);
        d.modules().forEach(m -> states.put(m.verdict().module(), m.next()));
        now += INTERVAL_MS;
        return d;
    }

    Decision round(HealthReport... reports) {
        return round(PassiveEvidence.none(), reports);
    }

    /** One round whose passive window (the last 3 s, 20 requests a second) has the p99 {@code p99Ms}, order healthy. */
    Decision loadRound(long p99Ms) {
        long sec = now / 1000;
        return round(PassiveEvidence.fromWindows(windows(sec - 3, sec - 1, 20, 0, p99Ms)), http("order", true));
    }

    static ModuleDecision of(Decision d, String module) {
        return d.modules().stream().filter(m -> m.verdict().module().equals(module)).findFirst().orElseThrow();
    }

    static State state(Decision d, String module) {
        return of(d, module).verdict().state();
    }

    @Test
    void fiveConsecutiveFailuresWithResourcesNormalIsSuspect() {
        for (int i = 1; i <= 4; i++) assertEquals(State.HEALTHY, state(round(http("order", false), prom("order", 0.5, 0.2)), "order"));
        Decision d = round(http("order", false), prom("order", 0.5, 0.2));
        assertEquals(State.SUSPECT, state(d, "order"));
        assertEquals("consecutive-failures", of(d, "order").evidence().rule());
        assertTrue(of(d, "order").changed());
    }

    /** A scrape of {@code module} with its heap and pool normal and these Resilience4j breaker states (probe metrics). */
    static HealthReport promWithBreakers(String module, Map<String, Double> breakers) {
        Map<String, Double> m = new HashMap<>(prom(module, 0.5, 0.2).metrics());
        breakers.forEach((name, open) -> m.put("breakerOpen:" + name, open));
        return new HealthReport(module, "prometheus", true, "SCRAPED", List.of(), 5, "", m, 0);
    }

    @Test
    void aModuleWhoseOwnBreakerIsOpenIsSuspectWhileItsHealthAnswersUpAndRecoversWhenItCloses() {
        assertEquals(State.HEALTHY, state(round(http("order", true), promWithBreakers("order", Map.of("inventory", 0.0))), "order"));
        Decision d = round(http("order", true), promWithBreakers("order", Map.of("inventory", 1.0, "payment", 0.0)));
        assertEquals(State.SUSPECT, state(d, "order"));
        assertEquals("breaker-open", of(d, "order").evidence().rule());
        assertEquals("circuit breaker 'inventory' open: calls not permitted, the module answers by its fallback",
                of(d, "order").verdict().reason());
        for (int i = 0; i < 5; i++) {
            d = round(http("order", true), promWithBreakers("order", Map.of("inventory", 1.0)));
        }
        assertEquals(State.SUSPECT, state(d, "order"), "never DAMAGED from an open breaker alone");
        d = round(http("order", true), promWithBreakers("order", Map.of("inventory", 0.0)));
        assertEquals(State.HEALTHY, state(d, "order"), "the breaker closed after 6 successful probes in a row");
        assertEquals("recovered", of(d, "order").evidence().rule());
        assertEquals(State.HEALTHY, state(round(http("order", true), prom("order", 0.5, 0.2)), "order"),
                "a scrape without breaker series is no evidence of one");
    }

    @Test
    void tenConsecutiveFailuresAndAResourceOverThresholdIsDamaged() {
        // TCP still answers, so the vote stays below 3/4: (0.6 + 0.4) / 1.4 = 0.71.
        for (int i = 1; i <= 9; i++) round(http("order", false), tcp("order", true), prom("order", 0.95, 0.2));
        assertEquals(State.SUSPECT, state(states, "order"));
        Decision d = round(http("order", false), tcp("order", true), prom("order", 0.95, 0.2));
        assertEquals(State.DAMAGED, state(d, "order"));
        assertEquals("consecutive-failures+resource", of(d, "order").evidence().rule());
        assertTrue(of(d, "order").verdict().reason().contains("heapUsedRatio"), of(d, "order").verdict().reason());
    }

    @Test
    void tenConsecutiveFailuresWithResourcesNormalStaysSuspect() {
        Decision d = null;
        for (int i = 1; i <= 12; i++) d = round(http("order", false), prom("order", 0.5, 0.2));
        assertEquals(State.SUSPECT, state(d, "order"));
    }

    @Test
    void weightedVoteHttpAndTcpFailingIsDamagedAtOnce() {
        Decision d = round(http("order", false), tcp("order", false));
        assertEquals(State.DAMAGED, state(d, "order"));
        assertEquals("vote", of(d, "order").evidence().rule());
        assertEquals(1.0, of(d, "order").evidence().voteFraction(), 1e-9);
    }

    @Test
    void weightedVoteBelowThreeQuartersIsNotDamaged() {
        // HTTP alone: 0.6 / (0.6 + 0.4) = 0.6 < 0.75.
        Decision d = round(http("order", false), tcp("order", true));
        assertEquals(State.HEALTHY, state(d, "order"));
        assertEquals(0.6, of(d, "order").evidence().voteFraction(), 1e-9);
        // HTTP + Prometheus breach, TCP ok: 1.0 / 1.4 = 0.714 < 0.75.
        d = round(http("order", false), tcp("order", true), prom("order", 0.97, 0.2));
        assertNotEquals(State.DAMAGED, state(d, "order"));
    }

    @Test
    void aSingleFailingKindNeverWinsTheVote() {
        Decision d = round(http("order", false));
        assertEquals(1.0, of(d, "order").evidence().voteFraction(), 1e-9);
        assertEquals(State.HEALTHY, state(d, "order"));
    }

    @Test
    void passiveEvidenceJoinsTheVoteOfAModuleWithAFailingProbe() {
        long sec = now / 1000;
        var passive = PassiveEvidence.fromWindows(windows(sec - 3, sec - 1, 40, 40, 1000));
        Decision d = round(passive, http("order", false), tcp("order", true), prom("order", 0.5, 0.2),
                http("inventory", true), tcp("inventory", true));
        // order: http 0.6 + passive 0.6 failing of 0.6 + 0.4 + 0.4 + 0.6 = 1.2 / 2.0 = 0.6.
        assertEquals(0.6, of(d, "order").evidence().voteFraction(), 1e-9);
        assertEquals(State.HEALTHY, state(d, "inventory"));
        assertEquals(0.0, of(d, "inventory").evidence().voteFraction(), 1e-9);
    }

    @Test
    void anOkPassiveWindowAbstainsFromTheVote() {
        long sec = now / 1000;
        var passive = PassiveEvidence.fromWindows(windows(sec - 3, sec - 1, 40, 0, 5));
        Decision d = round(passive, http("order", false), tcp("order", true), prom("order", 0.97, 0.2));
        // http 0.6 + prometheus 0.4 failing of 1.4; the ok passive window does not add 0.6 to the total.
        assertEquals(1.0 / 1.4, of(d, "order").evidence().voteFraction(), 1e-9);
        assertFalse(of(d, "order").evidence().reports().stream().anyMatch(r -> r.kind().equals("passive")));
    }

    /** The load pseudo-module has no probes: its healthy reason gives its own window's figures, never "probes ok". */
    @Test
    void theLoadModuleSaysWhatItsTrafficShowed() {
        long sec = now / 1000;
        // 40 requests a second at 5 ms, no errors; the passive window (2 s by default) holds the last two seconds
        var passive = PassiveEvidence.fromWindows(windows(sec - 4, sec - 1, 40, 0, 5));
        Decision d = round(passive, http("order", true));
        ModuleDecision load = of(d, FaultDecider.PASSIVE_MODULE);
        assertEquals(State.HEALTHY, load.verdict().state());
        assertEquals(2, rules.passiveWindowSeconds());
        assertEquals("traffic ok: 80 requests, 0.0 % errors, p99 5.0 ms over the last 2 s", load.verdict().reason());
        assertEquals("probes ok", of(d, "order").verdict().reason());
    }

    @Test
    void threeConsecutiveSuccessesAfterDamageWithResourcesNormalIsHealthy() {
        round(http("order", false), tcp("order", false));
        assertEquals(State.DAMAGED, state(round(http("order", true), tcp("order", true), prom("order", 0.5, 0.2)), "order"));
        assertEquals(State.DAMAGED, state(round(http("order", true), tcp("order", true), prom("order", 0.5, 0.2)), "order"));
        Decision d = round(http("order", true), tcp("order", true), prom("order", 0.5, 0.2));
        assertEquals(State.HEALTHY, state(d, "order"));
        assertEquals("recovered", of(d, "order").evidence().rule());
    }

    @Test
    void successesAfterDamageWithAResourceStillOverDoNotRecover() {
        round(http("order", false), tcp("order", false));
        Decision d = null;
        for (int i = 0; i < 5; i++) d = round(http("order", true), tcp("order", true), prom("order", 0.93, 0.2));
        assertEquals(State.DAMAGED, state(d, "order"));
        d = round(http("order", true), tcp("order", true), prom("order", 0.5, 0.2));
        assertEquals(State.HEALTHY, state(d, "order"));
    }

    @Test
    void suspectRecoversAfterThreeSuccesses() {
        for (int i = 0; i < 5; i++) round(http("order", false), tcp("order", true));
        assertEquals(State.SUSPECT, state(round(http("order", true), tcp("order", true)), "order"));
        assertEquals(State.SUSPECT, state(round(http("order", true), tcp("order", true)), "order"));
        assertEquals(State.HEALTHY, state(round(http("order", true), tcp("order", true)), "order"));
    }

    @Test
    void failuresFurtherApartThanTheWindowResetTheCounter() {
        for (int i = 0; i < 4; i++) round(http("order", false), tcp("order", true));
        assertEquals(4, states.get("order").consecutiveFailures());
        now += rules.failureResetWindowMs() + 1; // the monitor loop paused: the next failure is a new series
        Decision d = round(http("order", false), tcp("order", true));
        assertEquals(1, of(d, "order").next().consecutiveFailures());
        assertEquals(State.HEALTHY, state(d, "order"));
    }

    @Test
    void failuresWithinTheWindowKeepCounting() {
        for (int i = 0; i < 4; i++) round(http("order", false), tcp("order", true));
        now += rules.failureResetWindowMs() - INTERVAL_MS;
        assertEquals(State.SUSPECT, state(round(http("order", false), tcp("order", true)), "order"));
    }

    @Test
    void aSuccessRestartsConsecutiveFailures() {
        for (int i = 0; i < 4; i++) round(http("order", false), tcp("order", true));
        round(http("order", true), tcp("order", true));
        assertEquals(State.HEALTHY, state(round(http("order", false), tcp("order", true)), "order"));
        assertEquals(1, states.get("order").consecutiveFailures());
    }

    @Test
    void connectionSigmaRuleNeedsMinimumSamplesAndRestartsAtEachStep() {
        // Cold window: a jump does not fire before minSamples observations.
        Decision d = round(http("order", true), prom("order", 0.5, 0.10));
        d = round(http("order", true), prom("order", 0.5, 0.80));
        assertTrue(of(d, "order").evidence().breaches().isEmpty());
        step = 1;
        for (int i = 0; i < 5; i++) round(http("order", true), prom("order", 0.5, 0.10 + 0.001 * i));
        d = round(http("order", true), prom("order", 0.5, 0.60));
        assertEquals("sigma", of(d, "order").evidence().breaches().getFirst().rule());
        step = 2; // new QPS step: baseline restarts, the same value is not judged against the old step
        d = round(http("order", true), prom("order", 0.5, 0.90));
        assertTrue(of(d, "order").evidence().breaches().isEmpty());
    }

    @Test
    void heapAboveTheEwmaForecastIsABreachAfterMinimumSamples() {
        for (int i = 0; i < 6; i++) round(http("order", true), prom("order", 0.40 + 0.005 * (i % 2), 0.1));
        Decision d = round(http("order", true), prom("order", 0.70, 0.1));
        var b = of(d, "order").evidence().breaches();
        assertEquals(1, b.size());
        assertEquals("ewma", b.getFirst().rule());
        assertEquals(State.HEALTHY, state(d, "order"), "a breach alone is not damage");
    }

    @Test
    void p99OverThePreTestBaselineFailsPassiveEvidence() {
        stage = "pre-test";
        for (int i = 0; i < 5; i++) {
            loadRound(200);
        }
        stage = "formal";
        long sec = now / 1000;
        Decision d = round(PassiveEvidence.fromWindows(windows(sec - 3, sec - 1, 20, 0, 280)), http("order", true));
        var load = of(d, FaultDecider.PASSIVE_MODULE);
        assertTrue(load.evidence().breaches().stream().anyMatch(b -> b.rule().equals("baseline")), load.evidence().toString());
        sec = now / 1000;
        d = round(PassiveEvidence.fromWindows(windows(sec - 3, sec - 1, 20, 0, 250)), http("order", true));
        assertTrue(of(d, FaultDecider.PASSIVE_MODULE).evidence().breaches().isEmpty());
    }

    /**
     * Issue 46: the pre-test now comes first, on targets its marked traffic has not warmed (the demo shop's first calls
     * take over a second), and the warm-up after the dynamic gate. The p99 baseline is the warm-up's last step: a cold
     * pre-test's 600 ms would let the formal stage's p99 grow fivefold unflagged. No warm-up round is judged against a
     * baseline, and its earlier, colder steps are not in it.
     */
    @Test
    void theP99BaselineIsTheWarmUpsLastStepNotTheColdPreTest() {
        stage = "pre-test";
        for (int i = 0; i < 5; i++) {
            loadRound(600);
        }
        stage = "warm-up";
        long[] warmUpP99Ms = {900, 300, 60};
        for (step = 0; step < warmUpP99Ms.length; step++) {
            for (int i = 0; i < 5; i++) {
                Decision d = loadRound(warmUpP99Ms[step]);
                assertTrue(of(d, FaultDecider.PASSIVE_MODULE).evidence().breaches().isEmpty(),
                        "the warm-up is not judged against a baseline: " + of(d, FaultDecider.PASSIVE_MODULE).evidence());
            }
        }
        stage = "formal";
        step = 0;
        Decision d = loadRound(100);
        assertTrue(of(d, FaultDecider.PASSIVE_MODULE).evidence().breaches().isEmpty(), "100 ms is within 60 + 50 ms");
        d = loadRound(150);
        Breach b = of(d, FaultDecider.PASSIVE_MODULE).evidence().breaches().getFirst();
        assertEquals("baseline", b.rule());
        assertEquals(110.0, b.limit(), 0.5, "the warm-up's last step's 60 ms + 50 ms, not the pre-test's 600 ms");
    }

    @Test
    void p99OverASmallBaselineMustAlsoExceedTheMinimumDelta() {
        stage = "pre-test";
        for (int i = 0; i < 5; i++) {
            loadRound(4);
        }
        stage = "formal";
        long sec = now / 1000;
        Decision d = round(PassiveEvidence.fromWindows(windows(sec - 3, sec - 1, 20, 0, 40)), http("order", true));
        assertTrue(of(d, FaultDecider.PASSIVE_MODULE).evidence().breaches().isEmpty(), "10x of 4 ms is still < 4 + 50 ms");
        sec = now / 1000;
        d = round(PassiveEvidence.fromWindows(windows(sec - 3, sec - 1, 20, 0, 60)), http("order", true));
        assertEquals("baseline", of(d, FaultDecider.PASSIVE_MODULE).evidence().breaches().getFirst().rule());
    }

    @Test
    void errorBurstDamagesTheLoadPseudoModuleAndTheAbortPolicyCanAct() {
        long sec = now / 1000;
        var passive = PassiveEvidence.fromWindows(windows(sec - 10, sec - 1, 20, 15, 50));
        Decision d = round(passive, http("order", true));
        assertEquals(State.DAMAGED, state(d, FaultDecider.PASSIVE_MODULE));
        assertEquals("error-burst", of(d, FaultDecider.PASSIVE_MODULE).evidence().rule());
        assertEquals(State.HEALTHY, state(d, "order"));
        assertTrue(d.abortRequested(), "default policy: error rate over 50 % for 10 s");
        assertTrue(d.abortReason().startsWith("error rate over"), d.abortReason());
    }

    /** A scrape of {@code module} with its heap and pool normal and a breaker's not-permitted counter. */
    static HealthReport promWithNotPermitted(String module, String breaker, double count) {
        Map<String, Double> m = new HashMap<>(prom(module, 0.5, 0.2).metrics());
        m.put("breakerNotPermitted:" + breaker, count);
        return new HealthReport(module, "prometheus", true, "SCRAPED", List.of(), 5, "", m, 0);
    }

    /**
     * Issue 42 item 2: answers a breaker's fallback gave count in the abort policy's error rate, as check failures do,
     * but never twice (a fallback the plan's check already failed is one error).
     */
    @Test
    void theAbortPolicysErrorRateCountsTheAnswersOfBreakerFallbacks() {
        rules = DecisionRules.fromJson("{\"abortPolicy\":{\"conditions\":[{\"type\":\"errorRateOver\",\"errorRate\":0.25,"
                + "\"forSeconds\":5}]}}");
        // 20 requests a second, none failed by the load driver; order's breaker gives 10 fallbacks a second (20 a round)
        Decision d = null;
        for (int i = 0; i < 6; i++) {
            long sec = now / 1000;
            d = round(PassiveEvidence.fromWindows(windows(sec - 10, sec - 1, 20, 0, 20)), http("order", true),
                    promWithNotPermitted("order", "inventory", 1000 + 20 * i));
        }
        assertTrue(d.abortRequested(), d.modules().toString());
        assertEquals("error rate over 0.250 for 5 s (counting the answers of circuit breakers' fallbacks)", d.abortReason());

        // control: the same load with the counter standing still
        states.clear();
        for (int i = 0; i < 6; i++) {
            long sec = now / 1000;
            d = round(PassiveEvidence.fromWindows(windows(sec - 10, sec - 1, 20, 0, 20)), http("order", true),
                    promWithNotPermitted("order", "inventory", 1000));
        }
        assertFalse(d.abortRequested(), d.abortReason());

        // 3 errors a second (15 %) and 3 fallbacks a second: the plan's check failed the fallbacks, so still 15 %
        states.clear();
        for (int i = 0; i < 6; i++) {
            long sec = now / 1000;
            d = round(PassiveEvidence.fromWindows(windows(sec - 10, sec - 1, 20, 3, 20)), http("order", true),
                    promWithNotPermitted("order", "inventory", 1000 + 6 * i));
        }
        assertFalse(d.abortRequested(), "a fallback already counted as an error is not counted twice: " + d.abortReason());
    }

    @Test
    void breakerFallbacksAreSpreadOverTheSecondsBetweenTwoReadings() {
        long t0 = 1_700_000_000_500L;
        BreakerFallbacks b = BreakerFallbacks.empty().next(List.of(promWithNotPermitted("order", "inventory", 50)), t0);
        assertEquals(0, b.bySecond().size(), "a first reading only sets the start");
        b = b.next(List.of(promWithNotPermitted("order", "inventory", 70), promWithNotPermitted("order", "payment", 10)), t0 + 2000);
        // 20 over [..00.5, ..02.5): 5 in second 0, 10 in second 1, 5 in second 2; payment's first reading sets its start
        assertEquals(5.0, b.at(1_700_000_000L), 1e-9);
        assertEquals(10.0, b.at(1_700_000_001L), 1e-9);
        assertEquals(5.0, b.at(1_700_000_002L), 1e-9);
        b = b.next(List.of(promWithNotPermitted("order", "inventory", 74), promWithNotPermitted("order", "payment", 16)), t0 + 3000);
        assertEquals(5.0 + 3.0, b.at(1_700_000_002L), 1e-9, "the larger breaker's increase (6), not the sum (10)");
        assertEquals(3.0, b.at(1_700_000_003L), 1e-9);
        b = b.next(List.of(promWithNotPermitted("order", "inventory", 2)), t0 + 4000);
        assertEquals(2.0 / 2 + 3.0, b.at(1_700_000_003L), 1e-9, "a counter that fell (a restarted JVM) counts from 0");
        assertEquals(b, b.next(List.of(prom("order", 0.5, 0.2)), t0 + 5000), "a scrape without the counter changes nothing");
    }

    @Test
    void abortPolicyDefaultActsOnDamagedCoreModulesOnly() {
        Decision d = round(http("inventory", false), tcp("inventory", false));
        assertEquals(State.DAMAGED, state(d, "inventory"));
        assertFalse(d.abortRequested(), "inventory is not a core module here");
        d = round(http("order", false), tcp("order", false));
        assertTrue(d.abortRequested());
        assertTrue(d.abortReason().contains("order"));
        rules = DecisionRules.fromJson("{\"abortPolicy\":{\"conditions\":[]}}");
        d = round(http("order", false), tcp("order", false));
        assertFalse(d.abortRequested());
    }

    @Test
    void tooFewPassiveRequestsAreNoEvidence() {
        long sec = now / 1000;
        Decision d = round(PassiveEvidence.fromWindows(windows(sec - 3, sec - 1, 2, 2, 50)), http("order", true));
        assertTrue(d.modules().stream().noneMatch(m -> m.verdict().module().equals(FaultDecider.PASSIVE_MODULE)));
    }

    static State state(Map<String, ModuleState> s, String module) {
        return s.get(module).verdict();
    }
}
