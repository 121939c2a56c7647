package dev.richter.decider;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The named defaults of {@link Thresholds} (DESIGN.md §4), its builder, and its refusals. */
class ThresholdsTest {
    private static Knob<Thresholds.Builder> knob(String field, Function<Thresholds.Builder, Thresholds.Builder> set, Object value) {
        return new Knob<>(field, set, value);
    }

    @Test
    void theDefaultsAreTheDocumentedValues() {
        Thresholds d = Thresholds.defaults();
        assertEquals(0.999, d.minSuccessRate());
        assertEquals(10, d.minPassiveRequests());
        assertEquals(3000, d.p99MaxMs());
        assertEquals(1.30, d.p99OverBaselineRatio());
        assertEquals(50, d.p99OverBaselineMinDeltaMs());
        assertEquals(0.95, d.connectionsInUseMaxRatio());
        assertEquals(4, d.connectionsSigmaK());
        assertEquals(0.90, d.heapUsedMaxRatio());
        assertEquals(0.3, d.heapEwmaAlpha());
        assertEquals(3, d.heapEwmaControlK());
        assertEquals(0.95, d.cpuMaxRatio());
        assertEquals(5, d.minSamples());
        assertEquals(30, d.slidingWindowSize());
        assertEquals(3, d.trendSamples());
        assertEquals(0.15, d.trendMinRise());
        assertEquals(10, d.trendHorizonS());
        assertEquals(5, d.exhaustionHorizonS());
        assertEquals(0.90, d.hostCpuMaxRatio());
        assertEquals(0, d.connectionsPendingMax());
        assertEquals(0.95, d.threadPoolInUseMaxRatio());
        assertEquals(100, d.executorQueuedTasksMax());
        assertEquals(0.10, d.gcTimeMaxFraction());
        assertEquals(5, d.healthLatencyOverBaselineRatio());
        assertEquals(200, d.healthLatencyMinMs());
        assertEquals(3, d.saturationConsecutiveRounds());
        assertEquals(d, Thresholds.builder().build());
        assertEquals(d, d.toBuilder().build());
        assertEquals(Thresholds.DEFAULT_HEAP_USED_MAX_RATIO, d.heapUsedMaxRatio());
    }

    @Test
    void eachSetterChangesExactlyItsField() {
        Knob.assertEachSetsOnlyItsField(Thresholds.defaults(), Thresholds::toBuilder, Thresholds.Builder::build, List.of(
                knob("minSuccessRate", b -> b.minSuccessRate(0.99), 0.99),
                knob("minPassiveRequests", b -> b.minPassiveRequests(20), 20L),
                knob("p99MaxMs", b -> b.p99MaxMs(2000), 2000.0),
                knob("p99OverBaselineRatio", b -> b.p99OverBaselineRatio(1.5), 1.5),
                knob("p99OverBaselineMinDeltaMs", b -> b.p99OverBaselineMinDeltaMs(80), 80.0),
                knob("connectionsInUseMaxRatio", b -> b.connectionsInUseMaxRatio(0.9), 0.9),
                knob("connectionsSigmaK", b -> b.connectionsSigmaK(5), 5.0),
                knob("heapUsedMaxRatio", b -> b.heapUsedMaxRatio(0.85), 0.85),
                knob("heapEwmaAlpha", b -> b.heapEwmaAlpha(0.5), 0.5),
                knob("heapEwmaControlK", b -> b.heapEwmaControlK(2), 2.0),
                knob("cpuMaxRatio", b -> b.cpuMaxRatio(0.8), 0.8),
                knob("minSamples", b -> b.minSamples(7), 7),
                knob("slidingWindowSize", b -> b.slidingWindowSize(60), 60),
                knob("trendSamples", b -> b.trendSamples(4), 4),
                knob("trendMinRise", b -> b.trendMinRise(0.2), 0.2),
                knob("trendHorizonS", b -> b.trendHorizonS(20), 20.0),
                knob("exhaustionHorizonS", b -> b.exhaustionHorizonS(0), 0.0),
                knob("hostCpuMaxRatio", b -> b.hostCpuMaxRatio(0.8), 0.8),
                knob("connectionsPendingMax", b -> b.connectionsPendingMax(2), 2.0),
                knob("threadPoolInUseMaxRatio", b -> b.threadPoolInUseMaxRatio(0.9), 0.9),
                knob("executorQueuedTasksMax", b -> b.executorQueuedTasksMax(50), 50.0),
                knob("gcTimeMaxFraction", b -> b.gcTimeMaxFraction(0.2), 0.2),
                knob("healthLatencyOverBaselineRatio", b -> b.healthLatencyOverBaselineRatio(3), 3.0),
                knob("healthLatencyMinMs", b -> b.healthLatencyMinMs(100), 100.0),
                knob("saturationConsecutiveRounds", b -> b.saturationConsecutiveRounds(5), 5)));
    }

    @Test
    void eachOutOfRangeValueIsRefusedNamingItsFieldAndRule() {
        refused(b -> b.minSuccessRate(1.5), "minSuccessRate must be in [0, 1], was 1.5");
        refused(b -> b.minSuccessRate(-0.1), "minSuccessRate must be in [0, 1], was -0.1");
        refused(b -> b.minPassiveRequests(-1), "minPassiveRequests must be >= 0, was -1");
        refused(b -> b.p99MaxMs(-1), "p99MaxMs must be >= 0, was -1");
        refused(b -> b.p99MaxMs(Double.NaN), "p99MaxMs must be >= 0, was NaN");
        refused(b -> b.p99OverBaselineRatio(-0.5), "p99OverBaselineRatio must be >= 0, was -0.5");
        refused(b -> b.p99OverBaselineMinDeltaMs(-1), "p99OverBaselineMinDeltaMs must be >= 0, was -1");
        refused(b -> b.connectionsInUseMaxRatio(-0.1), "connectionsInUseMaxRatio must be >= 0, was -0.1");
        refused(b -> b.connectionsSigmaK(-1), "connectionsSigmaK must be >= 0, was -1");
        refused(b -> b.heapUsedMaxRatio(-0.1), "heapUsedMaxRatio must be >= 0, was -0.1");
        refused(b -> b.heapEwmaAlpha(0), "heapEwmaAlpha must be in (0, 1], was 0");
        refused(b -> b.heapEwmaAlpha(1.5), "heapEwmaAlpha must be in (0, 1], was 1.5");
        refused(b -> b.heapEwmaControlK(-1), "heapEwmaControlK must be >= 0, was -1");
        refused(b -> b.cpuMaxRatio(-0.1), "cpuMaxRatio must be >= 0, was -0.1");
        refused(b -> b.minSamples(0), "minSamples must be >= 1, was 0");
        refused(b -> b.slidingWindowSize(4), "slidingWindowSize must be >= minSamples (5), was 4");
        refused(b -> b.trendSamples(1), "trendSamples must be >= 2, was 1");
        refused(b -> b.trendMinRise(-0.01), "trendMinRise must be >= 0, was -0.01");
        refused(b -> b.trendHorizonS(-1), "trendHorizonS must be >= 0, was -1");
        refused(b -> b.exhaustionHorizonS(-1), "exhaustionHorizonS must be >= 0, was -1");
    }

    @Test
    void ratiosAboveOneAndZeroHorizonsAreAcceptedTheySwitchARuleOff() {
        Thresholds t = Thresholds.builder().heapUsedMaxRatio(2).connectionsInUseMaxRatio(2).cpuMaxRatio(2)
                .trendHorizonS(0).exhaustionHorizonS(0).build();
        assertEquals(2, t.heapUsedMaxRatio());
        assertEquals(0, t.exhaustionHorizonS());
    }

    @Test
    void storedThresholdsAreReadByFieldNameAndRefusedNamingTheField() {
        DecisionRules r = DecisionRules.fromJson("{\"thresholds\":{\"cpuMaxRatio\":0.8,\"minSamples\":3}}");
        assertEquals(Thresholds.builder().cpuMaxRatio(0.8).minSamples(3).build(), r.thresholds());
        var e = assertThrows(IllegalArgumentException.class,
                () -> DecisionRules.fromJson("{\"thresholds\":{\"heapEwmaAlpha\":1.5}}"));
        assertTrue(e.getMessage().startsWith("invalid decision rules: ") && e.getMessage().contains("heapEwmaAlpha must be in (0, 1], was 1.5"),
                e.getMessage());
    }

    private static void refused(Function<Thresholds.Builder, Thresholds.Builder> set, String message) {
        Knob.assertRefused(Thresholds.builder(), set, Thresholds.Builder::build, message);
    }
}
