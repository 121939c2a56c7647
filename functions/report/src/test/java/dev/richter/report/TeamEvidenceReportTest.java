package dev.richter.report;

import static dev.richter.report.Fixtures.CLEAN_DYNAMIC;
import static dev.richter.report.Fixtures.PLAN;
import static dev.richter.report.Fixtures.RUN;
import static dev.richter.report.Fixtures.healthyUpTo;
import static dev.richter.report.Fixtures.startOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.CheckResult;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The team's own evidence on the report: alert marks and lane, problems naming the step, the business-metric table. */
class TeamEvidenceReportTest {
    final long fired = startOf("formal", 1) + 3_000;
    final long resolved = startOf("formal", 1) + 8_000;
    final List<RunEvent> events = List.of(
            new RunEvent(fired, RunEvent.ALERT_FIRED, "order", "formal#1", "ShopShedding", "since 2026-12-02T15:30:00Z"),
            new RunEvent(fired, RunEvent.VERDICT_CHANGED, "order", "formal#1", "HEALTHY→DAMAGED", "alert ShopShedding firing"),
            new RunEvent(resolved, RunEvent.ALERT_RESOLVED, "order", "formal#1", "ShopShedding", ""));

    Report report() {
        List<BusinessMetricRound> rounds = List.of(
                new BusinessMetricRound("order", "orders-per-second", startOf("pre-test", 0) + 2_000, "pre-test#0", 5.0, Double.NaN, "ok"),
                new BusinessMetricRound("order", "orders-per-second", startOf("formal", 0) + 2_000, "formal#0", 9.0, 10.0, "ok"),
                new BusinessMetricRound("order", "orders-per-second", startOf("formal", 0) + 4_000, "formal#0", 11.0, 10.0, "ok"),
                new BusinessMetricRound("order", "orders-per-second", startOf("formal", 1) + 4_000, "formal#1", 2.0, 20.0, "breach"));
        ReportEvidence evidence = ReportEvidence.NONE.withTeamEvidence(events, rounds);
        return ReportBuilder.build(RUN, PLAN, healthyUpTo(3), List.of(), CLEAN_DYNAMIC, List.of(), List.of(), evidence, null, 1);
    }

    @Test
    void everyAlertThatFiredIsAProblemNamingWhereAndAtWhatStep() {
        Report r = report();
        List<Report.Problem> alerts = r.problems().stream().filter(p -> p.kind().equals("alert")).toList();
        assertEquals(1, alerts.size(), "one problem per alert and module: " + alerts);
        assertEquals(CheckResult.Outcome.FAIL, alerts.getFirst().severity());
        assertEquals("ShopShedding on order", alerts.getFirst().subject());
        assertEquals("ShopShedding fired on order at " + Instant.ofEpochMilli(fired) + " (step 2 · 40 QPS), since 2026-12-02T15:30:00Z",
                alerts.getFirst().problem());
        assertEquals(events, r.events());
    }

    @Test
    void alertsAreMarkedOnTheChartsAndDrawnOnTheTimelineLane() {
        Report r = report();
        assertTrue(r.timeSeries().marks().contains(new TimeSeries.Mark(fired, "alert", "ShopShedding fired on order", "FIRING")),
                r.timeSeries().marks().toString());
        assertTrue(r.timeSeries().marks().contains(new TimeSeries.Mark(resolved, "alert", "ShopShedding resolved on order", "RESOLVED")));
        String html = HtmlReport.render(r);
        assertTrue(html.contains("<section id=timeline>"), "the lane");
        assertTrue(html.contains("class=lane-alert-label>ShopShedding · order</text>"), "the alert's bar on the lane");
        assertTrue(html.contains("<td class=l>step 2</td><td class=l>alert-fired</td><td class=l>order</td><td class=l>ShopShedding"),
                "the event list names the step");
    }

    @Test
    void eachBusinessMetricIsTabledPerStepAgainstItsBaseline() {
        Report r = report();
        assertEquals(List.of(
                new BusinessMetricTable.BusinessMetricStep("order", "orders-per-second", "pre-test · 2 QPS", 1, 5.0, Double.NaN, Double.NaN, 0),
                new BusinessMetricTable.BusinessMetricStep("order", "orders-per-second", "step 1 · 20 QPS", 2, 10.0, 10.0, 1.0, 0),
                new BusinessMetricTable.BusinessMetricStep("order", "orders-per-second", "step 2 · 40 QPS", 1, 2.0, 20.0, 0.1, 1)),
                r.businessMetrics());
        assertTrue(HtmlReport.render(r).contains("<section id=business-metrics>"));
    }

    @Test
    void aRoundReadBeforeItsStepsFirstRequestIsTabledUnderThatStepNotItsStoredKey() {
        // the decider's first pre-test round is read before the pre-test's first due time, outside every step's span
        long beforePreTest = startOf("pre-test", 0) - 1_000;
        List<BusinessMetricRound> rounds = List.of(
                new BusinessMetricRound("order", "orders-per-second", startOf("pre-test", 0) + 2_000, "pre-test#0", 5.0, Double.NaN, "ok"),
                new BusinessMetricRound("order", "orders-per-second", beforePreTest, "pre-test#0", 7.0, Double.NaN, "ok"));
        Report r = ReportBuilder.build(RUN, PLAN, healthyUpTo(3), List.of(), CLEAN_DYNAMIC, List.of(), List.of(),
                ReportEvidence.NONE.withTeamEvidence(List.of(), rounds), null, 1);
        assertEquals(List.of(new BusinessMetricTable.BusinessMetricStep("order", "orders-per-second", "pre-test · 2 QPS", 2,
                6.0, Double.NaN, Double.NaN, 0)), r.businessMetrics());
    }
}
