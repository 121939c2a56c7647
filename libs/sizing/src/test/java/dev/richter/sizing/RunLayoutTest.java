package dev.richter.sizing;

import dev.richter.common.Json;
import dev.richter.common.model.EvidenceSources;
import dev.richter.common.model.LegItem;
import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.StepRef;
import dev.richter.common.model.WorkerRef;
import dev.richter.sizing.Quotas;
import dev.richter.sizing.RunLayout;
import dev.richter.sizing.WorkerTasks;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;


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
        var stages = RunLayout.prepare("run-1", plan("order"), n -> Optional.of(ORDER));
        assertEquals(1, stages.preTest().size());
        assertEquals(2.0, stages.preTest().get(0).qps());
        // the plan's two steps, then the confirm slot at its bound: the highest rate from step 2 on, the longest duration
        assertEquals(List.of(20.0, 80.0, 80.0), stages.formal().stream().map(StepRef::qps).toList());
        assertEquals(List.of(0, 1, 2), stages.formal().stream().map(StepRef::stepIndex).toList());
        assertEquals(List.of(15, 15, 15), stages.formal().stream().map(StepRef::durationS).toList());
    }

    @Test
    void laysOutTheDefaultWarmUpAtTheFirstFormalRateBeforeThePreTest() {
        var stages = RunLayout.prepare("run-1", plan("order"), n -> Optional.of(ORDER));
        // at most 2 x ceil(10 000 / 20) = 1 000 s, bounded to 300 s: a ramp of 3 rungs of 5 s from the pre-test's
        // 2 QPS (2 x 10^(i/3) = 2, 4.3, 9.3 QPS), then (300 - 15) / 10 = 28 holds of 20 QPS x 10 s (200 answers each)
        List<String> laid = stages.warmUp().stream().map(w -> w.stage() + "#" + w.stepIndex() + " " + w.qps() + "x" + w.durationS()).toList();
        assertEquals(31, laid.size(), laid.toString());
        assertEquals(List.of("warm-up#0 2.0x5", "warm-up#1 4.3x5", "warm-up#2 9.3x5", "warm-up#3 20.0x10"), laid.subList(0, 4));
        assertEquals("warm-up#30 20.0x10", laid.get(30));
        assertEquals(3, plan("order").warmUpFirstHold());
    }

    @Test
    void aWarmUpTooShortForThreeHoldsIsFixedAndOneTooSlowHasNoRamp() {
        Plan p = plan("order");
        Plan shortOne = new Plan(p.planId(), p.teamId(), p.name(), p.scenarios(), p.preTest(), p.formal(), p.abortPolicy(),
                p.coreModules(), p.perWorkerQps(), p.requestTimeoutMs(), 0, new Plan.StepSpec(20, 19));
        assertEquals(List.of(new Plan.StepSpec(20, 19)), shortOne.warmUpSteps());
        assertEquals(-1, shortOne.warmUpFirstHold(), "a fixed warm-up is sent whole");
        Plan slow = new Plan(p.planId(), p.teamId(), p.name(), p.scenarios(), p.preTest(), p.formal(), p.abortPolicy(),
                p.coreModules(), p.perWorkerQps(), p.requestTimeoutMs(), 0, new Plan.StepSpec(2, 60));
        assertEquals(List.of(new Plan.StepSpec(2, 60)), slow.warmUpSteps(), "2 QPS holds are 30 s: two fit, too few");
        Plan twenty = new Plan(p.planId(), p.teamId(), p.name(), p.scenarios(), p.preTest(), p.formal(), p.abortPolicy(),
                p.coreModules(), p.perWorkerQps(), p.requestTimeoutMs(), 0, new Plan.StepSpec(20, 40));
        assertEquals(List.of(new Plan.StepSpec(2, 10), new Plan.StepSpec(4.3, 10), new Plan.StepSpec(9.3, 10),
                new Plan.StepSpec(20, 10)), twenty.warmUpSteps(), "15 s of ramp and 2 holds: fixed, a ramp of 4 equal rungs");
        Plan demo = new Plan(p.planId(), p.teamId(), p.name(), p.scenarios(), p.preTest(), p.formal(), p.abortPolicy(),
                p.coreModules(), p.perWorkerQps(), p.requestTimeoutMs(), 0, new Plan.StepSpec(20, 165));
        assertEquals(18, demo.warmUpSteps().size(), "the demo plan's: 3 rungs and 15 holds of 10 s");
        assertEquals(3, demo.warmUpFirstHold());
        Plan noRamp = new Plan(p.planId(), p.teamId(), p.name(), p.scenarios(), new Plan.StepSpec(20, 10), p.formal(),
                p.abortPolicy(), p.coreModules(), p.perWorkerQps(), p.requestTimeoutMs(), 0, new Plan.StepSpec(20, 35));
        assertEquals(List.of(new Plan.StepSpec(20, 10), new Plan.StepSpec(20, 10), new Plan.StepSpec(20, 10)),
                noRamp.warmUpSteps(), "no faster than the pre-test: holds only, the 5 s left over not sent");
        assertEquals(0, noRamp.warmUpFirstHold());
    }

    @Test
    void aPlanSetsItsWarmUpOrTurnsItOff() {
        Plan p = plan("order");
        Plan own = new Plan(p.planId(), p.teamId(), p.name(), p.scenarios(), p.preTest(), p.formal(), p.abortPolicy(),
                p.coreModules(), p.perWorkerQps(), p.requestTimeoutMs(), 0, new Plan.StepSpec(5, 40));
        List<StepRef> w = RunLayout.prepare("run-1", own, n -> Optional.of(ORDER)).warmUp();
        // 5 QPS holds are ceil(200 / 5) = 40 s: none fits after the ramp, so a fixed ramp of 2 x 2.5^(i/3) = 2, 2.7, 3.7, 5 QPS
        assertEquals(List.of(2.0, 2.7, 3.7, 5.0), w.stream().map(StepRef::qps).toList());
        assertEquals(List.of(10, 10, 10, 10), w.stream().map(StepRef::durationS).toList());
        Plan off = new Plan(p.planId(), p.teamId(), p.name(), p.scenarios(), p.preTest(), p.formal(), p.abortPolicy(),
                p.coreModules(), p.perWorkerQps(), p.requestTimeoutMs(), 0, new Plan.StepSpec(0, 0));
        assertTrue(RunLayout.prepare("run-1", off, n -> Optional.of(ORDER)).warmUp().isEmpty());
    }

    @Test
    void theDefaultWarmUpMayTakeTwiceTheCompileThresholdWithinItsBounds() {
        assertEquals(new Plan.StepSpec(100, 200), Plan.defaultWarmUp(List.of(new Plan.StepSpec(100, 10))));
        assertEquals(new Plan.StepSpec(400, 60), Plan.defaultWarmUp(List.of(new Plan.StepSpec(400, 10))));
        assertEquals(new Plan.StepSpec(10, 300), Plan.defaultWarmUp(List.of()));
    }

    @Test
    void rejectsAScenarioWhoseServiceIsNotRegistered() {
        var e = assertThrows(PlanNotRunnableException.class,
                () -> RunLayout.prepare("run-1", plan("ghost"), n -> Optional.empty()));
        assertTrue(e.getMessage().contains("'ghost'"), e.getMessage());
    }

    private static final Quotas QUOTAS = Quotas.AWS;

    @Test
    void startedStepFansOutWorkerReferencesWithOneSharedStartAndNoTraffic() {
        var step = new StepRef("run-1", "t1", "formal", 1, 80, 15);
        var unrelated = new RegisteredService("t1", "web2", "http://127.0.0.1:18099", "/health", null, List.of());
        var started = RunLayout.start(step, plan("order"), List.of(ORDER, unrelated), 1_000_000, false, QUOTAS);
        assertEquals(2, started.workerCount());
        assertEquals(List.of(0, 1), started.workerIndexes());
        assertEquals(1_000_000 + QUOTAS.workerLeadMs(), started.stepStartMs());
        assertEquals(1_000_000 + QUOTAS.workerLeadMs() + 15_000, started.stepEndsAtMs());
        assertEquals(1, started.legs().size(), "15 s fits one 900 s invocation");
        assertFalse(Json.write(started).contains("/orders"), "the state carries no traffic: " + Json.write(started));
        assertEquals(3, started.probeTargets().size(), "only the plan's modules are probed: " + started.probeTargets());
        assertEquals("http://127.0.0.1:18081/actuator/health", started.probeTargets().get(0).get("url"));
    }

    @Test
    void theTeamsEvidenceSourcesBecomeProbeTargetsOfTheStepsModulesOnly() {
        var expect = new EvidenceSources.MetricExpectation(null, null, 0.5, null, true);
        var sources = new EvidenceSources("t1",
                List.of(new EvidenceSources.PrometheusSource("prom", "http://127.0.0.1:9090", List.of(
                        new EvidenceSources.BusinessMetric("orders-per-second", "order", "sum(rate(orders_placed_total[15s]))", expect),
                        new EvidenceSources.BusinessMetric("signups", "web2", "sum(rate(signups_total[15s]))", expect)))),
                List.of(new EvidenceSources.AlertmanagerSource("oncall", "http://127.0.0.1:9093", Map.of("team", "shop"), null)),
                null);
        var started = RunLayout.start(new StepRef("run-1", "t1", "formal", 1, 80, 15), plan("order"), List.of(ORDER),
                sources, 1_000_000, false, QUOTAS);
        var evidence = started.probeTargets().stream().filter(t -> !List.of("http", "tcp", "prometheus").contains(t.get("kind"))).toList();
        assertEquals(2, evidence.size(), "web2 is not in the plan: " + evidence);
        assertEquals(Map.of("module", "order", "kind", "promql", "url", "http://127.0.0.1:9090", "name", "orders-per-second",
                "promql", "sum(rate(orders_placed_total[15s]))", "timeoutMs", RunLayout.PROBE_TIMEOUT_MS, "expect", expect),
                evidence.get(0));
        assertEquals(Map.of("module", "order", "kind", "alertmanager", "url", "http://127.0.0.1:9093", "source", "oncall",
                "matchers", Map.of("team", "shop"), "moduleLabel", "service", "timeoutMs", RunLayout.PROBE_TIMEOUT_MS),
                evidence.get(1));
    }

    @Test
    void workerTaskResolvesTheTrafficFromThePlanAndEncodesTheBody() {
        Plan plan = plan("order");
        var started = RunLayout.start(new StepRef("run-1", "t1", "formal", 1, 80, 15), plan,
                List.of(ORDER), 1_000_000, false, QUOTAS);
        var stored = RunLayout.stepPlan(started, plan);
        var task = WorkerTasks.workerTask(stored, new WorkerRef("run-1", "t1", "formal", 1, 0, 1),
                plan, List.of(ORDER));
        assertEquals(1, task.workerIndex());
        assertEquals(2, task.workerCount());
        assertEquals(started.stepStartMs(), task.stepStartEpochMs());
        String body = task.scenarios().get(0).requests().get(0).bodyBase64();
        assertEquals("{\"a\":1}", new String(Base64.getDecoder().decode(body)));
        assertEquals("http://127.0.0.1:18081", task.scenarios().get(0).targetBaseUrl());
        assertThrows(IllegalArgumentException.class, () -> WorkerTasks.workerTask(stored,
                new WorkerRef("run-1", "t1", "formal", 1, 0, 2), plan, List.of(ORDER)));
        assertThrows(PlanNotRunnableException.class, () -> WorkerTasks.workerTask(stored,
                new WorkerRef("run-1", "t1", "formal", 1, 0, 0), plan, List.of()));
    }

    @Test
    void aLongStepIsCutIntoLegsThatLaunchBeforeTheyAreDueAndCoverTheStep() {
        // 15 s Lambda timeout, 3 s lead, 1 s request timeout, 1 s grace, 2 s margin: 8 s legs
        Quotas q = Quotas.builder().loadDriverTimeoutS(15).workerLeadMs(3_000).legMarginMs(2_000)
                .historyEventsPerExecution(400).inlineMapMaxConcurrency(4).build();
        Plan plan = new Plan("plan-1", "t1", "p", plan("order").scenarios(), new Plan.StepSpec(2, 10),
                List.of(new Plan.StepSpec(20, 20)), null, List.of("order"), 5, 1000, 0);
        var started = RunLayout.start(new StepRef("run-1", "t1", "formal", 0, 20, 20), plan,
                List.of(ORDER), 1_000_000, false, q);
        assertEquals(4, started.workerCount());
        assertEquals(8_000, started.legMs());
        assertEquals(List.of(0, 1, 2), started.legs().stream().map(LegItem::legIndex).toList());
        var legs = started.legs();
        assertEquals(started.stepStartMs(), legs.get(0).startMs());
        assertEquals(legs.get(0).endMs(), legs.get(1).startMs(), "no gap between legs");
        assertEquals(legs.get(1).endMs(), legs.get(2).startMs());
        assertEquals(started.stepEndsAtMs(), legs.get(2).endMs());
        assertTrue(legs.get(2).last());
        assertEquals(java.time.Instant.ofEpochMilli(legs.get(1).startMs() - 3_000).toString(), legs.get(1).launchAt(),
                "a later leg's workers launch one lead before its first due time");
        assertEquals(java.time.Instant.ofEpochMilli(legs.get(1).startMs()).toString(), legs.get(1).startAt());
        assertEquals(java.time.Instant.ofEpochMilli(1_000_000).toString(), legs.get(0).launchAt());
        var stored = RunLayout.stepPlan(started, plan);
        var middle = WorkerTasks.workerTask(stored, new WorkerRef("run-1", "t1", "formal", 0, 1, 3),
                plan, List.of(ORDER));
        assertEquals(8_000, middle.legStartOffsetMs());
        assertEquals(16_000, middle.legEndOffsetMs());
        var last = WorkerTasks.workerTask(stored, new WorkerRef("run-1", "t1", "formal", 0, 2, 0),
                plan, List.of(ORDER));
        assertEquals(Long.MAX_VALUE, last.legEndOffsetMs(), "the last leg owns every later due time");
    }

    @Test
    void planAbortPolicyBecomesTheDecidersConditions() {
        var policy = RunLayout.abortPolicy(new Plan.AbortSettings(true, 25, 4));
        assertEquals(List.of(Map.of("type", "anyDamagedCoreModule"),
                Map.of("type", "errorRateOver", "errorRate", 0.25, "forSeconds", 4)), policy.get("conditions"));
        assertEquals(List.of(), RunLayout.abortPolicy(new Plan.AbortSettings(false, 100, 5)).get("conditions"));
    }

    @Test
    void abortedRunSkipsTheStepWithoutWorkers() {
        var step = new StepRef("run-1", "t1", "formal", 0, 20, 15);
        var started = RunLayout.start(step, plan("order"), List.of(ORDER), 5, true, QUOTAS);
        assertTrue(started.skip());
        assertTrue(started.workerIndexes().isEmpty());
        assertTrue(started.legs().isEmpty());
    }

    /** docs/services.md, "What your service must expose": without healthPath, prometheusPath or grpc, a TCP connect is all. */
    @Test
    void aServiceWithOnlyANameAndABaseUrlIsProbedByATcpConnectToItsPort() {
        var targets = RunLayout.probeTargets(List.of(
                new RegisteredService("t1", "plain", "http://plain.internal", null, null, null),
                new RegisteredService("t1", "secure", "https://secure.internal/api", "", "", List.of())));
        assertEquals(List.of(
                Map.of("module", "plain", "kind", "tcp", "host", "plain.internal", "port", 80, "timeoutMs", 1000),
                Map.of("module", "secure", "kind", "tcp", "host", "secure.internal", "port", 443, "timeoutMs", 1000)), targets);
    }

    @Test
    void tlsServicesCarryTheirCaToTheirHttpsAndGrpcProbesOnly() {
        String ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
        var tls = new dev.richter.common.model.RegisteredService("t1", "pay", "https://pay.internal:8443", "/health", "/metrics",
                List.of(), ca, new dev.richter.common.model.RegisteredService.GrpcHealth(9443, "pay.v1.Pay", true));
        var plain = new dev.richter.common.model.RegisteredService("t1", "order", "http://127.0.0.1:18081", "/health", null,
                List.of(), ca, null);
        var targets = RunLayout.probeTargets(List.of(tls, plain));
        assertEquals(List.of("http", "tcp", "prometheus", "grpc", "http", "tcp"),
                targets.stream().map(t -> t.get("kind")).toList());
        assertEquals(ca, targets.get(0).get("caPem"));
        assertEquals("https://pay.internal:8443/metrics", targets.get(2).get("url"));
        assertEquals(ca, targets.get(2).get("caPem"));
        assertEquals(java.util.Map.of("module", "pay", "kind", "grpc", "host", "pay.internal", "timeoutMs",
                targets.get(3).get("timeoutMs"), "port", 9443, "service", "pay.v1.Pay", "tls", true, "caPem", ca), targets.get(3));
        assertFalse(targets.get(4).containsKey("caPem"), "a plain http:// target never carries a CA");
    }
}
