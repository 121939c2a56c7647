package dev.richter.decider;

import static dev.richter.decider.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.richter.common.model.HealthReport;
import dev.richter.common.model.Verdict.State;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The heap trend: a leak is seen by its slope before its level, and a heap about to run out is DAMAGED. */
class HeapTrendTest {
    final FaultDecider decider = new FaultDecider();
    final Map<String, ModuleState> states = new HashMap<>();
    long now = 1_700_000_000_000L;

    ModuleDecision round(double heap) {
        HealthReport prom = new HealthReport("order", "prometheus", true, "SCRAPED", List.of(), 3, "",
                Map.of("heapUsedRatio", heap, "connectionsInUseRatio", 0.2), now);
        Decision d = decider.decide(new DecisionInput("run", "formal", 0, List.of("order"), now,
                List.of(http("order", true), tcp("order", true), prom)), DecisionRules.defaults(), states, PassiveEvidence.none());
        d.modules().forEach(m -> states.put(m.verdict().module(), m.next()));
        now += 2000;
        return d.modules().getFirst();
    }

    static List<String> rules(ModuleDecision d) {
        return d.evidence().breaches().stream().map(Breach::rule).toList();
    }

    @Test
    void aLeakRisingTowardItsThresholdIsATrendBreachBeforeItsLevelCrossesIt() {
        round(0.50);
        round(0.62);
        ModuleDecision d = round(0.74);
        assertEquals(List.of("trend"), rules(d), d.verdict().reason());
        assertEquals(State.HEALTHY, d.verdict().state(), "a trend alone is one failing kind: no verdict change");
    }

    @Test
    void aHeapOverItsThresholdThatWillBeFullWithinFiveSecondsIsDamaged() {
        round(0.62);
        round(0.78);
        ModuleDecision d = round(0.94); // +0.08/s: full in 0.75 s
        assertEquals(State.DAMAGED, d.verdict().state(), d.verdict().reason());
        assertEquals("exhaustion-forecast", d.evidence().rule());
        assertTrue(d.verdict().reason().startsWith("heap about to run out: heapUsedRatio 0.9400 > 0.9000 (static), heapSecondsToFull 0.7500 < 5.000 (exhaustion)"),
                d.verdict().reason());
    }

    @Test
    void aHighButFlatHeapIsAStaticBreachOnly() {
        round(0.91);
        round(0.93);
        ModuleDecision d = round(0.92);
        assertEquals(List.of("static"), rules(d));
        assertEquals(State.HEALTHY, d.verdict().state());
    }

    @Test
    void aSlowClimbOverTheThresholdIsNotExhaustion() {
        // over the threshold and rising, but by 0.01 in 4 s: below trendMinRise, so scrape noise rather than a leak
        round(0.90);
        round(0.905);
        ModuleDecision d = round(0.91);
        assertEquals(List.of("static"), rules(d), "a rise below trendMinRise is noise, not a trend");
    }

    @Test
    void aHealthyHeapWanderingOverItsUsualRangeNeverTrends() {
        SplittableRandom rnd = new SplittableRandom(7);
        for (int i = 0; i < 2000; i++) {
            ModuleDecision d = round(0.45 + 0.15 * rnd.nextDouble());
            assertFalse(rules(d).contains("trend") || rules(d).contains("exhaustion"), "round " + i + ": " + rules(d));
        }
    }

    @Test
    void aStepChangeForgetsTheTrend() {
        round(0.50);
        round(0.62);
        Decision d = decider.decide(new DecisionInput("run", "formal", 1, List.of("order"), now, List.of(http("order", true),
                new HealthReport("order", "prometheus", true, "SCRAPED", List.of(), 3, "", Map.of("heapUsedRatio", 0.74), now))),
                DecisionRules.defaults(), states, PassiveEvidence.none());
        assertEquals(List.of(), rules(d.modules().getFirst()));
    }
}
