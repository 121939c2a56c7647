package dev.richter.report;

import static dev.richter.report.Fixtures.CLEAN_DYNAMIC;
import static dev.richter.report.Fixtures.PLAN;
import static dev.richter.report.Fixtures.RUN;
import static dev.richter.report.Fixtures.healthyUpTo;
import static dev.richter.report.Fixtures.step;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.WorkerResult;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The tracking rules of {@link ProblemTracker} and the problems' keys; the DynamoDB side runs in ProblemsFollowedIT. */
class ProblemTrackerTest {
    private static final Report.Problem SHED = new Report.Problem(CheckResult.Outcome.WARN, "resilience", "shedding",
            "weak: 40 fast 503s", "add Retry-After");

    private static Report report(String runId) {
        Report r = ReportBuilder.build(RUN, PLAN, healthyUpTo(1), List.of(), CLEAN_DYNAMIC, List.of(), null, 1);
        return new Report(runId, r.planId(), r.teamId(), r.planName(), r.outcome(), r.outcomeReason(), 1, r.staticChecks(),
                r.dynamicChecks(), r.warmUp(), r.preTest(), r.formal(), r.formalStepsPlanned(), r.verdicts(), r.capacity(),
                r.failureMode(), r.confidence(), r.missingEvidence(), List.of(SHED), r.resilience(), r.timeSeries(),
                r.latencyCurves(), r.callGraph(), r.indexing(), r.bottlenecks(), List.of(), null, r.events(), r.businessMetrics(),
                r.middleware(), null, r.warmUpEnd(), r.confirm());
    }

    @Test
    void aProblemsKeyIsItsKindAndSubjectNotItsFigures() {
        List<WorkerResult> a = healthyUpTo(1);
        a.add(step("formal", 1, 40, 400, 300, Map.of("500", 100L), 0, 12));
        List<WorkerResult> b = healthyUpTo(1);
        b.add(step("formal", 1, 40, 400, 250, Map.of("500", 150L), 0, 12));
        List<CheckResult> failing = List.of(new CheckResult("shadow-writes", CheckResult.Outcome.FAIL, "inventory",
                "3 writes reached production"));
        Report ra = ReportBuilder.build(RUN, PLAN, a, List.of(), failing, List.of(), null, 1);
        Report rb = ReportBuilder.build(RUN, PLAN, b, List.of(), List.of(new CheckResult("shadow-writes",
                CheckResult.Outcome.FAIL, "inventory", "7 writes reached production")), List.of(), null, 1);
        assertEquals(ra.problems().stream().map(Report.Problem::key).toList(),
                rb.problems().stream().map(Report.Problem::key).toList());
        assertTrue(ra.problems().stream().anyMatch(p -> p.key().equals("check:shadow-writes:inventory")),
                ra.problems().stream().map(Report.Problem::key).toList().toString());
        assertNotEquals(ra.problems().get(0).problem(), rb.problems().get(0).problem(), "the texts carry the figures");
    }

    @Test
    void aFirstListingIsOpenAndItsIdIsStable() {
        TrackedProblem t = ProblemTracker.seen(Optional.empty(), SHED, report("run-1"), 100);
        assertEquals(TrackedProblem.OPEN, t.status());
        assertEquals("resilience:shedding", t.key());
        assertEquals(TrackedProblem.idOf("t1", "plan-1", "resilience:shedding"), t.id());
        assertTrue(t.id().matches("prb-[0-9a-f]{16}"), t.id());
        assertNotEquals(TrackedProblem.idOf("t2", "plan-1", "resilience:shedding"), t.id(), "another team's is another");
        assertEquals("run-1", t.firstRunId());
        assertEquals(1, t.runsSeen());
    }

    @Test
    void aLaterListingKeepsTheTeamsFieldsAndAResolvedOneReopens() {
        TrackedProblem first = ProblemTracker.seen(Optional.empty(), SHED, report("run-1"), 100);
        TrackedProblem acked = new TrackedProblem(first.id(), first.teamId(), first.planId(), first.key(), first.kind(),
                first.subject(), first.severity(), TrackedProblem.ACKNOWLEDGED, "ana", "ticket 12", "run-1", "run-1", 100, 100,
                1, 0, first.problem(), 150, 2);
        TrackedProblem again = ProblemTracker.seen(Optional.of(acked), SHED, report("run-2"), 200);
        assertEquals(TrackedProblem.ACKNOWLEDGED, again.status());
        assertEquals("ana", again.owner());
        assertEquals("ticket 12", again.note());
        assertEquals("run-1", again.firstRunId());
        assertEquals("run-2", again.lastRunId());
        assertEquals(2, again.runsSeen());
        assertEquals(2, again.version(), "written on the version read");
        TrackedProblem resolved = acked.withTeamFields(TrackedProblem.RESOLVED, "ana", "fixed", 250);
        TrackedProblem reopened = ProblemTracker.seen(Optional.of(resolved), SHED, report("run-3"), 300);
        assertEquals(TrackedProblem.OPEN, reopened.status());
        assertEquals(1, reopened.reopenedCount());
        assertEquals(1, ProblemTracker.seen(Optional.of(again), SHED, report("run-2"), 400).runsSeen() - 1,
                "the same run's report written twice counts its run once");
    }
}
