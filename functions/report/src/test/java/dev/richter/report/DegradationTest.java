package dev.richter.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import static dev.richter.report.Fixtures.CLEAN_DYNAMIC;
import static dev.richter.report.Fixtures.PLAN;
import static dev.richter.report.Fixtures.RUN;

import dev.richter.common.model.Counters;
import dev.richter.common.model.WorkerResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The degradation finding from steps' figures as the report builds them from worker results. */
class DegradationTest {
    static final VanishedEdges FELL = new VanishedEdges("gateway POST /orders", "order", "inventory", "formal", 0, 12, 50, 1.0);
    static final VanishedEdges MOSTLY = new VanishedEdges("gateway POST /orders", "order", "inventory", "formal", 0, 42, 50, 1.0);

    /** One worker's result of a step whose answers all came back, {@code checkFailed} of them failing their check. */
    static WorkerResult result(String stage, int index, long sent, long checkFailed) {
        WorkerResult r = Fixtures.step(stage, index, stage.equals("formal") ? 20.0 * (index + 1) : 2, sent, sent,
                Map.of(), 0, 10);
        return new WorkerResult(r.runId(), r.stage(), r.stepIndex(), r.workerIndex(), r.workerCount(), r.targetQps(),
                r.startedAtMs(), r.endedAtMs(), new Counters(sent, sent, sent - checkFailed, Map.of(), 0, 0, 0, 0, sent,
                checkFailed, checkFailed == 0 ? Map.of() : Map.of("$.status: expected \"PLACED\"", checkFailed)),
                r.latencyFromIntendedHist(), r.latencyFromSendHist(), false);
    }

    static Report report(VanishedEdges.Coverage coverage, WorkerResult... results) {
        return ReportBuilder.build(RUN, PLAN, new ArrayList<>(List.of(results)), List.of(), CLEAN_DYNAMIC, List.of(), List.of(),
                new ReportEvidence(List.of(), null, List.of(), TraceEvidence.notRead("none"), null, Map.of(), coverage), null, 1);
    }

    /** The pre-test and formal figures the report built, in run order. */
    static List<StepFigures> steps(WorkerResult... results) {
        Report r = report(coverage(), results);
        List<StepFigures> all = new ArrayList<>(r.preTest());
        all.addAll(r.formal());
        return all;
    }

    static StepFigures step(String stage, int index, long sent, long checkFailed) {
        return steps(result(stage, index, sent, checkFailed)).stream().filter(f -> f.stage().equals(stage)
                && f.stepIndex() == index).findFirst().orElseThrow();
    }

    static VanishedEdges.Coverage coverage(VanishedEdges... v) {
        return new VanishedEdges.Coverage(List.of(v), Map.of());
    }

    @Test
    void twoHundredsThatFailTheirCheckAreSilentDegradationNamingTheFirstStepAndTheVanishedPath() {
        Report.Finding f = Degradation.assess(List.of(step("pre-test", 0, 20, 0), step("formal", 0, 300, 0),
                step("formal", 1, 600, 153), step("formal", 2, 900, 400)), coverage(FELL), true, true);
        assertEquals(Report.Status.FAILS, f.status());
        assertEquals("silent: 553 answers failed the plan's check (153 of 600 at step 2 · 40 QPS, the first step with any):"
                + " 2xx answers standing in for work not done; " + FELL.line(), f.line());
    }

    @Test
    void aVanishedPathWithEveryAnswerPassingItsCheckIsGracefulWhileBoundedAndFailsWhenItStandsInForMost() {
        List<StepFigures> clean = List.of(step("pre-test", 0, 20, 0), step("formal", 0, 300, 0));
        Report.Finding graceful = Degradation.assess(clean, coverage(FELL), true, true);
        assertEquals(Report.Status.HOLDS, graceful.status());
        assertEquals("graceful: " + FELL.line() + "; every answer passed the plan's checks", graceful.line());
        Report.Finding unbounded = Degradation.assess(clean, coverage(MOSTLY), true, true);
        assertEquals(Report.Status.FAILS, unbounded.status());
        assertTrue(unbounded.line().contains("stood in for 84 % of the traces (more than 50 %)"), unbounded.line());
    }

    @Test
    void withoutChecksAVanishedPathIsWeakAndNothingSeenIsNotObserved() {
        List<StepFigures> clean = List.of(step("pre-test", 0, 20, 0));
        Report.Finding weak = Degradation.assess(clean, coverage(FELL), true, false);
        assertEquals(Report.Status.WEAK, weak.status());
        assertTrue(weak.line().endsWith("the plan states no expect on its requests, so a fallback answer cannot be told"
                + " from a good one"), weak.line());
        assertEquals(Report.Status.NOT_OBSERVED, Degradation.assess(clean, coverage(), true, true).status());
        Report.Finding unread = Degradation.assess(clean, coverage(), false, true);
        assertEquals(Report.Status.NOT_OBSERVED, unread.status());
        assertTrue(unread.line().contains("the marked traces were not read"), unread.line());
    }

    @Test
    void theReportCarriesTheFindingAfterTheOtherFourAndListsItAsAProblem() {
        Report r = report(coverage(FELL), result("pre-test", 0, 20, 0), result("formal", 0, 200, 0));
        assertEquals(List.of("shedding", "deadlines", "retry amplification", "bulkheads", "degradation"),
                r.resilience().findings().stream().map(Report.Finding::defence).toList());
        assertEquals(Report.Status.WEAK, r.resilience().of(Degradation.DEFENCE).status(), "the fixture plan states no expect");
        assertTrue(r.problems().stream().anyMatch(p -> p.kind().equals("resilience") && p.subject().equals("degradation")),
                r.problems().toString());
    }
}
