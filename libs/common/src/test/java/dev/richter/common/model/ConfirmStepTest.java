package dev.richter.common.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/**
 * The confirm slot and the confirm step (DESIGN.md §5 "Confirm step"): where the formal stage's slots come from, what
 * each slot runs once a confirm step was called for, and the confirm step's rate.
 */
class ConfirmStepTest {
    private static Plan plan(Plan.StepSpec... formal) {
        return new Plan("plan-1", "t1", "p", List.of(), new Plan.StepSpec(2, 10), List.of(formal), null, List.of(), 50,
                2000, 0);
    }

    private static final Plan DEMO = plan(new Plan.StepSpec(20, 10), new Plan.StepSpec(40, 10), new Plan.StepSpec(60, 10),
            new Plan.StepSpec(80, 10));

    @Test
    void aPlanOfTwoStepsOrMoreHasOneConfirmSlotBoundByItsStepsFromTheSecondOn() {
        assertEquals(5, DEMO.formalSlots().size());
        assertEquals(new Plan.StepSpec(80, 10), DEMO.formalSlots().get(4));
        Plan uneven = plan(new Plan.StepSpec(500, 60), new Plan.StepSpec(100, 30), new Plan.StepSpec(200, 5));
        assertEquals(new Plan.StepSpec(200, 30), uneven.confirmSlot(), "the first step is never F; rate and duration apart");
        assertEquals(1, uneven.confirmSlotCostliest(), "100 x 30 sends more than 200 x 5");
        Plan one = plan(new Plan.StepSpec(20, 10));
        assertEquals(one.formal(), one.formalSlots(), "one step has no knee to confirm");
        assertThrows(IllegalStateException.class, one::confirmSlot);
    }

    @Test
    void theConfirmStepRunsMidwayAndLaterStepsMoveOneSlotOn() {
        assertEquals(OptionalDouble.of(50), Plan.confirmQps(40, 60));
        assertEquals(OptionalDouble.of(1.5), Plan.confirmQps(1, 2));
        assertEquals(OptionalDouble.of(0.02), Plan.confirmQps(0.01, 0.03));
        assertEquals(OptionalDouble.empty(), Plan.confirmQps(0.01, 0.02), "no rate between them at 0.01 QPS");
        ConfirmStep afterStep3 = new ConfirmStep(2, 50, 10, "step 2 at 40 QPS held, step 3 at 60 QPS failed");
        List<StepRef> slots = new java.util.ArrayList<>();
        for (int i = 0; i < DEMO.formalSlots().size(); i++) {
            Plan.StepSpec s = DEMO.formalSlots().get(i);
            slots.add(afterStep3.stepFor(new StepRef("r1", "t1", Stages.FORMAL, i, s.qps(), s.durationS()), DEMO));
        }
        assertEquals(List.of("formal#0 20.0", "formal#1 40.0", "formal#2 60.0", "confirm#0 50.0", "formal#3 80.0"),
                slots.stream().map(r -> r.stage() + "#" + r.stepIndex() + " " + r.qps()).toList());
        ConfirmStep afterLast = new ConfirmStep(3, 70, 10, "");
        assertEquals(new StepRef("r1", "t1", Stages.CONFIRM, 0, 70, 10),
                afterLast.stepFor(new StepRef("r1", "t1", Stages.FORMAL, 4, 80, 10), DEMO), "the confirm slot itself");
    }
}
