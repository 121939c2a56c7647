package dev.richter.sizing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class StepLayoutTest {
    @Test
    void workersAreTheCeilingOfTheStepOverThePerWorkerRateWithAMinimumOfOne() {
        assertEquals(1, StepLayout.workersFor(0.5, 100));
        assertEquals(1, StepLayout.workersFor(0, 100));
        assertEquals(1, StepLayout.workersFor(100, 100));
        assertEquals(2, StepLayout.workersFor(100.5, 100));
        assertEquals(30, StepLayout.workersFor(3000, 100));
        assertEquals(3, StepLayout.workersFor(0.3, 0.1), "no float overshoot from 0.3/0.1 = 3.0000000000000004");
        assertThrows(IllegalArgumentException.class, () -> StepLayout.workersFor(10, 0));
        assertThrows(IllegalArgumentException.class, () -> StepLayout.workersFor(Double.NaN, 10));
    }

    @Test
    void onAwsAThirtyMinuteStepTakesThreeLegsOfOneInvocationEach() {
        // 900 s − 10 s lead − 2 s request timeout − 1 s grace − 5 s margin = 882 s
        StepLayout layout = StepLayout.of(100_000, 1_800, 1_000, 2_000, Quotas.AWS);
        assertEquals(100, layout.workers());
        assertEquals(882_000, layout.legMs());
        assertEquals(List.of(new StepLayout.Leg(0, 0, 882_000, false), new StepLayout.Leg(1, 882_000, 1_764_000, false),
                new StepLayout.Leg(2, 1_764_000, 1_800_000, true)), layout.legs());
    }

    @Test
    void aStepShorterThanALegIsOneLeg() {
        StepLayout layout = StepLayout.of(20, 15, 50, 2_000, Quotas.AWS);
        assertEquals(List.of(new StepLayout.Leg(0, 0, 15_000, true)), layout.legs());
    }

    @Test
    void aTimeoutTooShortForTheLeadAndTheRequestDeadlineIsRefusedWithTheReason() {
        Quotas q = Quotas.builder().loadDriverTimeoutS(15).workerLeadMs(3_000).legMarginMs(2_000)
                .historyEventsPerExecution(400).inlineMapMaxConcurrency(4).build();
        var e = assertThrows(IllegalArgumentException.class, () -> StepLayout.of(20, 20, 5, 9_000, q));
        assertTrue(e.getMessage().contains("9000 ms request timeout"), e.getMessage());
        assertEquals(8_000, StepLayout.legMs(1_000, q), "15 s − 3 s − 1 s − 1 s − 2 s");
    }
}
