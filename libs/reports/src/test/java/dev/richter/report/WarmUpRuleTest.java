package dev.richter.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.Counters;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WarmUpRuleTest {
    /** A warm-up step at 20 QPS × 10 s answering {@code ok} of 200 with the given p50 and p90. */
    static StepFigures step(int index, double qps, long ok, double p50, double p90) {
        long errors = 200 - ok;
        Counters c = new Counters(200, 200, ok, errors == 0 ? Map.of() : Map.of("503", errors), 0, 0, 0, 0, 200);
        return new StepFigures("warm-up", index, qps, 10, 1, 1, List.of(), 20, 0, c, 100.0 * ok / 200,
                Map.of("p50", p50, "p90", p90, "p99", p90 * 1.5), Map.of(), false, 0, 0, "", 1, List.of(), 0);
    }

    @Test
    void aWarmTargetIsSteadyAtItsThirdHold() {
        List<StepFigures> w = List.of(step(0, 2, 200, 40, 90), step(1, 4.3, 200, 30, 60), step(2, 9.3, 200, 20, 40),
                step(3, 20, 200, 12, 20), step(4, 20, 200, 11, 22), step(5, 20, 200, 12, 21));
        WarmUpRule.End end = WarmUpRule.end(w, 3).orElseThrow();
        assertTrue(end.steady(), end.text());
        assertEquals(5, end.stepIndex());
        assertEquals("steady at warm-up step 6: over steps 4-6 p50 11-12 ms, p90 20-22 ms, errors 0.00-0.00 % (p50 within"
                + " 20 %, p90 within 30 %, or 3 ms; errors within 1 point)", end.text());
    }

    @Test
    void aTargetStillGettingFasterIsNotSteadyWhereTwoNeighboursAgree() {
        // the cold variant: 600 ms falling by 60 ms a hold, neighbours 11 % apart, three 25 % apart, until warm
        List<StepFigures> w = new ArrayList<>();
        double[] p50 = {600, 540, 480, 420, 360, 300, 240, 180, 120, 60, 15, 14, 15};
        for (int i = 0; i < p50.length; i++) {
            w.add(step(i, 20, 200, p50[i], p50[i] * 1.3));
        }
        WarmUpRule.End end = WarmUpRule.end(w, 0).orElseThrow();
        assertTrue(end.steady(), end.text());
        assertEquals(12, end.stepIndex(), "steady only once the three holds are all warm: " + end.text());
        WarmUpRule.End cut = WarmUpRule.end(w.subList(0, 6), 0).orElseThrow();
        assertFalse(cut.steady());
        assertEquals(5, cut.stepIndex());
        assertEquals("not steady after 6 hold steps: over steps 4-6 p50 spread 300-420 ms (420 → 360 → 300)", cut.text());
    }

    @Test
    void theRuleNeedsThreeConsecutiveHoldsAndEnoughAnswersWithoutAnErrorTrend() {
        assertEquals("not steady after 2 hold steps (fewer than 3 in a row to compare)", WarmUpRule.end(
                List.of(step(0, 20, 200, 10, 20), step(1, 20, 200, 10, 20)), 0).orElseThrow().text());
        List<StepFigures> gap = List.of(step(0, 20, 200, 10, 20), step(1, 20, 200, 10, 20), step(3, 20, 200, 10, 20));
        assertFalse(WarmUpRule.end(gap, 0).orElseThrow().steady(), "a missing step breaks the run of holds");
        List<StepFigures> breaker = List.of(step(0, 20, 200, 10, 20), step(1, 20, 190, 10, 20), step(2, 20, 200, 10, 20));
        assertEquals("not steady after 3 hold steps: over steps 1-3 errors spread 0.00-5.00 %",
                WarmUpRule.end(breaker, 0).orElseThrow().text());
        assertTrue(WarmUpRule.end(List.of(step(0, 20, 200, 2, 3), step(1, 20, 200, 3, 5), step(2, 20, 200, 4, 6)), 0)
                .orElseThrow().steady(), "a spread under 3 ms is steady whatever its percentage");
        assertTrue(WarmUpRule.end(List.of(step(0, 20, 200, 10, 20)), -1).isEmpty(), "a fixed warm-up has no rule");
    }
}
