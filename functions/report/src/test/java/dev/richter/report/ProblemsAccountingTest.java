package dev.richter.report;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.Counters;
import dev.richter.common.model.StepPlan;
import dev.richter.common.model.WorkerKey;
import dev.richter.common.model.WorkerResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;


/** {@link Problems#accounting}: the report names where its counts and the target's can differ. */
class ProblemsAccountingTest {
    private static WorkerResult result(int worker, List<Long> unstored) {
        return new WorkerResult("run-1", "formal", 0, worker, 2, 10, 1_000_000, 1_010_000, Counters.ZERO, null, null, false,
                0, 0, 0, unstored);
    }

    @Test
    void windowsNotStoredAreAWarningThatKeepsTheCountsExact() {
        List<Report.Problem> p = Problems.accounting(List.of(result(0, List.of(1000L, 1001L, 1004L)), result(1, List.of())), Map.of(), List.of());
        assertEquals(1, p.size());
        assertEquals(CheckResult.Outcome.WARN, p.get(0).severity());
        assertEquals("formal/step 1/leg 1/worker 0", p.get(0).subject());
        assertTrue(p.get(0).problem().startsWith("3 per-second windows not stored (epoch seconds 1000 to 1004)"), p.get(0).problem());
    }

    @Test
    void requestsOfAWorkerWithoutAResultAreNamedFromItsWindows() {
        // worker 1 crashed: its windows show 37 sends, the step's counts (from results) miss them
        Map<WorkerKey, Long> windows = Map.of(new WorkerKey("formal", 0, 0, 0), 50L, new WorkerKey("formal", 0, 0, 1), 37L);
        var step = new StepPlan("run-1", "t1", "plan-1", "formal", 0, 10, 6, 5, 2,
                1_000_000, 6_000, 1, 1000, 2000, 100);
        List<Report.Problem> p = Problems.accounting(List.of(result(0, List.of())), windows, List.of(step));
        assertEquals(1, p.size());
        assertEquals(CheckResult.Outcome.FAIL, p.get(0).severity());
        assertTrue(p.get(0).problem().startsWith("37 requests were sent by workers that stored no result"
                + " (formal/step 1/leg 1/worker 1: 37,"), p.get(0).problem());
        // 10 QPS over 2 workers: up to 2 s x 5 QPS = 10 more never reached a window
        assertTrue(p.get(0).problem().endsWith("the target received between 37 and 47 more requests than the step's counts"),
                p.get(0).problem());
    }

    @Test
    void nothingToNameWhenEveryWorkerStoredEverything() {
        assertEquals(List.of(), Problems.accounting(List.of(result(0, List.of())), Map.of(new WorkerKey("formal", 0, 0, 0), 50L), List.of()));
    }
}
