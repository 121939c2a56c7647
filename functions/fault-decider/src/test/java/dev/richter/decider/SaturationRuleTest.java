package dev.richter.decider;

import static org.junit.jupiter.api.Assertions.*;

import dev.richter.common.model.HealthReport;
import dev.richter.common.model.Verdict.State;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The {@code saturation} rule of DESIGN.md §4: a module whose saturation signal stays past its threshold for
 * {@code saturationConsecutiveRounds} rounds is SUSPECT while its health answers UP, never DAMAGED from that
 * alone; a signal that cannot be read is missing evidence.
 */
class SaturationRuleTest {
    static final long INTERVAL_MS = 2000;
    final FaultDecider decider = new FaultDecider();
    final Map<String, ModuleState> states = new HashMap<>();
    DecisionRules rules = DecisionRules.defaults();
    long now = 1_700_000_000_000L;
    String stage = "formal";

    ModuleDecision round(HealthReport... reports) {
        Decision d = decider.decide(new DecisionInput("run", stage, 0, List.of("gateway"), now, List.of(reports)),
                rules, states, PassiveEvidence.none());
        d.modules().forEach(m -> states.put(m.verdict().module(), m.next()));
        now += INTERVAL_MS;
        return d.modules().stream().filter(m -> m.verdict().module().equals("gateway")).findFirst().orElseThrow();
    }

    HealthReport up(long latencyMs) {
        return new HealthReport("gateway", "http", true, "UP", List.of(), latencyMs, "", Map.of(), now);
    }

    HealthReport scrape(Map<String, Double> metrics) {
        return new HealthReport("gateway", "prometheus", true, "SCRAPED", List.of(), 3, "", metrics, now);
    }

    HealthReport brokenScrape() {
        return new HealthReport("gateway", "prometheus", false, "PARSE_ERROR", List.of(), 3, "line 4: bad sample",
                Map.of(), now, HealthReport.Evidence.MONITORING, List.of());
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource({"hostCpuRatio, 0.98", "cpuRatio, 0.97", "connectionsInUseRatio, 1.0", "connectionsPending, 7",
            "threadPoolInUseRatio, 0.99", "executorQueuedTasks, 500"})
    void eachSignalPastItsThresholdForThreeRoundsIsSuspectWhileHealthIsUp(String metric, double value) {
        assertEquals(State.HEALTHY, round(up(40), scrape(Map.of(metric, value))).verdict().state());
        assertEquals(State.HEALTHY, round(up(40), scrape(Map.of(metric, value))).verdict().state());
        ModuleDecision d = round(up(40), scrape(Map.of(metric, value)));

        assertEquals(State.SUSPECT, d.verdict().state());
        assertEquals("saturation", d.evidence().rule());
        assertEquals(List.of(metric), d.evidence().saturation().stream().map(Breach::metric).toList());
        assertEquals(value, d.evidence().saturation().getFirst().value());
        assertTrue(d.verdict().reason().startsWith("saturated for 3 rounds while its probes answer: " + metric), d.verdict().reason());
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource({"hostCpuRatio, 0.85", "cpuRatio, 0.9", "connectionsInUseRatio, 0.5", "connectionsPending, 0",
            "threadPoolInUseRatio, 0.6", "executorQueuedTasks, 10"})
    void aSignalBelowItsThresholdStaysHealthy(String metric, double value) {
        for (int i = 0; i < 5; i++) {
            ModuleDecision d = round(up(40), scrape(Map.of(metric, value)));
            assertEquals(State.HEALTHY, d.verdict().state());
            assertEquals(List.of(), d.evidence().saturation());
        }
    }

    @Test
    void storedThresholdsApplyToTheNextRound() {
        rules = DecisionRules.fromJson("{\"thresholds\": {\"hostCpuMaxRatio\": 0.5, \"saturationConsecutiveRounds\": 1}}");
        ModuleDecision d = round(up(40), scrape(Map.of("hostCpuRatio", 0.6)));
        assertEquals(State.SUSPECT, d.verdict().state());
        assertEquals(new Breach("hostCpuRatio", 0.6, 0.5, "saturation"), d.evidence().saturation().getFirst());
        assertEquals(Thresholds.DEFAULT_GC_TIME_MAX_FRACTION, rules.thresholds().gcTimeMaxFraction(), "the rest stay defaults");
    }

    @Test
    void saturationAloneIsNeverDamaged() {
        Map<String, Double> everything = Map.of("hostCpuRatio", 1.0, "cpuRatio", 1.0, "connectionsInUseRatio", 1.0,
                "connectionsPending", 30.0, "threadPoolInUseRatio", 1.0, "executorQueuedTasks", 1000.0);
        ModuleDecision d = null;
        for (int i = 0; i < 30; i++) d = round(up(40), scrape(everything));
        assertEquals(State.SUSPECT, d.verdict().state());
        assertEquals("saturation", d.evidence().rule());
        assertEquals(6, d.evidence().saturation().size());
    }

    @Test
    void gcTimeIsTheCounterRiseOverWallTimeBetweenRounds() {
        // 0.5 s of pauses per 2 s round: 25 % of wall time, over the 10 % threshold from the second scrape on
        ModuleDecision d = null;
        for (int i = 0; i <= 3; i++) d = round(up(40), scrape(Map.of("gcPauseSeconds", 10 + 0.5 * i)));
        assertEquals(State.SUSPECT, d.verdict().state());
        Breach gc = d.evidence().saturation().getFirst();
        assertEquals("gcTimeFraction", gc.metric());
        assertEquals(0.25, gc.value(), 1e-9);
        assertEquals(0.10, gc.limit());
    }

    @Test
    void aFirstCounterOrOneThatWentDownAfterARestartIsNoGcFigure() {
        assertEquals(List.of(), round(up(40), scrape(Map.of("gcPauseSeconds", 50.0))).evidence().saturation());
        assertEquals(List.of(), round(up(40), scrape(Map.of("gcPauseSeconds", 0.1))).evidence().saturation(),
                "the counter fell: the JVM restarted, the rise is unknown");
        assertEquals(List.of(), round(up(40), scrape(Map.of("gcPauseSeconds", 0.12))).evidence().saturation(),
                "0.02 s over 2 s is 1 %");
    }

    @Test
    void healthLatencyFarOverItsPreTestBaselineIsSaturationEvenWhileUp() {
        stage = "pre-test";
        for (int i = 0; i < 5; i++) round(up(40));
        stage = "formal";
        round(up(450));
        round(up(450));
        ModuleDecision d = round(up(450));

        assertEquals(State.SUSPECT, d.verdict().state());
        Breach b = d.evidence().saturation().getFirst();
        assertEquals("healthLatencyMs", b.metric());
        assertEquals(450, b.value());
        assertEquals(200, b.limit(), "5 × 40 ms is below the 200 ms floor");
    }

    @Test
    void healthLatencyUnderTheFloorOrWithoutABaselineSaysNothing() {
        for (int i = 0; i < 5; i++) {
            assertEquals(State.HEALTHY, round(up(450)).verdict().state(), "no pre-test rounds: no baseline to compare");
        }
        states.clear();
        stage = "pre-test";
        for (int i = 0; i < 5; i++) round(up(20));
        stage = "formal";
        for (int i = 0; i < 5; i++) {
            ModuleDecision d = round(up(150));
            assertEquals(State.HEALTHY, d.verdict().state(), "7.5 × the baseline but under 200 ms");
        }
    }

    @Test
    void aRoundWhoseSignalsCannotBeReadHoldsTheCount() {
        Map<String, Double> hot = Map.of("hostCpuRatio", 0.99);
        round(up(40), scrape(hot));
        round(up(40), scrape(hot));
        ModuleDecision unread = round(up(40), brokenScrape());
        assertEquals(State.HEALTHY, unread.verdict().state());
        assertEquals(2, unread.next().saturation().rounds(), "missing evidence neither counts nor restarts");
        assertEquals(State.SUSPECT, round(up(40), scrape(hot)).verdict().state());
    }

    @Test
    void aRoundWithTheSignalsReadAndNormalRestartsTheCount() {
        Map<String, Double> hot = Map.of("hostCpuRatio", 0.99);
        round(up(40), scrape(hot));
        round(up(40), scrape(hot));
        round(up(40), scrape(Map.of("hostCpuRatio", 0.5)));
        round(up(40), scrape(hot));
        assertEquals(State.HEALTHY, round(up(40), scrape(hot)).verdict().state());
    }

    @Test
    void aSaturatedModuleRecoversOnlyOnceTheSignalsFall() {
        Map<String, Double> hot = Map.of("threadPoolInUseRatio", 1.0);
        for (int i = 0; i < 6; i++) round(up(40), scrape(hot));
        assertEquals(State.SUSPECT, states.get("gateway").verdict());
        ModuleDecision held = round(up(40), scrape(hot));
        assertEquals("saturation", held.evidence().rule(), "probes succeed, but saturation holds the verdict");
        ModuleDecision d = null;
        for (int i = 0; i < 3; i++) d = round(up(40), scrape(Map.of("threadPoolInUseRatio", 0.4)));
        assertEquals(State.HEALTHY, d.verdict().state());
        assertEquals("recovered", d.evidence().rule());
    }
}
