package dev.richter.report;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.Counters;
import dev.richter.common.model.StepPlan;
import dev.richter.common.model.WorkerResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import static dev.richter.report.Fixtures.CLEAN_DYNAMIC;
import static dev.richter.report.Fixtures.PLAN;
import static dev.richter.report.Fixtures.RUN;
import static dev.richter.report.Fixtures.healthyUpTo;
import static dev.richter.report.Fixtures.startOf;
import static dev.richter.report.Fixtures.step;
import static dev.richter.report.Fixtures.worker;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;


/** The figures of every way a run ends: each asserted, on the report and on its page. */
class ReportOutcomesTest {

    private static StepPlan started(String stage, int index, double qps, int workers, int legs) {
        return new StepPlan("run-1", "t1", "plan-1", stage, index, qps, 10, 50, workers, startOf(stage, index),
                10_000, legs, 2000, 2000, 100);
    }

    private static ReportEvidence startedSteps(StepPlan... steps) {
        return new ReportEvidence(List.of(steps), null, List.of(), null, null);
    }

    /** The first formal step's workers saw the abort flag before their first due time: they stored results of 0 sent. */
    @Test
    void abortedBeforeTheFirstRequest() {
        List<WorkerResult> rs = healthyUpTo(0);
        long start = startOf("formal", 0);
        rs.add(new WorkerResult("run-1", "formal", 0, 0, 1, 20, start, start + 40, new Counters(0, 0, 0, Map.of(), 0, 0, 0, 0, 0),
                null, null, true));
        Report r = ReportBuilder.build(Fixtures.aborted("requested by alice: wrong target"), PLAN, rs, List.of(), CLEAN_DYNAMIC,
                List.of(), List.of(), startedSteps(started("pre-test", 0, 2, 1, 1), started("formal", 0, 20, 1, 1)), null, 1);
        assertEquals("ABORTED", r.outcome());
        assertEquals("aborted: requested by alice: wrong target", r.outcomeReason());
        assertFalse(r.capacity().measured());
        assertEquals(0.0, r.capacity().maxSustainableQps());
        assertEquals("not measured: no formal step sent a request (1 started; the run was aborted before its first request)",
                r.capacity().limitedBy());
        assertEquals("not measured", r.failureMode().kind(), "never a collapse from a step that sent nothing");
        assertEquals("no formal step sent a request (1 started)", r.failureMode().evidence());
        // -0.80 no formal step sent a request, -0.10 aborted; the silent step is not counted as run
        assertEquals(0.1, r.confidence().score(), 1e-9, r.confidence().reasons().toString());
        assertEquals("-0.80: no formal step sent a request: there are no figures to judge capacity by; 1 started but sent nothing",
                r.confidence().reasons().get(0));
        assertTrue(r.resilience().findings().stream().allMatch(f -> f.status() == Report.Status.NOT_OBSERVED), r.resilience().toString());
        String html = HtmlReport.render(r);
        assertTrue(html.contains("<div class=v>not measured</div>"), "capacity reads 'not measured', never 0 QPS");
        assertFalse(html.contains("progressive collapse"));
        assertFalse(html.contains("0.0 ms"));
    }

    /**
     * Aborted by the fault decider during step 3 on the load's own breach (the module's error burst of its 500s): the
     * knee, so capacity is the last sustained step.
     */
    @Test
    void abortedMidStep() {
        List<WorkerResult> rs = healthyUpTo(2);
        long start = startOf("formal", 2);
        WorkerResult cut = worker("formal", 2, 0, 1, 80, 320, 200, Map.of("500", 120L), 0, 0, 900, true);
        rs.add(new WorkerResult(cut.runId(), cut.stage(), cut.stepIndex(), 0, 1, 80, start, start + 4_000, cut.counters(),
                cut.latencyFromIntendedHist(), cut.latencyFromSendHist(), true));
        Report r = ReportBuilder.build(Fixtures.aborted("DAMAGED core module order: error rate 0.375 >= 0.250 over the last 5 s"), PLAN, rs, List.of(), CLEAN_DYNAMIC,
                List.of(), null, 1);
        assertEquals("ABORTED", r.outcome());
        assertTrue(r.capacity().measured());
        assertEquals(40.0, r.capacity().maxSustainableQps());
        assertEquals("step 3 at 80 QPS: success 62.50 %, p99 1077 ms, aborted", r.capacity().limitedBy().replaceAll("p99 \\d+ ms", "p99 1077 ms"));
        assertEquals(80.0, r.formal().get(2).achievedQps(), 1e-9, "320 sent over the 4 s it ran, not over the planned 10 s");
        assertEquals(0.0, r.formal().get(2).rateErrorPct(), 1e-9);
        assertEquals("progressive collapse", r.failureMode().kind(), r.failureMode().evidence());
        assertTrue(r.failureMode().evidence().startsWith("step 3 \u00b7 80 QPS: 120 errors (0 429/503"), r.failureMode().evidence());
        // -0.10 aborted; the aborted step's rate error is not held against it; -0.10 the knee is unconfirmed
        assertEquals(0.8, r.confidence().score(), 1e-9, r.confidence().reasons().toString());
        assertTrue(HtmlReport.render(r).contains("<td class=l>step 3 <small>(aborted)</small></td>"));
    }

    @Test
    void staticGateFailure() {
        var statics = List.of(new CheckResult("target-registered", CheckResult.Outcome.FAIL, "order", "service is not registered by team t1"),
                new CheckResult("marker-configured", CheckResult.Outcome.PASS, "plan plan-1", "header baggage"));
        Report r = ReportBuilder.build(RUN, PLAN, List.of(), statics, List.of(), List.of(), null, 1);
        assertEquals("STATIC_CHECKS_FAILED", r.outcome());
        assertEquals("target-registered (order): service is not registered by team t1", r.outcomeReason());
        assertTrue(r.preTest().isEmpty() && r.formal().isEmpty());
        assertFalse(r.capacity().measured());
        assertEquals("not measured: the static checks failed, so no step ran", r.capacity().limitedBy());
        assertEquals("not measured", r.failureMode().kind());
        // -0.80 no formal step, -0.10 links not compared (the dynamic checks never ran)
        assertEquals(0.1, r.confidence().score(), 1e-9, r.confidence().reasons().toString());
        assertEquals("target-registered (order)", r.problems().get(0).subject());
        assertEquals("register the service (POST /services) or correct the scenario's service name", r.problems().get(0).next());
        String html = HtmlReport.render(r);
        assertTrue(html.contains("<p>No step ran.</p>"));
        assertTrue(html.contains("No per-second window was stored for this run (no step ran)."));
    }

    @Test
    void preTestFailure() {
        WorkerResult refused = worker("pre-test", 0, 0, 1, 2, 20, 0, Map.of(), 0, 20, 5, false);
        var dynamic = List.of(new CheckResult("no-connect-errors", CheckResult.Outcome.FAIL, "pre-test",
                "20 of 20 requests could not connect to the target (connection refused or reset)"));
        Report r = ReportBuilder.build(RUN, PLAN, List.of(refused), List.of(), dynamic, List.of(), null, 1);
        assertEquals("PRE_TEST_FAILED", r.outcome());
        StepFigures pre = r.preTest().get(0);
        assertEquals(20, pre.counters().sent());
        assertEquals(20, pre.counters().connectErrors());
        assertEquals(0.0, pre.successRatePct());
        assertEquals(2.0, pre.achievedQps(), 1e-9);
        assertTrue(pre.latencyMs().isEmpty(), "connect errors record no latency");
        assertFalse(r.capacity().measured());
        assertEquals("not measured: the pre-test failed its gate, so the formal stage did not start", r.capacity().limitedBy());
        assertEquals("not measured", r.failureMode().kind());
        assertEquals(0.1, r.confidence().score(), 1e-9, r.confidence().reasons().toString());
        assertTrue(r.problems().get(0).next().startsWith("the target refused connections"), r.problems().toString());
        assertTrue(HtmlReport.render(r).contains("connect: 20"), "errors by kind in the steps table");
    }

    /** One of step 2's two workers stored nothing; step 3 started but none of its workers stored anything. */
    @Test
    void workerMissing() {
        List<WorkerResult> rs = healthyUpTo(1);
        rs.add(worker("formal", 1, 1, 2, 40, 200, 200, Map.of(), 0, 0, 12, false));
        Report r = ReportBuilder.build(RUN, PLAN, rs, List.of(), CLEAN_DYNAMIC, List.of(), List.of(),
                startedSteps(started("formal", 1, 40, 2, 1), started("formal", 2, 80, 2, 1)), null, 1);
        StepFigures two = r.formal().get(1);
        assertEquals(List.of("leg 1/worker 0"), two.missingWorkers());
        assertEquals(1, two.workersReported());
        assertEquals(2, two.workersExpected());
        StepFigures three = r.formal().get(2);
        assertEquals(0, three.workersReported());
        assertEquals(List.of("leg 1/worker 0", "leg 1/worker 1"), three.missingWorkers());
        assertEquals(0, three.counters().sent());
        assertEquals(20.0, r.capacity().maxSustainableQps());
        assertEquals("step 2 at 40 QPS: 1 of 2 workers stored no result, so its figures are incomplete: capacity is at least 20 QPS",
                r.capacity().limitedBy());
        assertEquals("none observed", r.failureMode().kind(), r.failureMode().evidence());
        // -0.20 2 of 3 formal steps ran (1 silent), -0.30 step 2 missing a worker, -0.20 its rate 50 % off
        assertEquals(0.3, r.confidence().score(), 1e-9, r.confidence().reasons().toString());
        assertEquals("-0.20: 2 of 3 formal steps ran; 1 started but sent nothing", r.confidence().reasons().get(0));
        List<Report.Problem> workers = r.problems().stream().filter(p -> p.kind().equals("worker")).toList();
        assertEquals(2, workers.size(), r.problems().toString());
        assertEquals("2 of 2 workers stored no result (leg 1/worker 0, leg 1/worker 1); the step's figures count only the workers that did",
                workers.get(1).problem());
        assertTrue(HtmlReport.render(r).contains("<td class=FAIL>0/2</td>"));
    }

    @Test
    void lateWorkersAreProblemsWithWhatToDo() {
        List<WorkerResult> rs = new ArrayList<>(healthyUpTo(2));
        WorkerResult w = rs.remove(2);
        rs.add(new WorkerResult(w.runId(), w.stage(), w.stepIndex(), 0, 1, w.targetQps(), w.startedAtMs(), w.endedAtMs(),
                w.counters(), w.latencyFromIntendedHist(), w.latencyFromSendHist(), false, 0, 1_500, 0));
        Report r = ReportBuilder.build(RUN, PLAN, rs, List.of(), CLEAN_DYNAMIC, List.of(), null, 1);
        Report.Problem late = r.problems().stream().filter(p -> p.kind().equals("worker")).findFirst().orElseThrow();
        assertEquals("formal/step 2/leg 1/worker 0", late.subject());
        assertTrue(late.next().startsWith("raise WorkerLeadMs"), late.next());
    }

    @Test
    void aFailedFirstStepReadsBelowItsRate() {
        List<WorkerResult> rs = healthyUpTo(0);
        rs.add(step("formal", 0, 20, 200, 100, Map.of("500", 100L), 0, 40));
        Report r = ReportBuilder.build(RUN, PLAN, rs, List.of(), CLEAN_DYNAMIC, List.of(), null, 1);
        assertTrue(r.capacity().measured());
        assertEquals("< 20 QPS", HtmlReport.capacityFigure(r));
        assertTrue(r.capacity().limitedBy().endsWith("capacity is below the first step's rate"), r.capacity().limitedBy());
    }
}
