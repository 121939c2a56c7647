package dev.richter.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.richter.common.model.Plan;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link RunLeases#expiresAtEpochS}: a lease outlasts every step the run sends, the warm-up included. */
class RunLeasesTest {
    private static Plan plan(Plan.StepSpec warmUp) {
        return new Plan("plan-1", "t1", "p", List.of(), new Plan.StepSpec(2, 10),
                List.of(new Plan.StepSpec(20, 15), new Plan.StepSpec(40, 15)), null, List.of(), 50, 2000, 0, warmUp);
    }

    @Test
    void theLeaseCountsTheWarmUpWhenItIsOn() {
        // the pre-test, the two formal steps, and the confirm slot at its bound (the step after the first failing one)
        long steps = 10 + 15 + 15 + 15;
        long off = RunLeases.expiresAtEpochS(plan(new Plan.StepSpec(0, 0)), 1_000_000);
        assertEquals(1_000 + steps + 4 * RunLeases.PER_STEP_MARGIN_S + RunLeases.LEASE_MARGIN_S, off);
        long on = RunLeases.expiresAtEpochS(plan(new Plan.StepSpec(20, 90)), 1_000_000);
        // at its longest: a ramp of 3 rungs of 5 s and 7 holds of 10 s (85 s), each with a step's margin; a warm-up
        // that steadies sooner ends the run sooner, and the lease is released then
        assertEquals(off + 85 + 10 * RunLeases.PER_STEP_MARGIN_S, on);
    }
}
