package dev.richter.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.Counters;
import dev.richter.common.model.HistogramCodec;
import dev.richter.common.model.MissingEvidence;
import dev.richter.common.model.Plan;
import dev.richter.common.model.Run;
import dev.richter.common.model.WorkerResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class ReportBuilderTest {
    private static final Plan PLAN = new Plan("plan-1", "t1", "p", List.of(), new Plan.StepSpec(2, 10),
            List.of(new Plan.StepSpec(20, 10), new Plan.StepSpec(40, 10), new Plan.StepSpec(80, 10)), null, List.of(), 50, 2000, 0);
    private static final Run RUN = new Run("run-1", "plan-1", "t1", "RUNNING", "", "", -1, 0, false, "", "");

    /** One worker's result: {@code sent} requests, {@code ok} of them fine, the rest by kind, all at {@code latencyMs}. */
    private static WorkerResult step(String stage, int index, double qps, long sent, long ok, Map<String, Long> http,
                                     long timeouts, long latencyMs) {
        Histogram h = HistogramCodec.newLatencyHistogramUs();
        h.recordValueWithCount(latencyMs * 1000, sent);
        return new WorkerResult("run-1", stage, index, 0, 1, qps, 0, 10_000,
                new Counters(sent, sent, ok, http, timeouts, 0, 0, 0, sent), HistogramCodec.encode(h), HistogramCodec.encode(h), false);
    }

    private static List<WorkerResult> healthyUpTo(int formalSteps) {
        List<WorkerResult> rs = new ArrayList<>(List.of(step("pre-test", 0, 2, 20, 20, Map.of(), 0, 5)));
        double[] qps = {20, 40, 80};
        for (int i = 0; i < formalSteps; i++) {
            rs.add(step("formal", i, qps[i], (long) qps[i] * 10, (long) qps[i] * 10, Map.of(), 0, 10));
        }
        return rs;
    }

    @Test
    void capacityIsTheLastSustainedStepAndShedding503sIsGraceful() {
        List<WorkerResult> rs = healthyUpTo(2);
        rs.add(step("formal", 2, 80, 800, 700, Map.of("503", 100L), 0, 12));
        Report r = ReportBuilder.build(RUN, PLAN, rs, List.of(), List.of(), List.of(), null, 1);
        assertEquals("PASSED", r.outcome());
        assertEquals(40.0, r.capacity().maxSustainableQps());
        assertTrue(r.capacity().limitedBy().startsWith("step 2 at 80.0 QPS"), r.capacity().limitedBy());
        assertEquals("graceful shedding", r.failureMode().kind(), r.failureMode().evidence());
    }

    @Test
    void timeoutsWithExplodingLatencyAreProgressiveCollapse() {
        List<WorkerResult> rs = healthyUpTo(2);
        rs.add(step("formal", 2, 80, 800, 700, Map.of(), 100, 2500));
        Report r = ReportBuilder.build(RUN, PLAN, rs, List.of(), List.of(), List.of(), null, 1);
        assertEquals("progressive collapse", r.failureMode().kind(), r.failureMode().evidence());
        assertEquals(40.0, r.capacity().maxSustainableQps());
    }

    @Test
    void everyStepSustainedMeansCapacityNotReachedAndFullConfidence() {
        Report r = ReportBuilder.build(RUN, PLAN, healthyUpTo(3), List.of(), List.of(), List.of(), null, 1);
        assertEquals(80.0, r.capacity().maxSustainableQps());
        assertTrue(r.capacity().limitedBy().startsWith("not reached"));
        assertEquals("none observed", r.failureMode().kind());
        assertEquals(1.0, r.confidence().score(), r.confidence().reasons().toString());
    }

    @Test
    void confidenceDropsForMissingStepsAndWorkers() {
        List<WorkerResult> rs = healthyUpTo(1);
        rs.add(new WorkerResult("run-1", "formal", 1, 1, 2, 40, 0, 10_000, new Counters(200, 200, 200, Map.of(), 0, 0, 0, 0, 200),
                null, null, false));
        Report r = ReportBuilder.build(RUN, PLAN, rs, List.of(), List.of(), List.of(), null, 1);
        // 2 of 3 formal steps ran (-0.2); step 1 lost worker 0 (-0.3); step 1 achieved 20 of 40 QPS (-0.2)
        assertEquals(0.3, r.confidence().score(), 1e-9, r.confidence().reasons().toString());
        assertEquals(List.of("leg 1/worker 0"), r.formal().get(1).missingWorkers());
    }

    @Test
    void outcomeFollowsTheFirstGateThatFailedAndNamesEveryFailure() {
        var fail = List.of(new CheckResult("no-connect-errors", CheckResult.Outcome.FAIL, "pre-test", "4 of 4 refused"),
                new CheckResult("marker-sent", CheckResult.Outcome.FAIL, "pre-test", "0 of 4"));
        Report r = ReportBuilder.build(RUN, PLAN, healthyUpTo(0), List.of(), fail, List.of(), null, 1);
        assertEquals("PRE_TEST_FAILED", r.outcome());
        assertEquals("no-connect-errors (pre-test): 4 of 4 refused; marker-sent (pre-test): 0 of 4", r.outcomeReason());
        Report error = ReportBuilder.build(RUN, PLAN, List.of(), List.of(), List.of(), List.of(), "States.TaskFailed: boom", 1);
        assertEquals("ERROR", error.outcome());
        assertTrue(HtmlReport.render(error).contains("States.TaskFailed: boom"));
    }

    @Test
    void htmlEscapesEverythingFromTheRun() {
        var check = List.of(new CheckResult("x", CheckResult.Outcome.FAIL, "<script>alert(1)</script>", "a & b"));
        String html = HtmlReport.render(ReportBuilder.build(RUN, PLAN, healthyUpTo(0), check, List.of(), List.of(), null, 1));
        assertTrue(html.contains("&lt;script&gt;") && !html.contains("<script>"));
        assertTrue(html.contains("a &amp; b"));
    }

    @Test
    void theVerdictTimelineKeepsFirstVerdictsAndChangesOnly() {
        var v = List.of(new dev.richter.common.model.Verdict("a", dev.richter.common.model.Verdict.State.HEALTHY, "ok", 1),
                new dev.richter.common.model.Verdict("b", dev.richter.common.model.Verdict.State.HEALTHY, "ok", 1),
                new dev.richter.common.model.Verdict("a", dev.richter.common.model.Verdict.State.HEALTHY, "ok", 2),
                new dev.richter.common.model.Verdict("a", dev.richter.common.model.Verdict.State.SUSPECT, "5 failures", 3),
                new dev.richter.common.model.Verdict("a", dev.richter.common.model.Verdict.State.SUSPECT, "6 failures", 4),
                new dev.richter.common.model.Verdict("a", dev.richter.common.model.Verdict.State.HEALTHY, "recovered", 5));
        assertEquals(List.of(1L, 1L, 3L, 5L), ReportBuilder.changes(v).stream().map(x -> x.atMs()).toList());
    }

    @Test
    void anOperatorAbortOfAHealthyStepIsALowerBoundNotACollapse() {
        List<WorkerResult> rs = healthyUpTo(1);
        rs.add(new WorkerResult("run-1", "formal", 1, 0, 1, 40, 0, 5_000, new Counters(200, 200, 200, Map.of(), 0, 0, 0, 0, 200),
                rs.get(1).latencyFromIntendedHist(), rs.get(1).latencyFromSendHist(), true));
        Run aborted = new Run("run-1", "plan-1", "t1", "RUNNING", "", "", -1, 0, true, "requested by alice: stop", "");
        Report r = ReportBuilder.build(aborted, PLAN, rs, List.of(), List.of(), List.of(), null, 1);
        assertEquals("ABORTED", r.outcome());
        assertEquals(20.0, r.capacity().maxSustainableQps());
        assertTrue(r.capacity().limitedBy().contains("at least 20.0 QPS"), r.capacity().limitedBy());
        assertEquals("none observed", r.failureMode().kind(), r.failureMode().evidence());
    }

    @Test
    void aStepWithNoAnswerShowsNoLatencyAndTheRunHasLittleConfidence() {
        WorkerResult refused = new WorkerResult("run-1", "pre-test", 0, 0, 1, 2, 0, 10_000,
                new Counters(20, 20, 0, Map.of(), 0, 20, 0, 0, 20), HistogramCodec.encode(HistogramCodec.newLatencyHistogramUs()),
                HistogramCodec.encode(HistogramCodec.newLatencyHistogramUs()), false);
        var fail = List.of(new CheckResult("no-connect-errors", CheckResult.Outcome.FAIL, "pre-test", "20 of 20 refused"));
        Report r = ReportBuilder.build(RUN, PLAN, List.of(refused), List.of(), fail, List.of(), null, 1);
        assertTrue(r.preTest().get(0).latencyMs().isEmpty());
        assertTrue(r.confidence().score() <= 0.2, r.confidence().toString());
        assertTrue(HtmlReport.render(r).contains("<td>\u2013</td>"), "latency shown as a dash, not 0");
    }

    @Test
    void missingEvidenceIsAWarnInTheReportAndLowersConfidenceWithoutTouchingCapacity() {
        List<MissingEvidence> missing = List.of(
                new MissingEvidence("order", "prometheus: scrape answered HTTP 404", 40, 40, 1000, 80_000),
                new MissingEvidence("order", "prometheus: line 3: exemplar dropped", 2, 40, 5000, 7000));
        Report clean = ReportBuilder.build(RUN, PLAN, healthyUpTo(3), List.of(), List.of(), List.of(), null, 1);
        Report r = ReportBuilder.build(RUN, PLAN, healthyUpTo(3), List.of(), List.of(), List.of(), missing, null, 1);
        assertEquals(clean.capacity(), r.capacity());
        assertEquals(clean.outcome(), r.outcome());
        assertEquals(clean.confidence().score() - 0.10, r.confidence().score(), 1e-9);
        assertTrue(r.confidence().reasons().contains(
                "-0.05: missing evidence for order: prometheus: scrape answered HTTP 404 (in 40 of 40 rounds)"), r.confidence().reasons().toString());
        String html = HtmlReport.render(r);
        assertTrue(html.contains("<h2>Missing evidence</h2>"), html);
        assertTrue(html.contains("prometheus: scrape answered HTTP 404</td><td>40 of 40</td>"), html);
    }

    @Test
    void missingEvidenceDeductsAtMostItsCap() {
        List<MissingEvidence> many = new ArrayList<>();
        for (int i = 0; i < 10; i++) many.add(new MissingEvidence("m" + i, "prometheus: scrape answered HTTP 404", 1, 1, 1, 1));
        Report clean = ReportBuilder.build(RUN, PLAN, healthyUpTo(3), List.of(), List.of(), List.of(), null, 1);
        Report r = ReportBuilder.build(RUN, PLAN, healthyUpTo(3), List.of(), List.of(), List.of(), many, null, 1);
        assertEquals(clean.confidence().score() - ReportBuilder.MISSING_EVIDENCE_MAX_DEDUCTION, r.confidence().score(), 1e-9);
    }
}
