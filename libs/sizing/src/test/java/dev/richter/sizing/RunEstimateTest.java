package dev.richter.sizing;

import dev.richter.common.Json;
import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.StepRef;
import dev.richter.sizing.RunLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;


/**
 * The estimate's counts against numbers worked out by hand in the comments, on compressed quotas (the local
 * stack's kind) and on AWS's.
 */
class RunEstimateTest {
    /** 15 s load driver, 3 s lead, 2 s margin, 400 history events, 4 inline; AWS's 256 KiB, 10 000 map, 1 000 Lambda, 2 s wait. */
    private static final Quotas COMPRESSED = Quotas.builder().loadDriverTimeoutS(15).workerLeadMs(3000).legMarginMs(2000)
            .historyEventsPerExecution(400).inlineMapMaxConcurrency(4).build();
    private static final RegisteredService ORDER = new RegisteredService("t1", "order", "http://127.0.0.1:18081",
            "/actuator/health", "/actuator/prometheus", List.of());

    private static Plan plan(Plan.StepSpec preTest, List<Plan.StepSpec> formal, double perWorkerQps, int requestTimeoutMs) {
        return new Plan("plan-1", "t1", "p", List.of(new Plan.ScenarioSpec("buy", "order", 1,
                List.of(new Plan.RequestSpec("POST", "/orders", Map.of(), "{\"a\":1}", null)))),
                preTest, formal, null, List.of("order"), perWorkerQps, requestTimeoutMs, 1_700_000_000_000L, NO_WARM_UP);
    }

    /** The hand-worked plans below turn the warm-up off; {@link #theWarmUpIsCountedAsAStepOfItsOwn} counts it. */
    private static final Plan.StepSpec NO_WARM_UP = new Plan.StepSpec(0, 0);

    @Test
    void theWarmUpIsCountedAsAStepOfItsOwn() {
        Plan off = twoStepPlan();
        Plan on = new Plan(off.planId(), off.teamId(), off.name(), off.scenarios(), off.preTest(), off.formal(),
                off.abortPolicy(), off.coreModules(), off.perWorkerQps(), off.requestTimeoutMs(), off.createdAtMs(),
                new Plan.StepSpec(20, 65));
        RunEstimate a = RunEstimate.of(off, List.of(ORDER), Quotas.AWS, Prices.US_EAST_1);
        RunEstimate b = RunEstimate.of(on, List.of(ORDER), Quotas.AWS, Prices.US_EAST_1);
        // the warm-up at its longest: a ramp of 3 rungs of 5 s (2 -> 9.3 QPS), then 5 holds of 20 QPS x 10 s
        // in run order: the pre-test, then the warm-up (after the dynamic gate), then the formal steps
        assertEquals(List.of("pre-test", "warm-up", "warm-up", "warm-up", "warm-up", "warm-up", "warm-up", "warm-up",
                        "warm-up", "formal", "formal", "confirm"),
                b.steps().stream().map(RunEstimate.StepEstimate::stage).toList());
        assertEquals("$.warmUp", b.steps().get(1).path());
        // the warm-up's 65 s plus its start, worker lead and drain
        long perStep = RunEstimate.expectedDurationMs(on, Quotas.AWS) - RunEstimate.expectedDurationMs(off, Quotas.AWS);
        assertTrue(perStep > 65_000, "the warm-up adds its 65 s and its step overhead: " + perStep);
        assertTrue(b.costUsd().total() > a.costUsd().total(), a.costUsd() + " vs " + b.costUsd());
        // one worker (20 QPS at 50 per worker) writes one window a second
        assertEquals(65, b.dynamoDb().windowItems() - a.dynamoDb().windowItems());
        assertEquals(20, RunEstimate.parentTransitions(4, 2) - RunEstimate.parentTransitions(0, 2));
    }

    /** Pre-test 2 QPS × 10 s, formal 20 QPS × 15 s and 80 QPS × 5 s, 50 QPS per worker, 2 s request timeout. */
    private static Plan twoStepPlan() {
        return plan(new Plan.StepSpec(2, 10), List.of(new Plan.StepSpec(20, 15), new Plan.StepSpec(80, 5)), 50, 2000);
    }

    @Test
    void countsATwoStepPlanOnCompressedQuotasAsWorkedOutByHand() {
        // legMs = 15 000 - 3 000 lead - 2 000 request timeout - 1 000 grace - 2 000 margin = 7 000 ms.
        // pre-test  2 QPS x 10 s: 1 worker; legs [0,7000) [7000,10000).
        //   rounds are counted at the 1 s alert wait, the upper bound:
        //   leg 1 monitors 3 000 lead + 7 000 = 10 000 ms: ceil(10000/1000)+1 = 11 rounds, 20+14*11 = 174 events.
        //   leg 2 monitors 3 000 ms: 3+1 = 4 rounds, 76 events.
        //   invocations: 3000+7000+2000+1000+2000 = 15 000 ms and 3000+3000+5000 = 11 000 ms.
        // formal 1  20 QPS x 15 s: 1 worker; legs [0,7000) [7000,14000) [14000,15000).
        //   rounds 11, 7+1 = 8, 1+1 = 2; invocations 15 000, 15 000, 9 000 ms.
        // formal 2  80 QPS x 5 s: 2 workers; one leg [0,5000): monitors 8 000 ms, 9 rounds, 146 events; 13 000 ms each.
        // the confirm slot: counted as formal 2, the step from the second on that sends the most requests.
        RunEstimate e = RunEstimate.of(twoStepPlan(), List.of(ORDER), COMPRESSED, Prices.US_EAST_1);

        assertEquals(List.of(1, 1, 2, 2), e.steps().stream().map(RunEstimate.StepEstimate::workers).toList());
        assertEquals(List.of(2, 3, 1, 1), e.steps().stream().map(RunEstimate.StepEstimate::legs).toList());
        assertEquals(List.of(15L, 21L, 9L, 9L), e.steps().stream().map(RunEstimate.StepEstimate::monitorRounds).toList());
        assertEquals("confirm", e.steps().get(3).stage());
        assertEquals("$.formal.steps[1]", e.steps().get(3).path());
        assertEquals(7000, e.steps().get(0).legMs());

        // executions: 1 parent + 7 legs + (1*2 + 1*3 + 2*1 + 2*1 = 9) workers = 17
        assertEquals(new RunEstimate.Executions(17, 1, 7, 9), e.executions());
        // parent: 57 fixed (the warm-up's states though it is off) + 22 per step x 4 steps = 145; largest leg 174 (the pre-test's first); worker 7
        assertEquals(145, e.historyEvents().parent());
        assertEquals(174, e.maxHistoryEvents());
        assertEquals("pre-test step 1 leg 1", e.maxHistoryExecution());
        assertEquals(7, e.historyEvents().worker());
        // peaks: 1 worker x 2 overlapping legs = 2 (formal 2: 2 workers, one leg = 2); + probe + decider = 4
        assertEquals(2, e.peakConcurrentWorkers());
        assertEquals(4, e.peakConcurrentLambdas());
        assertEquals(3, e.maxMapConcurrency(), "formal step 1 runs 3 legs at once");
        assertEquals(13.0, e.longestInvocationS(), "15 s of Lambda time less the 2 s margin kept for the last flush");
        // expected duration (issue 24 finding 19): 35 s of steps (the confirm slot's bound is 80 QPS x 5 s); per step
        // 1 s start + 3 s lead + 5 s drain (2 s timeout, 1 s grace, 2 s margin) + 1 s Step Completed = 10 s, x 4; once:
        // prepare and release 1 s each, two checks 5 s each, report 10 s = 22 s
        assertEquals(35 + 40 + 22, e.expectedDurationS());
        // invocations: run-preparation 1 + 4 steps; probe and decider 15 + 21 + 9 + 9 = 54 rounds; report 1 + 4 Step Completed
        assertEquals(Map.of("run-preparation", 5L, "checks", 2L, "load-driver", 9L, "probe", 54L,
                "fault-decider", 54L, "report", 5L, "release-leases", 1L), e.lambdaInvocations());
        // transitions: parent 17 + 5*4 = 37; legs 7*6 + 4*54 = 258; workers 9 -> 304
        assertEquals(304, e.stateTransitions());
        // DynamoDB: windows 1*10 + 1*15 + 2*5 + 2*5 = 45 (2 WRU each), results 9 (3 WRU), verdicts 54 rounds x 2 items x
        // 2 modules (order, load) = 216 (1 WRU), 4 step items and 4 Step Completed claims: 90 + 27 + 216 + 8 = 341 WRU
        assertEquals(45, e.dynamoDb().windowItems());
        assertEquals(9, e.dynamoDb().resultItems());
        assertEquals(216, e.dynamoDb().verdictItems());
        assertEquals(341, e.dynamoDb().writeRequestUnits());
        // load driver: 26 000 + 39 000 + 2*13 000 + 2*13 000 = 117 000 ms at 1769 MB = 117 * 1769/1024 GB-s
        assertEquals(117 * 1769 / 1024.0, e.costUsd().loadDriverGbSeconds(), 1e-9);
        // others at 1 GB: 54*1000 + 54*500 + 5*1000 + 2*5000 + 10000 + 4*1000 (Step Completed) = 110 000 ms
        assertEquals(110.0, e.costUsd().otherGbSeconds(), 1e-9);
        // every function on arm64: $0.0000133334 per GB-second (aws.amazon.com/lambda/pricing/, us-east-1)
        double expectedTotal = (117 * 1769 / 1024.0 + 110.0) * 0.0000133334 + 130 / 1e6 * 0.20 + 304 / 1e3 * 0.025
                + 341 / 1e6 * 0.625 + e.dynamoDb().readRequestUnits() / 1e6 * 0.125;
        assertEquals(expectedTotal, e.costUsd().total(), 1e-12);
        // requests sent: 2 x 10 + 20 x 15 + 80 x 5 + the confirm slot's 80 x 5 = 1 120
        assertEquals(expectedTotal / 1120 * 1e6, e.usdPerMillionRequests(), 1e-9);
        assertEquals(List.of(), e.violations());
    }

    @Test
    void theLargestPayloadIsTheRealStartedStepMeasuredAsJson() {
        Plan plan = twoStepPlan();
        RunEstimate e = RunEstimate.of(plan, List.of(ORDER), COMPRESSED, Prices.US_EAST_1);
        // formal step 1 has the most legs (3): its started step is the biggest
        var started = RunLayout.start(new StepRef(RunEstimate.SAMPLE_RUN_ID, "t1", "formal", 0, 20, 15),
                plan, List.of(ORDER), RunEstimate.SAMPLE_NOW_MS, false, COMPRESSED);
        assertEquals(Json.write(started).length(), e.statePayloads().startedStepBytes());
        assertEquals(e.statePayloads().startedStepBytes(), e.steps().get(1).startedStepBytes());
        assertTrue(e.statePayloads().legInputBytes() < e.statePayloads().startedStepBytes(),
                "a leg carries one leg, not three: " + e.statePayloads());
        assertEquals(262144, e.statePayloads().limitBytes());
    }

    @Test
    void aHistoryLimitBelowALegsEventsIsReportedAtTheStepsDuration() {
        // same plan, history limit 150: the 174-event first legs of the pre-test and formal step 1 break it;
        // formal step 2's leg (146) and the parent (100) fit
        Quotas q = COMPRESSED.toBuilder().historyEventsPerExecution(150).build();
        RunEstimate e = RunEstimate.of(twoStepPlan(), List.of(ORDER), q, Prices.US_EAST_1);
        assertEquals(List.of("$.preTest.durationS", "$.formal.steps[0].durationS"),
                e.violations().stream().map(RunEstimate.Violation::path).toList());
        RunEstimate.Violation v = e.violations().get(1);
        assertEquals("historyEventsPerExecution", v.limit().name());
        assertEquals(150, v.limit().value());
        assertTrue(v.reason().contains("174 history events") && v.reason().contains("limit of 150"), v.reason());
    }

    @Test
    void tooManyWorkersBreakLambdaConcurrencyAndTheDistributedMap() {
        // formal step 2 at 200 QPS / 50 = 4 workers, 15 s = 3 legs: 4 x 2 + 2 = 10 Lambdas > 5; 4 workers > map 3
        Quotas q = COMPRESSED.toBuilder().distributedMapMaxConcurrency(3).lambdaConcurrency(5).build();
        Plan plan = plan(new Plan.StepSpec(2, 10), List.of(new Plan.StepSpec(20, 5), new Plan.StepSpec(200, 15)), 50, 2000);
        RunEstimate e = RunEstimate.of(plan, List.of(ORDER), q, Prices.US_EAST_1);
        assertEquals(8, e.peakConcurrentWorkers());
        assertEquals(10, e.peakConcurrentLambdas());
        assertEquals(List.of("$.formal.steps[1].qps", "$.formal.steps[1].qps"),
                e.violations().stream().map(RunEstimate.Violation::path).toList());
        assertEquals(List.of("lambdaConcurrency", "distributedMapMaxConcurrency"),
                e.violations().stream().map(v -> v.limit().name()).toList());
        assertTrue(e.violations().get(0).reason().contains("10 concurrent Lambda executions"), e.violations().get(0).reason());
        assertTrue(e.violations().get(1).reason().contains("4 workers per leg"), e.violations().get(1).reason());
    }

    @Test
    void aRequestTimeoutThatLeavesNoLegIsReportedAtRequestTimeoutMs() {
        // 15 000 - 3 000 - 8 500 - 1 000 - 2 000 = 500 ms < 1 000 ms
        RunEstimate e = RunEstimate.of(plan(new Plan.StepSpec(2, 10), List.of(new Plan.StepSpec(20, 15)), 50, 8500),
                List.of(ORDER), COMPRESSED, Prices.US_EAST_1);
        assertEquals(1, e.violations().size());
        RunEstimate.Violation v = e.violations().get(0);
        assertEquals("$.requestTimeoutMs", v.path());
        assertEquals("minLegMs", v.limit().name());
        assertTrue(v.reason().contains("LoadDriverTimeoutSeconds") && v.reason().contains("at most 8,000 ms"),
                "names the parameter and the largest timeout that fits (8 500 − 500 ms): " + v.reason());
        assertEquals(List.of(), e.steps());
    }

    @Test
    void aStartedStepOverThePayloadLimitIsReportedAtTheStepsQps() {
        // 25 000 QPS / 50 = 500 workers: the index list alone is 2 + 499 + 10 + 180 + 1200 = 1 891 characters
        Quotas q = COMPRESSED.toBuilder().statePayloadBytes(1024).build();
        Plan plan = plan(new Plan.StepSpec(2, 5), List.of(new Plan.StepSpec(25_000, 5)), 50, 2000);
        RunEstimate e = RunEstimate.of(plan, List.of(ORDER), q, Prices.US_EAST_1);
        var paths = e.violations().stream().map(RunEstimate.Violation::path).toList();
        assertTrue(paths.contains("$.formal.steps[0].qps"), paths.toString());
        assertTrue(e.statePayloads().startedStepBytes() > 1891, e.statePayloads().toString());
        assertEquals(1891, RunEstimate.indexListChars(500));
    }

    @Test
    void aPlanItemOver400KbIsReportedAtTheRoot() {
        String body = "x".repeat(410_000);
        Plan plan = new Plan("plan-1", "t1", "p", List.of(new Plan.ScenarioSpec("buy", "order", 1,
                List.of(new Plan.RequestSpec("POST", "/orders", Map.of(), body, null)))),
                new Plan.StepSpec(2, 10), List.of(new Plan.StepSpec(20, 15)), null, List.of(), 50, 2000, 0);
        RunEstimate e = RunEstimate.of(plan, List.of(ORDER), Quotas.AWS, Prices.US_EAST_1);
        assertEquals("$", e.violations().get(0).path());
        assertEquals(409_600, e.violations().get(0).limit().value());
        assertTrue(e.statePayloads().planItemBytes() > 410_000);
    }

    @Test
    void theHundredThousandQpsPlanFitsAwsAsWorkedOutByHand() {
        // AWS: legMs = 900 000 - 10 000 - 2 000 - 1 000 - 5 000 = 882 000 ms; a 1 800 s step has legs of 882 s,
        // 882 s and 36 s; rounds at the 1 s alert wait (the upper bound): (10 000 + 882 000)/1 000 + 1 = 893,
        // 882 000/1 000 + 1 = 883, 36 000/1 000 + 1 = 37.
        // workers at 1 000 QPS each: 13, 25, 38, 50, 63, 75, 88, 100 = 452. Pre-test 100 QPS x 60 s: 1 worker,
        // 1 leg, (10 000 + 60 000)/1 000 + 1 = 71 rounds. The confirm slot is counted as step 8 (the most requests).
        List<Plan.StepSpec> formal = new ArrayList<>();
        for (int i = 1; i <= 8; i++) {
            formal.add(new Plan.StepSpec(12_500 * i, 1800));
        }
        Plan plan = plan(new Plan.StepSpec(100, 60), formal, 1000, 2000);
        RunEstimate e = RunEstimate.of(plan, RunEstimate.typicalServices(plan), Quotas.AWS, Prices.US_EAST_1);

        assertEquals(List.of(1, 13, 25, 38, 50, 63, 75, 88, 100, 100),
                e.steps().stream().map(RunEstimate.StepEstimate::workers).toList());
        // executions: 1 + (9*3 + 1 = 28) legs + (552*3 + 1 = 1 657) workers
        assertEquals(new RunEstimate.Executions(1686, 1, 28, 1657), e.executions());
        // largest: a formal step's first leg, 20 + 14*893 = 12 522; parent 57 + 22*10 = 277
        assertEquals(12_522, e.maxHistoryEvents());
        assertEquals("formal step 1 leg 1", e.maxHistoryExecution());
        assertEquals(277, e.historyEvents().parent());
        assertEquals(200, e.peakConcurrentWorkers());
        assertEquals(202, e.peakConcurrentLambdas());
        assertEquals(100, e.maxMapConcurrency());
        assertEquals(895.0, e.longestInvocationS(), "10 s lead + 882 s leg + 2 s request timeout + 1 s grace");
        // transitions: parent 17 + 5*10 = 67; formal legs and the confirm slot's 9*(3*6 + 4*1 813) = 65 430; pre-test
        // leg 6 + 4*71 = 290; workers 1 657 -> 67 444
        assertEquals(67_444, e.stateTransitions());
        assertEquals(9L * 1813 + 71, e.lambdaInvocations().get("probe"));
        assertEquals(11L, e.lambdaInvocations().get("run-preparation"));
        assertEquals(552L * 1800 + 60, e.dynamoDb().windowItems());
        assertTrue(e.statePayloads().largestBytes() < 262_144);
        assertEquals(List.of(), e.violations());
        assertTrue(e.costUsd().total() > 20 && e.costUsd().total() < 40, "about $31: " + e.costUsd());
    }

    /** One scenario on {@code order}, pre-test 100 QPS x 60 s, {@code steps} formal steps of {@code i × qps} for {@code durationS}. */
    private static Plan ladder(int steps, double qps, int durationS, double perWorkerQps, Plan.StepSpec warmUp) {
        List<Plan.StepSpec> formal = new ArrayList<>();
        for (int i = 1; i <= steps; i++) {
            formal.add(new Plan.StepSpec(qps * i, durationS));
        }
        return new Plan("plan-1", "t1", "p", List.of(new Plan.ScenarioSpec("buy", "order", 1,
                List.of(new Plan.RequestSpec("POST", "/orders", Map.of(), "{\"a\":1}", null)))),
                new Plan.StepSpec(100, 60), formal, null, List.of("order"), perWorkerQps, 2000, 1_700_000_000_000L, warmUp);
    }

    /**
     * Issue 45: the 10^5 QPS x 4 h plan (bench/scale.sh's plan a) at the measured 10 000 QPS per worker, on arm64, costs
     * at most $0.005 per million requests, and the load driver's share is the hand-worked figure below.
     */
    @Test
    void theHundredThousandQpsFourHourPlanCostsAtMostHalfACentPerMillionRequests() {
        double perWorker = WorkerCapacity.measured().perWorkerQps();
        // without the warm-up, worked out by hand: legMs 882 000; a 1 800 s step's legs are 882, 882 and 36 s, so a
        // worker's invocations are 10 + 882 + 8, 10 + 882 + 8 and 10 + 36 + 8 s (lead; leg; timeout, grace, margin) =
        // 1 854 s; the pre-test's one worker 10 + 60 + 8 = 78 s. Workers ceil(12 500 i / 10 000): 2, 3, 4, 5, 7, 8, 9, 10
        // = 48, and the confirm slot counted as step 8: 10 more
        RunEstimate off = RunEstimate.of(ladder(8, 12_500, 1800, perWorker, NO_WARM_UP),
                RunEstimate.typicalServices(ladder(8, 12_500, 1800, perWorker, NO_WARM_UP)), Quotas.AWS, Prices.US_EAST_1);
        int workers = 0;
        for (int i = 1; i <= 8; i++) {
            workers += (int) Math.ceil(12_500 * i / perWorker);
        }
        workers += (int) Math.ceil(100_000 / perWorker);
        assertEquals(58, workers);
        double gbPerWorker = 1769 / 1024.0;
        double loadDriverGbS = (78 + workers * 1854.0) * gbPerWorker;
        assertEquals(loadDriverGbS, off.costUsd().loadDriverGbSeconds(), 1e-6);
        assertEquals(loadDriverGbS * 0.0000133334, off.costUsd().loadDriverCompute(), 1e-9, "arm64's price per GB-second");
        // requests: 100 x 60 + 12 500 x 1 800 x (1 + 2 + ... + 8) + the confirm slot's 100 000 x 1 800
        long requests = 6_000L + 12_500L * 1_800 * 36 + 100_000L * 1_800;
        assertEquals(off.costUsd().total() / requests * 1e6, off.usdPerMillionRequests(), 1e-12);
        assertTrue(off.usdPerMillionRequests() <= 0.005, "USD per million: " + off.usdPerMillionRequests());
        // the arithmetic is in the assumptions, ending in the figure
        String arithmetic = off.assumptions().get(off.assumptions().size() - 1);
        assertTrue(arithmetic.startsWith("cost on arm64 at list prices: load driver " + String.format(java.util.Locale.ROOT,
                "%.1f GB-s x $0.0000133334 = $%.4f", loadDriverGbS, loadDriverGbS * 0.0000133334)), arithmetic);
        assertTrue(arithmetic.endsWith(String.format(java.util.Locale.ROOT, "over %,d load requests = $%.6f per million",
                requests, off.usdPerMillionRequests())), arithmetic);

        // with the default warm-up, as bench/scale.sh states the plan
        RunEstimate on = RunEstimate.of(ladder(8, 12_500, 1800, perWorker, null),
                RunEstimate.typicalServices(ladder(8, 12_500, 1800, perWorker, null)), Quotas.AWS, Prices.US_EAST_1);
        assertEquals(List.of(), on.violations());
        assertTrue(on.usdPerMillionRequests() <= 0.005, "USD per million: " + on.usdPerMillionRequests());
        // on x86_64 at 1 000 QPS per worker, as before issue 45, the same plan cost about 0.03
        RunEstimate before = RunEstimate.of(ladder(8, 12_500, 1800, 1_000, null),
                RunEstimate.typicalServices(ladder(8, 12_500, 1800, 1_000, null)), Quotas.AWS, Prices.US_EAST_1_X86_64);
        assertTrue(before.usdPerMillionRequests() > 0.025, "USD per million before: " + before.usdPerMillionRequests());
    }

    /**
     * Issue 45: 10^6 QPS for an hour (250 000 .. 1 000 000 QPS x 15 min) fits AWS's default quotas with the monitor's
     * reserve left: 100 workers a step, 200 while its two legs overlap, + probe and fault decider.
     */
    @Test
    void aMillionQpsForAnHourFitsTheDefaultQuotasWithRoomForTheMonitor() {
        Plan plan = ladder(4, 250_000, 900, WorkerCapacity.measured().perWorkerQps(), null);
        RunEstimate e = RunEstimate.of(plan, RunEstimate.typicalServices(plan), Quotas.AWS, Prices.US_EAST_1);
        assertEquals(List.of(), e.violations());
        assertEquals(List.of(25, 50, 75, 100, 100), e.steps().stream()
                .filter(st -> !st.stage().equals("pre-test") && !st.stage().equals("warm-up"))
                .map(RunEstimate.StepEstimate::workers).toList());
        assertEquals(2, e.steps().get(e.steps().size() - 1).legs(), "882 s and 18 s");
        assertEquals(200, e.peakConcurrentWorkers());
        assertEquals(202, e.peakConcurrentLambdas());
        assertEquals(100, e.lambdaReserve(), "10 % of 1 000");
        assertTrue(e.peakConcurrentLambdas() <= 1_000 - e.lambdaReserve());
        assertEquals(798, e.lambdaConcurrencyLeft());
        assertTrue(e.maxHistoryEvents() < 25_000 && e.maxMapConcurrency() <= 10_000, e.historyEvents().toString());

        // the same plan at 1 000 QPS per worker needs 2 002 Lambdas: refused at its steps' qps
        Plan old = ladder(4, 250_000, 900, 1_000, null);
        RunEstimate refused = RunEstimate.of(old, RunEstimate.typicalServices(old), Quotas.AWS, Prices.US_EAST_1);
        assertTrue(refused.violations().stream().anyMatch(v -> v.path().equals("$.formal.steps[3].qps")
                && v.limit().name().equals("lambdaConcurrency") && v.limit().value() == 900), refused.violations().toString());
    }

    @Test
    void theSameCountingRulesAsTheStateMachine() {
        assertEquals(57, RunEstimate.PARENT_FIXED_EVENTS);
        assertEquals(79, RunEstimate.parentHistoryEvents(0, 0));
        assertEquals(101, RunEstimate.parentHistoryEvents(1, 0));
        assertEquals(20 + 14 * 3, RunEstimate.legHistoryEvents(3));
        assertEquals(6 + 4 * 3, RunEstimate.legTransitions(3));
        assertEquals(6, RunEstimate.monitorRounds(10_000, 2_000));
        assertEquals(6, RunEstimate.monitorRounds(9_001, 2_000));
        assertEquals(2, RunEstimate.indexListChars(0));
        assertEquals(3, RunEstimate.indexListChars(1));
        assertEquals(Json.write(java.util.stream.IntStream.range(0, 12_345).boxed().toList()).length(),
                RunEstimate.indexListChars(12_345));
    }

    @Test
    void hugeFanOutsAreMeasuredWithoutBuildingEveryIndex() {
        // 100 000 QPS at 1 QPS per worker: 100 000 workers; the started step extends the index list by arithmetic
        Plan plan = plan(new Plan.StepSpec(1, 10), List.of(new Plan.StepSpec(100_000, 10)), 1, 2000);
        RunEstimate e = RunEstimate.of(plan, List.of(ORDER), Quotas.AWS, Prices.US_EAST_1);
        var built = RunLayout.start(new StepRef(RunEstimate.SAMPLE_RUN_ID, "t1", "formal", 0, 100_000, 10),
                plan, List.of(ORDER), RunEstimate.SAMPLE_NOW_MS, false, Quotas.AWS);
        assertEquals(Json.write(built).length(), e.steps().get(1).startedStepBytes());
        var limits = e.violations().stream().map(v -> v.limit().name()).toList();
        assertTrue(limits.containsAll(List.of("lambdaConcurrency", "distributedMapMaxConcurrency", "statePayloadBytes")),
                limits.toString());
    }
}
