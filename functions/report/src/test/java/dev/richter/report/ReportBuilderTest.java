package dev.richter.report;

import static dev.richter.report.Fixtures.CLEAN_DYNAMIC;
import static dev.richter.report.Fixtures.PLAN;
import static dev.richter.report.Fixtures.RUN;
import static dev.richter.report.Fixtures.healthyUpTo;
import static dev.richter.report.Fixtures.step;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.Json;
import dev.richter.common.model.CheckResult;
import dev.richter.common.model.Run;
import dev.richter.common.model.Counters;
import dev.richter.common.model.HistogramCodec;
import dev.richter.common.model.MissingEvidence;
import dev.richter.common.model.Verdict;
import dev.richter.common.model.StepPlan;
import dev.richter.common.model.WorkerResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReportBuilderTest {

    @Test
    void capacityIsTheLastSustainedStepAndShedding503sIsGraceful() {
        List<WorkerResult> rs = healthyUpTo(2);
        rs.add(step("formal", 2, 80, 800, 700, Map.of("503", 100L), 0, 14));
        Report r = ReportBuilder.build(RUN, PLAN, rs, List.of(), CLEAN_DYNAMIC, List.of(), null, 1);
        assertEquals("PASSED", r.outcome());
        assertEquals(40.0, r.capacity().maxSustainableQps());
        assertTrue(r.capacity().measured());
        assertTrue(r.capacity().reached(), "step 3 missed the criteria: 40 QPS is the capacity, not a lower bound");
        assertTrue(r.capacity().limitedBy().startsWith("step 3 at 80 QPS: success 87.50 %"), r.capacity().limitedBy());
        assertEquals("graceful shedding", r.failureMode().kind(), r.failureMode().evidence());
        assertTrue(r.failureMode().evidence().startsWith("step 3 \u00b7 80 QPS: 100 errors (100 429/503, 0 timeouts"),
                r.failureMode().evidence());
    }

    /** Issue 23 item 4: the capacity states its interval and that no re-run confirmed the knee, which costs confidence. */
    @Test
    void aKneeIsAnUnconfirmedIntervalBetweenTheLastPassingAndTheFirstFailingStep() {
        List<WorkerResult> rs = healthyUpTo(2);
        rs.add(step("formal", 2, 80, 800, 700, Map.of("503", 100L), 0, 14));
        Report r = ReportBuilder.build(RUN, PLAN, rs, List.of(), CLEAN_DYNAMIC, List.of(), null, 1);
        assertEquals(new Report.Interval(40, 80, false, "between 40 and 80 QPS; unconfirmed"), r.capacity().interval());
        assertEquals("40 QPS (between 40 and 80 QPS; unconfirmed)", HtmlReport.capacityWithInterval(r));
        assertTrue(HtmlReport.render(r).contains("40 QPS (between 40 and 80 QPS; unconfirmed)"));
        var capacity = Json.MAPPER.valueToTree(r).path("capacity").path("interval");
        assertEquals(40.0, capacity.path("fromQps").asDouble());
        assertEquals(80.0, capacity.path("toQps").asDouble());
        assertFalse(capacity.path("confirmed").asBoolean(true));
        assertEquals(1.0 - ReportBuilder.KNEE_UNCONFIRMED_DEDUCTION, r.confidence().score(), 1e-9, r.confidence().reasons().toString());
        assertEquals(List.of("-0.10: the knee is unconfirmed: no half-step figures to check it against, so the capacity is"
                + " only known to lie between 40 and 80 QPS"), r.confidence().reasons());
    }

    /** Issue 42 item 1: the knee is checked against the variance of its own two steps, each measured twice (its halves). */
    @Test
    void aKneeIsConfirmedWhenEachHalfOfItsStepsAgreesAndWidensWhenTheyDoNot() {
        List<WorkerResult> rs = healthyUpTo(2);
        rs.add(step("formal", 2, 80, 800, 700, Map.of("503", 100L), 0, 14));
        StepHalves.Half held = new StepHalves.Half(200, 0, 15);
        StepHalves.Half failed = new StepHalves.Half(400, 50, 16);
        java.util.function.Function<Map<String, StepHalves.Half[]>, Report> build = halves -> ReportBuilder.build(RUN, PLAN, rs,
                List.of(), CLEAN_DYNAMIC, List.of(), List.of(), new ReportEvidence(List.of(), null, List.of(), null, null).withHalves(halves), null, 1);

        Report confirmed = build.apply(Map.of("formal#1", new StepHalves.Half[] {held, held},
                "formal#2", new StepHalves.Half[] {failed, failed}));
        assertEquals(new Report.Interval(40, 80, true, "between 40 and 80 QPS; each half of step 2 held, each of step 3 failed"),
                confirmed.capacity().interval());
        assertEquals(1.0, confirmed.confidence().score(), confirmed.confidence().reasons().toString());

        Report lowHalf = build.apply(Map.of("formal#1", new StepHalves.Half[] {held, new StepHalves.Half(200, 1, 15)},
                "formal#2", new StepHalves.Half[] {failed, failed}));
        assertEquals(new Report.Interval(20, 80, false, "between 20 and 80 QPS; 40 QPS held over step 2 but not in its second"
                + " half (success 99.50 %, p99 15.00 ms)"), lowHalf.capacity().interval());
        assertEquals(40.0, lowHalf.capacity().maxSustainableQps(), "the figure stays the step's; its interval widens");
        assertEquals(List.of("-0.10: the knee is unconfirmed: 40 QPS held over step 2 but not in its second half (success"
                + " 99.50 %, p99 15.00 ms), so the capacity is only known to lie between 20 and 80 QPS"), lowHalf.confidence().reasons());

        Report nearF = build.apply(Map.of("formal#1", new StepHalves.Half[] {held, held},
                "formal#2", new StepHalves.Half[] {new StepHalves.Half(400, 0, 14), failed}));
        assertEquals(new Report.Interval(40, 80, false, "between 40 and 80 QPS; unconfirmed: step 3's first half held (success"
                + " 100.00 %, p99 14.00 ms)"), nearF.capacity().interval());

        Report slowHalf = build.apply(Map.of("formal#1", new StepHalves.Half[] {new StepHalves.Half(200, 0, 3500), held},
                "formal#2", new StepHalves.Half[] {failed, failed}));
        assertFalse(slowHalf.capacity().interval().confirmed(), "a half over the p99 criterion does not hold");
        assertEquals(20.0, slowHalf.capacity().interval().fromQps());

        Report abortedEarly = build.apply(Map.of("formal#1", new StepHalves.Half[] {held, held},
                "formal#2", new StepHalves.Half[] {failed, new StepHalves.Half(0, 0, Double.NaN)}));
        assertTrue(abortedEarly.capacity().interval().confirmed(), "a half that sent nothing (an abort) is not held against it");
    }

    /**
     * Issue 42 item 1: a confirm step midway between the last step that held (40) and the first that failed (80)
     * refines the knee when its verdict is more than the noise of its requests. Failed decisively, the capacity stays 40
     * in [40, 60); held decisively (thousands of answers without an error), it is 60 in [60, 80); within the noise,
     * the ladder's [40, 80) stands and says why. Its figures are a row of their own, after step 3 where it ran, and
     * out of the formal steps' count.
     */
    @Test
    void aConfirmStepBetweenTheKneesStepsNarrowsTheIntervalWhenItsVerdictIsMoreThanNoise() {
        StepHalves.Half held = new StepHalves.Half(300, 0, 15);
        StepHalves.Half failed = new StepHalves.Half(400, 50, 16);
        java.util.function.BiFunction<WorkerResult, Map<String, StepHalves.Half[]>, Report> build = (confirm, halves) -> {
            List<WorkerResult> rs = healthyUpTo(2);
            rs.add(step("formal", 2, 80, 800, 700, Map.of("503", 100L), 0, 14));
            rs.add(confirm);
            List<StepPlan> started = List.of(new StepPlan("run-1", "t1", "plan-1", "confirm", 0, 60, 10, 50, 2,
                    Fixtures.startOf("formal", 3), 10_000, 1, 2000, 100, 50));
            return ReportBuilder.build(RUN, PLAN, rs, List.of(), CLEAN_DYNAMIC, List.of(), List.of(),
                    new ReportEvidence(started, null, List.of(), null, null).withHalves(halves), null, 1);
        };
        java.util.function.Function<StepHalves.Half[], Map<String, StepHalves.Half[]>> with = confirm -> Map.of(
                "formal#1", new StepHalves.Half[] {held, held}, "formal#2", new StepHalves.Half[] {failed, failed},
                "confirm#0", confirm);

        // within the noise: 300 of 300 in its second half shows no more than 98.8 % at 95 %; 1 of 300 lost is as likely
        // at 99.9 % as not
        Report even = build.apply(step("confirm", 0, 60, 600, 600, Map.of(), 0, 13), with.apply(new StepHalves.Half[] {held, held}));
        assertEquals(40.0, even.capacity().maxSustainableQps(), "never moved up on evidence too thin for the criterion");
        assertEquals(new Report.Interval(40, 80, true, "between 40 and 80 QPS; each half of step 2 held, each of step 3"
                + " failed; the confirm step at 60 QPS held (300 of 300 answered well in its second half), too few to show"
                + " 99.9 % success (P = 0.74), so the knee may lie on either side of it"), even.capacity().interval());
        Report oneLost = build.apply(step("confirm", 0, 60, 600, 599, Map.of("429", 1L), 0, 13),
                with.apply(new StepHalves.Half[] {held, new StepHalves.Half(300, 1, 15)}));
        assertEquals(40.0, oneLost.capacity().maxSustainableQps());
        assertTrue(oneLost.capacity().interval().text().endsWith("the confirm step at 60 QPS lost 1 of 300 in its second"
                + " half, within the noise of 99.9 % success (P = 0.26), so the knee may lie on either side of it"),
                oneLost.capacity().interval().text());
        assertEquals(List.of("confirm"), even.confirm().stream().map(StepFigures::stage).toList());
        assertEquals(3, even.formal().size(), "the confirm step is not a formal step");
        assertEquals(1.0, even.confidence().score(), even.confidence().reasons().toString());
        assertTrue(even.outcomeReason().endsWith("3 of 3 formal steps ran"), even.outcomeReason());
        assertEquals(List.of("pre-test#0", "formal#0", "formal#1", "formal#2", "confirm#0"), even.latencyCurves().curves()
                .stream().map(c -> c.stage() + "#" + c.stepIndex()).toList(), "in run order: the confirm step after step 3");

        // held decisively: 4 000 answers without an error in its second half (P = 0.02)
        StepHalves.Half many = new StepHalves.Half(4000, 0, 15);
        Report up = build.apply(step("confirm", 0, 60, 600, 600, Map.of(), 0, 13), with.apply(new StepHalves.Half[] {many, many}));
        assertEquals(60.0, up.capacity().maxSustainableQps());
        assertEquals(new Report.Interval(60, 80, true, "between 60 and 80 QPS; the confirm step's second half held, each of"
                + " step 3 failed"), up.capacity().interval());
        // right after step 3's overload, the target sheds a few while it recovers: the first half is its settle
        Report settled = build.apply(step("confirm", 0, 60, 600, 597, Map.of("429", 3L), 0, 13),
                with.apply(new StepHalves.Half[] {new StepHalves.Half(300, 3, 40), many}));
        assertEquals(60.0, settled.capacity().maxSustainableQps(), settled.capacity().toString());
        assertEquals(99.5, settled.confirm().get(0).successRatePct(), 1e-9, "the row keeps the whole step's figures");

        // failed decisively: 50 of 400 in its second half; without halves, 3 of 600 on the whole (P = 0.02)
        Report down = build.apply(step("confirm", 0, 60, 600, 560, Map.of("503", 40L), 0, 13),
                with.apply(new StepHalves.Half[] {failed, failed}));
        assertEquals(40.0, down.capacity().maxSustainableQps());
        assertEquals(new Report.Interval(40, 60, true, "between 40 and 60 QPS; each half of step 2 held, the confirm step's"
                + " second half failed"), down.capacity().interval());
        assertTrue(down.capacity().limitedBy().startsWith("the confirm step's second half at 60 QPS: success 87.50 %"),
                down.capacity().limitedBy());
        Report unread = build.apply(step("confirm", 0, 60, 600, 597, Map.of("429", 3L), 0, 13), Map.of());
        assertEquals(60.0, unread.capacity().interval().toQps(), "without halves it is judged on the whole");
        assertTrue(unread.capacity().limitedBy().startsWith("the confirm step at 60 QPS: success 99.50 %"),
                unread.capacity().limitedBy());
    }

    @Test
    void aCapacityNotReachedIsOpenAboveAndHasNoKneeToConfirm() {
        Report r = ReportBuilder.build(RUN, PLAN, healthyUpTo(3), List.of(), CLEAN_DYNAMIC, List.of(), null, 1);
        assertEquals(new Report.Interval(80, 0, false, "at least 80 QPS; no step failed"), r.capacity().interval());
        assertEquals("\u2265 80 QPS (at least 80 QPS; no step failed)", HtmlReport.capacityWithInterval(r));
        assertEquals(1.0, r.confidence().score(), r.confidence().reasons().toString());
        Report none = ReportBuilder.build(RUN, PLAN, healthyUpTo(0), List.of(), CLEAN_DYNAMIC, List.of(), null, 1);
        assertEquals(Report.Interval.NONE, none.capacity().interval());
        assertEquals("not measured", HtmlReport.capacityWithInterval(none));
    }

    /** Issue 23 item 4: the warm-up's figures are a row of their own, in neither the capacity nor the confidence. */
    @Test
    void theWarmUpIsItsOwnRowAndCountsTowardNeitherCapacityNorConfidenceOnceSteady() {
        List<WorkerResult> rs = healthyUpTo(3);
        // the default warm-up (3 rungs up to 20 QPS, then holds of 20 QPS x 10 s): the first hold cold, slow and erring,
        // then three steady holds
        rs.add(step("warm-up", 3, 20, 200, 160, Map.of("500", 40L), 0, 4000));
        for (int i = 4; i <= 6; i++) {
            rs.add(step("warm-up", i, 20, 200, 200, Map.of(), 0, 10 + i % 2));
        }
        Report r = ReportBuilder.build(RUN, PLAN, rs, List.of(), CLEAN_DYNAMIC, List.of(), null, 1);
        assertEquals(4, r.warmUp().size(), "the holds that ran; the later ones were skipped");
        assertEquals(10, r.warmUp().get(0).durationS());
        assertEquals(1, r.preTest().size());
        assertEquals(80.0, r.capacity().maxSustainableQps());
        assertFalse(r.capacity().reached());
        assertEquals(1.0, r.confidence().score(), r.confidence().reasons().toString());
        assertTrue(r.warmUpEnd().startsWith("steady at warm-up step 7: over steps 5-7 p50 10-11 ms"), r.warmUpEnd());
        // in run order (issue 46): the pre-test first, the warm-up after the dynamic gate, then the formal steps
        assertEquals(List.of("pre-test", "warm-up 4", "warm-up 5", "warm-up 6", "warm-up 7", "step 1", "step 2", "step 3"),
                r.allSteps().stream().map(StepLabels::name).toList());
        assertEquals(200, Json.MAPPER.valueToTree(r).path("warmUp").get(0).path("counters").path("sent").asLong());
        String html = HtmlReport.render(r);
        assertTrue(html.contains("<td class=l>warm-up"), "the steps table has a warm-up row");
        assertTrue(html.contains("<p class=warmup>Warm-up: steady at warm-up step 7"), "the steps section says how it ended");
    }

    @Test
    void aWarmUpThatNeverSteadiedCostsConfidence() {
        List<WorkerResult> rs = healthyUpTo(3);
        double[] p50 = {600, 500, 400, 300};
        for (int i = 0; i < p50.length; i++) {
            rs.add(step("warm-up", 3 + i, 20, 200, 200, Map.of(), 0, p50[i]));
        }
        Report r = ReportBuilder.build(RUN, PLAN, rs, List.of(), CLEAN_DYNAMIC, List.of(), null, 1);
        assertEquals(0.9, r.confidence().score(), r.confidence().reasons().toString());
        assertTrue(r.confidence().reasons().contains("-0.10: the warm-up was not steady after 4 hold steps: over steps"
                + " 5-7 p50 spread 300-500 ms (500 → 400 → 300), so the formal stage may have met targets still warming"),
                r.confidence().reasons().toString());
        assertEquals(1.0, ReportBuilder.build(RUN, PLAN, healthyUpTo(3), List.of(), CLEAN_DYNAMIC, List.of(), null, 1)
                .confidence().score(), "no warm-up step reported: nothing to judge");
    }

    @Test
    void timeoutsWithExplodingLatencyAreProgressiveCollapse() {
        List<WorkerResult> rs = healthyUpTo(2);
        rs.add(step("formal", 2, 80, 800, 700, Map.of(), 100, 2500));
        Report r = ReportBuilder.build(RUN, PLAN, rs, List.of(), CLEAN_DYNAMIC, List.of(), null, 1);
        assertEquals("progressive collapse", r.failureMode().kind(), r.failureMode().evidence());
        assertEquals(40.0, r.capacity().maxSustainableQps());
    }

    @Test
    void everyStepSustainedMeansCapacityNotReachedAndFullConfidence() {
        Report r = ReportBuilder.build(RUN, PLAN, healthyUpTo(3), List.of(), CLEAN_DYNAMIC, List.of(), null, 1);
        assertEquals(80.0, r.capacity().maxSustainableQps());
        assertTrue(r.capacity().limitedBy().startsWith("not reached"));
        // issue 24 finding 19: the JSON says the figure is a lower bound, not only the sentence
        assertFalse(r.capacity().reached());
        assertFalse(Json.MAPPER.valueToTree(r).path("capacity").path("reached").asBoolean(true));
        assertEquals("\u2265 80 QPS", HtmlReport.capacityFigure(r));
        assertEquals("none observed", r.failureMode().kind());
        assertEquals(1.0, r.confidence().score(), r.confidence().reasons().toString());
    }

    @Test
    void confidenceDropsForMissingStepsAndWorkers() {
        List<WorkerResult> rs = healthyUpTo(1);
        rs.add(new WorkerResult("run-1", "formal", 1, 1, 2, 40, Fixtures.startOf("formal", 1), Fixtures.startOf("formal", 1) + 10_000,
                new Counters(200, 200, 200, Map.of(), 0, 0, 0, 0, 200), null, null, false));
        Report r = ReportBuilder.build(RUN, PLAN, rs, List.of(), CLEAN_DYNAMIC, List.of(), null, 1);
        // 2 of 3 formal steps ran (-0.2); step 2 lost worker 0 (-0.3); step 2 achieved 20 of 40 QPS (-0.2); the knee
        // between 20 and 40 QPS is unconfirmed (-0.1)
        assertEquals(0.2, r.confidence().score(), 1e-9, r.confidence().reasons().toString());
        assertEquals(List.of("leg 1/worker 0"), r.formal().get(1).missingWorkers());
        assertTrue(r.confidence().reasons().contains("-0.30: step 2 is missing workers [leg 1/worker 0]"), r.confidence().reasons().toString());
    }

    @Test
    void linkCoverageAndUniformTrafficLowerConfidence() {
        var notCompared = List.of(new CheckResult("test-vs-real-links", CheckResult.Outcome.WARN, "entries",
                "no entry seen under both marked and real traffic (marked: [order POST /orders], real: []): links not compared"));
        Report r = ReportBuilder.build(RUN, Fixtures.plan(2), healthyUpTo(3), List.of(), notCompared, List.of(), null, 1);
        assertEquals(0.8, r.confidence().score(), 1e-9, r.confidence().reasons().toString());
        assertTrue(r.confidence().reasons().get(0).startsWith("-0.10: links not compared with real traffic: no entry seen"),
                r.confidence().reasons().toString());
        assertEquals("-0.10: the plan replays 2 distinct requests (fewer than 20): caches and one code path dominate what was measured",
                r.confidence().reasons().get(1));
        Report noCheck = ReportBuilder.build(RUN, PLAN, healthyUpTo(3), List.of(), List.of(), List.of(), null, 1);
        assertEquals(0.9, noCheck.confidence().score(), 1e-9, noCheck.confidence().reasons().toString());
        CallGraph graph = CallGraph.build(List.of(), List.of("order POST /orders", "order GET /orders/1"), Map.of(), List.of(),
                Map.of(), List.of(), java.util.Set.of("order"), CLEAN_DYNAMIC);
        Report noTraces = ReportBuilder.build(RUN, PLAN, healthyUpTo(3), List.of(), CLEAN_DYNAMIC, List.of(), List.of(),
                new ReportEvidence(List.of(), null, List.of(), null, graph), null, 1);
        assertEquals(0.9, noTraces.confidence().score(), 1e-9, noTraces.confidence().reasons().toString());
        assertTrue(noTraces.problems().stream().anyMatch(p -> p.kind().equals("coverage")), noTraces.problems().toString());
    }

    @Test
    void anAbortDuringThePreTestReadsAbortedWithItsReasonNotAFailedGate() {
        Run aborted = new Run(RUN.runId(), RUN.planId(), RUN.teamId(), "RUNNING", "", "pre-test", 0, 1, true,
                "monitoring lost: Decide: Richter.InjectedFault", "");
        var gate = List.of(new CheckResult("run-not-aborted", CheckResult.Outcome.FAIL, "pre-test",
                "run aborted: monitoring lost: Decide: Richter.InjectedFault"));
        Report r = ReportBuilder.build(aborted, PLAN, healthyUpTo(0), List.of(), gate, List.of(), null, 1);
        assertEquals("ABORTED", r.outcome());
        assertEquals("aborted: monitoring lost: Decide: Richter.InjectedFault", r.outcomeReason());
        assertEquals("not measured: the run was aborted before the formal stage", r.capacity().limitedBy());

        // the decider's abort on the target's own evidence: the failed gate is the outcome, as before
        Run damaged = new Run(RUN.runId(), RUN.planId(), RUN.teamId(), "RUNNING", "", "pre-test", 0, 1, true,
                "DAMAGED core module gone-svc: weighted probe vote 1.00 >= 0.75", "");
        var refused = List.of(new CheckResult("no-connect-errors", CheckResult.Outcome.FAIL, "pre-test", "20 of 20 refused"));
        assertEquals("PRE_TEST_FAILED", ReportBuilder.build(damaged, PLAN, healthyUpTo(0), List.of(), refused, List.of(), null, 1).outcome());
        // an operator's abort during the pre-test is an abort
        Run byOperator = new Run(RUN.runId(), RUN.planId(), RUN.teamId(), "RUNNING", "", "pre-test", 0, 1, true,
                "requested by alice: wrong plan", "");
        assertEquals("ABORTED", ReportBuilder.build(byOperator, PLAN, healthyUpTo(0), List.of(), gate, List.of(), null, 1).outcome());
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
        var verdicts = List.of(new Verdict("<img src=x onerror=alert(2)>", Verdict.State.DAMAGED, "</script><b>", 1));
        String html = HtmlReport.render(ReportBuilder.build(RUN, PLAN, healthyUpTo(0), check, List.of(), verdicts, null, 1));
        assertTrue(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), html);
        assertFalse(html.contains("<script>alert(1)"), "run text never becomes markup");
        assertFalse(html.contains("<img src=x"), "run text never becomes markup");
        assertTrue(html.contains("a &amp; b"));
        String data = HtmlReport.chartData(ReportBuilder.build(RUN, PLAN, healthyUpTo(0), check, List.of(), verdicts, null, 1));
        assertFalse(data.contains("<"), "the embedded chart data cannot close its script element: " + data);
    }

    @Test
    void stepsAreNumberedFromOneForPeopleAndFromZeroInTheJson() {
        Report r = ReportBuilder.build(RUN, PLAN, healthyUpTo(3), List.of(), CLEAN_DYNAMIC, List.of(), null, 1);
        String html = HtmlReport.render(r);
        assertTrue(html.contains("<td class=l>step 1</td>") && html.contains("<td class=l>step 3</td>"), html);
        assertFalse(html.contains("step 0") || html.contains("F0 "), "no human text numbers a step from 0");
        assertEquals(0, r.formal().get(0).stepIndex());
        String json = dev.richter.common.Json.write(r);
        assertTrue(json.contains("\"stepIndex\":0"));
        assertTrue(json.contains("\"indexing\":\"stepIndex is 0-based"), json.substring(0, 200));
        assertEquals(List.of("pre-test \u00b7 2 QPS", "step 1 \u00b7 20 QPS", "step 2 \u00b7 40 QPS", "step 3 \u00b7 80 QPS"),
                r.latencyCurves().curves().stream().map(LatencyCurves.Curve::label).toList());
    }

    @Test
    void theVerdictTimelineKeepsFirstVerdictsAndChangesOnly() {
        var v = List.of(new Verdict("a", Verdict.State.HEALTHY, "ok", 1),
                new Verdict("b", Verdict.State.HEALTHY, "ok", 1),
                new Verdict("a", Verdict.State.HEALTHY, "ok", 2),
                new Verdict("a", Verdict.State.SUSPECT, "5 failures", 3),
                new Verdict("a", Verdict.State.SUSPECT, "6 failures", 4),
                new Verdict("a", Verdict.State.HEALTHY, "recovered", 5));
        assertEquals(List.of(1L, 1L, 3L, 5L), ReportBuilder.changes(v).stream().map(x -> x.atMs()).toList());
        assertEquals(List.of("a SUSPECT", "a HEALTHY"), ReportBuilder.marks(List.of(), ReportBuilder.changes(v)).stream()
                .map(TimeSeries.Mark::label).toList(), "first HEALTHY verdicts are no news on the chart");
    }

    @Test
    void aVerdictChangeAModulesOwnOpenBreakerCausedNamesTheBreakerOnTheTimeline() {
        // the reason as the fault decider's breaker-open rule words it
        var v = List.of(new Verdict("order", Verdict.State.HEALTHY, "probes ok", 1),
                new Verdict("order", Verdict.State.SUSPECT,
                        "circuit breaker 'inventory' open: calls not permitted, the module answers by its fallback", 3),
                new Verdict("gateway", Verdict.State.SUSPECT,
                        "circuit breakers 'order', 'payment' open: calls not permitted, the module answers by its fallback", 4),
                new Verdict("order", Verdict.State.HEALTHY, "3 consecutive successful probes, resources normal", 5));
        assertEquals(List.of("order SUSPECT: breaker inventory open", "gateway SUSPECT: breaker order, payment open", "order HEALTHY"),
                ReportBuilder.marks(List.of(), ReportBuilder.changes(v)).stream().map(TimeSeries.Mark::label).toList());
    }

    @Test
    void anOperatorAbortKeepsTheCapacityItsSustainedStepsMeasuredAndIsNoCollapse() {
        List<WorkerResult> rs = healthyUpTo(1);
        long start = Fixtures.startOf("formal", 1);
        rs.add(new WorkerResult("run-1", "formal", 1, 0, 1, 40, start, start + 5_000, new Counters(200, 200, 200, Map.of(), 0, 0, 0, 0, 200),
                rs.get(1).latencyFromIntendedHist(), rs.get(1).latencyFromSendHist(), true));
        Report r = ReportBuilder.build(Fixtures.aborted("requested by alice: stop"), PLAN, rs, List.of(), CLEAN_DYNAMIC, List.of(), null, 1);
        assertEquals("ABORTED", r.outcome());
        double first = r.formal().get(0).targetQps();
        assertTrue(r.capacity().measured(), "step 1 was sustained before the operator ended the run");
        assertFalse(r.capacity().reached(), "the operator, not the load, ended the run: no knee");
        assertEquals(first, r.capacity().maxSustainableQps(), 1e-9);
        assertEquals("at least " + StepLabels.qps(first) + " QPS: aborted by requested by alice: stop at step 2, after 1"
                + " sustained step", r.capacity().limitedBy());
        assertEquals("\u2265 " + StepLabels.qps(first) + " QPS", HtmlReport.capacityFigure(r));
        assertEquals(new Report.Interval(first, 0, false, "at least " + StepLabels.qps(first) + " QPS; aborted at step 2"),
                r.capacity().interval(), "open above");
        assertEquals("none observed", r.failureMode().kind(), r.failureMode().evidence());
        assertEquals(40.0, r.formal().get(1).achievedQps(), 1e-9, "200 sent in the 5 s the aborted step ran");
    }

    @Test
    void answersRichterCouldNotCheckAreCountedApartAndNeverTheTargetsFailure() {
        List<WorkerResult> rs = healthyUpTo(1);
        WorkerResult last = rs.get(rs.size() - 1);
        Counters c = last.counters();
        rs.set(rs.size() - 1, new WorkerResult(last.runId(), last.stage(), last.stepIndex(), last.workerIndex(),
                last.workerCount(), last.targetQps(), last.startedAtMs(), last.endedAtMs(),
                new Counters(c.due(), c.sent(), c.ok(), c.httpErrors(), c.timeouts(), c.connectErrors(), c.dropped(),
                        c.late(), c.marked(), 0, Map.of(), 3),
                last.latencyFromIntendedHist(), last.latencyFromSendHist(), false));
        Report r = ReportBuilder.build(RUN, PLAN, rs, List.of(), CLEAN_DYNAMIC, List.of(), null, 1);
        StepFigures step = r.formal().get(r.formal().size() - 1);
        assertEquals(100.0, step.successRatePct(), 1e-9, "an unchecked answer is no failure of the target");
        assertEquals(3, step.counters().unchecked());
        Report.Problem p = r.problems().stream().filter(x -> x.kind().equals("unchecked")).findFirst().orElseThrow();
        assertEquals(CheckResult.Outcome.WARN, p.severity());
        assertTrue(p.problem().startsWith("3 answers not checked: their bodies were over Richter's kept-body limit"),
                p.problem());
        assertTrue(r.capacity().measured() && !r.capacity().reached(), r.capacity().toString());
        assertEquals(Report.Status.NOT_OBSERVED, r.resilience().findings().stream()
                .filter(f -> f.defence().equals(Degradation.DEFENCE)).findFirst().orElseThrow().status(),
                "no degradation rests on an answer Richter could not check");
    }

    @Test
    void aRefusedWriteProblemSaysToAddTheShadowTheEvidenceNames() {
        var refused = List.of(new CheckResult("isolation-enforced", CheckResult.Outcome.FAIL, "marked traces",
                "1 marked calls refused by the isolation (...), by service and reason: inventory: Richter isolation refused"
                        + " a marked call to exit 'table reservation_audit' (1)"));
        Report r = ReportBuilder.build(RUN, PLAN, healthyUpTo(1), List.of(), refused, List.of(), null, 1);
        Report.Problem p = r.problems().stream().filter(x -> x.subject().startsWith("isolation-enforced")).findFirst()
                .orElseThrow();
        assertTrue(p.problem().contains("exit 'table reservation_audit'"), p.problem());
        assertTrue(p.next().startsWith("for each refusal the evidence names: a write to a table, key space, topic or queue"
                + " with no shadow, add its shadow to that service's datastores"), p.next());
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
        Report clean = ReportBuilder.build(RUN, PLAN, healthyUpTo(3), List.of(), CLEAN_DYNAMIC, List.of(), null, 1);
        Report r = ReportBuilder.build(RUN, PLAN, healthyUpTo(3), List.of(), CLEAN_DYNAMIC, List.of(), missing, null, 1);
        assertEquals(clean.capacity(), r.capacity());
        assertEquals(clean.outcome(), r.outcome());
        assertEquals(clean.confidence().score() - 0.10, r.confidence().score(), 1e-9);
        assertTrue(r.confidence().reasons().contains(
                "-0.05: missing evidence for order: prometheus: scrape answered HTTP 404 (in 40 of 40 rounds)"), r.confidence().reasons().toString());
        String html = HtmlReport.render(r);
        assertTrue(html.contains("<h2>Missing evidence</h2>"), html);
        assertTrue(html.contains("prometheus: scrape answered HTTP 404</td><td>40 of 40</td>"), html);
        assertEquals(2, r.problems().stream().filter(p -> p.kind().equals("missing evidence")).count(), r.problems().toString());
    }

    @Test
    void missingEvidenceDeductsAtMostItsCap() {
        List<MissingEvidence> many = new ArrayList<>();
        for (int i = 0; i < 10; i++) many.add(new MissingEvidence("m" + i, "prometheus: scrape answered HTTP 404", 1, 1, 1, 1));
        Report clean = ReportBuilder.build(RUN, PLAN, healthyUpTo(3), List.of(), CLEAN_DYNAMIC, List.of(), null, 1);
        Report r = ReportBuilder.build(RUN, PLAN, healthyUpTo(3), List.of(), CLEAN_DYNAMIC, List.of(), many, null, 1);
        assertEquals(clean.confidence().score() - ReportBuilder.MISSING_EVIDENCE_MAX_DEDUCTION, r.confidence().score(), 1e-9);
    }

    @Test
    void problemsListEveryFailAndWarnWithWhatToDoNextFailsFirst() {
        var dynamic = new ArrayList<>(CLEAN_DYNAMIC);
        dynamic.add(new CheckResult("trace-source", CheckResult.Outcome.WARN, "t1", "no trace source configured for team t1"));
        dynamic.add(new CheckResult("mocked-exit", CheckResult.Outcome.FAIL, "payment POST /charge", "3 marked calls reached payment POST /charge for real"));
        var verdicts = List.of(new Verdict("inventory", Verdict.State.HEALTHY, "ok", Fixtures.T0),
                new Verdict("inventory", Verdict.State.SUSPECT, "5 consecutive failed probes", Fixtures.startOf("formal", 2) + 2_000),
                new Verdict("inventory", Verdict.State.DAMAGED, "10 consecutive failed probes", Fixtures.startOf("formal", 2) + 4_000),
                new Verdict("load", Verdict.State.SUSPECT, "error rate 0.30 over 0.10", Fixtures.startOf("formal", 2) + 3_000));
        Report r = ReportBuilder.build(RUN, PLAN, healthyUpTo(3), List.of(), dynamic, verdicts, null, 1);
        List<Report.Problem> p = r.problems();
        assertEquals(CheckResult.Outcome.FAIL, p.get(0).severity());
        assertEquals("mocked-exit (payment POST /charge)", p.get(0).subject());
        assertTrue(p.get(0).next().contains("mock"), p.get(0).next());
        Report.Problem inventory = p.stream().filter(x -> x.subject().equals("inventory")).findFirst().orElseThrow();
        assertEquals(CheckResult.Outcome.FAIL, inventory.severity());
        assertTrue(inventory.problem().startsWith("DAMAGED from ") && inventory.problem().contains("(step 3 \u00b7 80 QPS)"), inventory.problem());
        Report.Problem load = p.stream().filter(x -> x.subject().equals("load")).findFirst().orElseThrow();
        assertTrue(load.next().startsWith("this is the load driver's own evidence"), load.next());
        assertTrue(p.stream().anyMatch(x -> x.subject().equals("trace-source (t1)") && x.severity() == CheckResult.Outcome.WARN));
        String html = HtmlReport.render(r);
        assertTrue(html.indexOf("Problems to follow") < html.indexOf("Resilience verdict")
                && html.indexOf("Resilience verdict") < html.indexOf("<h2>Steps</h2>"), "the problems come first");
    }
}
