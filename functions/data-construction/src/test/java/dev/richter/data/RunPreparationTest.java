package dev.richter.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RunPreparationTest {
    private static final RegisteredService ORDER = new RegisteredService("t1", "order", "http://127.0.0.1:18081",
            "/actuator/health", "/actuator/prometheus", List.of());

    private static Plan plan(String service) {
        return new Plan("plan-1", "t1", "p", List.of(new Plan.ScenarioSpec("buy", service, 1,
                List.of(new Plan.RequestSpec("POST", "/orders", Map.of(), "{\"a\":1}", null)))),
                new Plan.StepSpec(2, 10), List.of(new Plan.StepSpec(20, 15), new Plan.StepSpec(80, 15)),
                null, List.of("order"), 50, 2000, 0);
    }

    @Test
    void laysOutOnePreTestStepAndTheFormalStepsInOrder() {
        var stages = RunPreparation.prepare("run-1", plan("order"), n -> Optional.of(ORDER));
        assertEquals(1, stages.preTest().size());
        assertEquals(2.0, stages.preTest().get(0).qps());
        assertEquals(List.of(20.0, 80.0), stages.formal().stream().map(RunPreparation.StepRef::qps).toList());
        assertEquals(List.of(0, 1), stages.formal().stream().map(RunPreparation.StepRef::stepIndex).toList());
    }

    @Test
    void rejectsAScenarioWhoseServiceIsNotRegistered() {
        var e = assertThrows(PlanNotRunnableException.class,
                () -> RunPreparation.prepare("run-1", plan("ghost"), n -> Optional.empty()));
        assertTrue(e.getMessage().contains("'ghost'"), e.getMessage());
    }

    @Test
    void startedStepFansOutWorkersWithOneSharedStartAndEncodesTheBody() {
        var step = new RunPreparation.StepRef("run-1", "t1", "formal", 1, 80, 15);
        var unrelated = new RegisteredService("t1", "web2", "http://127.0.0.1:18099", "/health", null, List.of());
        var started = RunPreparation.start(step, plan("order"), List.of(ORDER, unrelated), 1_000_000, false);
        assertEquals(2, started.workers().size());
        assertEquals(1_000_000 + RunPreparation.STEP_START_DELAY_MS, started.workers().get(1).stepStartEpochMs());
        assertEquals(1_000_000 + RunPreparation.STEP_START_DELAY_MS + 15_000, started.stepEndsAtMs());
        assertEquals(List.of(0, 1), started.workers().stream().map(w -> w.workerIndex()).toList());
        String body = started.workers().get(0).scenarios().get(0).requests().get(0).bodyBase64();
        assertEquals("{\"a\":1}", new String(Base64.getDecoder().decode(body)));
        assertEquals("http://127.0.0.1:18081", started.workers().get(0).scenarios().get(0).targetBaseUrl());
        assertEquals(3, started.probeTargets().size(), "only the plan's modules are probed: " + started.probeTargets());
        assertEquals("http://127.0.0.1:18081/actuator/health", started.probeTargets().get(0).get("url"));
    }

    @Test
    void planAbortPolicyBecomesTheDecidersConditions() {
        var policy = RunPreparation.abortPolicy(new Plan.AbortPolicy(true, 25, 4));
        assertEquals(List.of(Map.of("type", "anyDamagedCoreModule"),
                Map.of("type", "errorRateOver", "errorRate", 0.25, "forSeconds", 4)), policy.get("conditions"));
        assertEquals(List.of(), RunPreparation.abortPolicy(new Plan.AbortPolicy(false, 100, 5)).get("conditions"));
    }

    @Test
    void abortedRunSkipsTheStepWithoutWorkers() {
        var step = new RunPreparation.StepRef("run-1", "t1", "formal", 0, 20, 15);
        var started = RunPreparation.start(step, plan("order"), List.of(ORDER), 5, true);
        assertTrue(started.skip());
        assertTrue(started.workers().isEmpty());
    }

    @Test
    void workersAreTheCeilingOfStepOverPerWorkerRate() {
        assertEquals(1, RunPreparation.workersFor(0.5, 50));
        assertEquals(1, RunPreparation.workersFor(50, 50));
        assertEquals(2, RunPreparation.workersFor(50.5, 50));
        assertEquals(3, RunPreparation.workersFor(101, 50));
    }
}
