package dev.richter.report;

import static dev.richter.report.Fixtures.CLEAN_DYNAMIC;
import static dev.richter.report.Fixtures.PLAN;
import static dev.richter.report.Fixtures.healthyUpTo;
import static dev.richter.report.Fixtures.step;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.common.model.Run;
import dev.richter.common.model.Verdict;
import dev.richter.common.model.WorkerResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link RunComparison} on report documents the report builder wrote, as the API and the next report read them. */
class RunComparisonTest {
    private static Run run(String runId) {
        return new Run(runId, "plan-1", "t1", "RUNNING", "", "", -1, 0, false, "", "");
    }

    /** The stored JSON of a run of {@link Fixtures#PLAN} with these worker results. */
    private static JsonNode report(String runId, List<WorkerResult> results, List<Verdict> verdicts) {
        Report r = ReportBuilder.build(run(runId), PLAN, results, List.of(), CLEAN_DYNAMIC, verdicts, null, 1);
        return Json.read(Json.write(r), JsonNode.class);
    }

    /** The pre-test and three formal steps, every request answered in {@code latencyMs} + 2 ms per step (±20 %). */
    private static List<WorkerResult> healthy(double latencyMs) {
        List<WorkerResult> rs = new ArrayList<>(List.of(step("pre-test", 0, 2, 20, 20, Map.of(), 0, 5)));
        for (int i = 0; i < 3; i++) {
            long sent = (long) Fixtures.FORMAL_QPS[i] * 10;
            rs.add(step("formal", i, Fixtures.FORMAL_QPS[i], sent, sent, Map.of(), 0, latencyMs + 2 * i));
        }
        return rs;
    }

    @Test
    void theSameRunTwiceIsNoRegression() {
        RunComparison c = RunComparison.of(report("run-2", healthy(10), List.of()), report("run-1", healthy(10), List.of()),
                RunComparison.RegressionThresholds.DEFAULT);
        assertFalse(c.regressed(), c.regressions().toString());
        assertEquals(4, c.steps().size(), "the pre-test and three formal steps are matched by rate");
        assertEquals(List.of(), c.unmatched());
        RunComparison.StepComparison top = c.steps().get(3);
        assertEquals("formal", top.stage());
        assertEquals(80.0, top.targetQps());
        assertEquals(top.p99Ms().baseline(), top.p99Ms().run());
        assertEquals(0.0, top.errorRatePct().run());
        assertEquals("≥ 80 QPS", c.whole().capacity().run(), "every step sustained: a lower bound");
        assertEquals("PASSED", c.whole().outcome().baseline());
    }

    @Test
    void aSlowerSecondRunIsARegressionOfEveryStepsP99() {
        JsonNode first = report("run-1", healthy(10), List.of());
        JsonNode slower = report("run-2", healthy(30), List.of());
        RunComparison c = RunComparison.of(slower, first, RunComparison.RegressionThresholds.DEFAULT);
        assertTrue(c.regressed());
        assertEquals("run-1", c.baselineRunId());
        RunComparison.StepComparison step1 = c.steps().get(1);
        assertTrue(step1.p99Ms().run() - step1.p99Ms().baseline() > 20, step1.toString());
        assertEquals(1, step1.regressions().size(), step1.regressions().toString());
        assertTrue(step1.regressions().get(0).startsWith("formal step 1 at 20 QPS: p99 rose from 12.0 ms to 35.9 ms"),
                step1.regressions().get(0));
        assertEquals(3, c.regressions().size(), "the pre-test's p99 (5 → 5 ms) did not move: " + c.regressions());
    }

    @Test
    void aSlowerWarmUpIsComparedButNeverARegression() {
        List<WorkerResult> before = new ArrayList<>(healthy(10));
        before.add(0, step("warm-up", 0, 2, 20, 20, Map.of(), 0, 10));
        List<WorkerResult> after = new ArrayList<>(healthy(10));
        after.add(0, step("warm-up", 0, 2, 20, 12, Map.of("500", 8L), 0, 300));
        RunComparison c = RunComparison.of(report("run-2", after, List.of()), report("run-1", before, List.of()),
                RunComparison.RegressionThresholds.DEFAULT);
        assertEquals(List.of("pre-test", "warm-up", "formal"), c.steps().stream().map(RunComparison.StepComparison::stage)
                .distinct().toList(), "in run order");
        RunComparison.StepComparison warmUp = c.steps().get(1);
        assertEquals("warm-up", warmUp.stage());
        assertTrue(warmUp.p99Ms().run() - warmUp.p99Ms().baseline() > 200, warmUp.toString());
        assertTrue(warmUp.errorRatePct().run() > 30, "8 of 20 failed: " + warmUp);
        assertEquals(List.of(), warmUp.regressions());
        assertFalse(c.regressed(), "the warm-up is kept apart from the figures: " + c.regressions());
    }

    @Test
    void aP99ThatDoublesByAFewMillisecondsIsNoRegression() {
        RunComparison c = RunComparison.of(report("run-2", healthy(8), List.of()), report("run-1", healthy(4), List.of()),
                RunComparison.RegressionThresholds.DEFAULT);
        assertFalse(c.regressed(), "p99 ~5 → ~10 ms doubles but rises by less than 20 ms: " + c.regressions());
    }

    @Test
    void aFallenCapacityAndRisenErrorRateAreRegressions() {
        List<WorkerResult> worse = healthyUpTo(1);
        worse.add(step("formal", 1, 40, 400, 360, Map.of("503", 40L), 0, 12));
        worse.add(step("formal", 2, 80, 800, 600, Map.of("503", 200L), 0, 14));
        RunComparison c = RunComparison.of(report("run-2", worse, List.of()), report("run-1", healthy(10), List.of()),
                RunComparison.RegressionThresholds.DEFAULT);
        assertEquals("20 QPS", c.whole().capacity().run());
        assertEquals(20.0, c.whole().capacityQps().run());
        assertTrue(c.regressions().get(0).startsWith("capacity fell from ≥ 80 QPS to 20 QPS (75 %"), c.regressions().toString());
        assertTrue(c.regressions().contains("formal step 2 at 40 QPS: error rate rose from 0 % to 10 % (more than 1 points)"),
                c.regressions().toString());
    }

    @Test
    void stepsOfARateOnlyOneRunHadAreListedNotCompared() {
        JsonNode two = report("run-2", healthyUpTo(2), List.of());
        RunComparison c = RunComparison.of(two, report("run-1", healthy(10), List.of()), RunComparison.RegressionThresholds.DEFAULT);
        assertEquals(List.of("formal step 3 at 80 QPS (only in run-1)"), c.unmatched());
        assertEquals(3, c.steps().size());
        assertEquals("≥ 40 QPS", c.whole().capacity().run(), "two sustained steps give a lower bound");
        assertFalse(c.regressed(), "a lower bound cannot fall: " + c.regressions());
    }

    @Test
    void aStepsVerdictsAreEachModulesWorstWhileItRan() {
        long t = Fixtures.startOf("formal", 1);
        List<Verdict> verdicts = List.of(new Verdict("order", Verdict.State.HEALTHY, "", Fixtures.T0 - 1),
                new Verdict("order", Verdict.State.SUSPECT, "p99 high", t + 2_000),
                new Verdict("order", Verdict.State.HEALTHY, "", t + 6_000));
        RunComparison c = RunComparison.of(report("run-2", healthy(10), verdicts), report("run-1", healthy(10), List.of()),
                RunComparison.RegressionThresholds.DEFAULT);
        assertEquals(Map.of("order", "HEALTHY"), c.steps().get(1).verdicts().run());
        assertEquals(Map.of("order", "SUSPECT"), c.steps().get(2).verdicts().run());
        assertEquals(Map.of(), c.steps().get(2).verdicts().baseline());
    }

    @Test
    void thePageSaysWhatChangedSinceTheLastRunAndWhichProblemsCameBack() {
        JsonNode first = report("run-1", healthy(10), List.of());
        Report slower = ReportBuilder.build(run("run-2"), PLAN, healthy(30), List.of(), CLEAN_DYNAMIC, List.of(), null, 1);
        RunComparison c = RunComparison.of(Json.MAPPER.valueToTree(slower), first, RunComparison.RegressionThresholds.DEFAULT);
        Report r = slower.withHistory(List.of(new Report.FollowedProblem("prb-00000000000000aa", "data:traffic set", "data",
                "traffic <set>", "reopened", "open", "run-1", 2, "ana", "")), new Report.SinceLastRun("", c));
        String html = HtmlReport.render(r);
        assertTrue(html.contains("<section id=since><h2>Since the last run</h2><p>Compared with <b>run-1</b>. "
                + "<span class=FAIL>Regression</span>:</p><ul><li>formal step 1 at 20 QPS: p99 rose from 12.0 ms to 35.9 ms"), html);
        assertTrue(html.contains("<b>traffic &lt;set&gt;</b>"), "escaped");
        assertTrue(html.contains(">reopened</td>"), html);
        JsonNode json = Json.MAPPER.valueToTree(r);
        assertEquals("run-1", json.path("sinceLastRun").path("comparison").path("baselineRunId").asText());
        assertEquals("reopened", json.path("followUp").get(0).path("change").asText());

        String none = HtmlReport.render(slower.withHistory(List.of(), new Report.SinceLastRun(
                "the plan's first finished run: nothing to compare with", null)));
        assertTrue(none.contains("<p>Not compared: the plan&#39;s first finished run: nothing to compare with.</p>"), none);
    }
}
