package dev.richter.report;

import static dev.richter.report.Fixtures.CLEAN_DYNAMIC;
import static dev.richter.report.Fixtures.PLAN;
import static dev.richter.report.Fixtures.RUN;
import static dev.richter.report.Fixtures.healthyUpTo;
import static dev.richter.report.Fixtures.startOf;
import static dev.richter.report.Fixtures.step;
import static dev.richter.report.Fixtures.worker;
import static dev.richter.report.Report.Status.FAILS;
import static dev.richter.report.Report.Status.HOLDS;
import static dev.richter.report.Report.Status.NOT_OBSERVED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.MonitorHeartbeat;
import dev.richter.common.model.Marker;
import dev.richter.common.model.Run;
import dev.richter.common.model.Verdict;
import dev.richter.common.model.WorkerResult;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.SpanKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 23 item 6: each resilience finding, the failure mode and the capacity say only what their evidence shows.
 * Span shapes as the OTel Java agent 2.22 writes them: a SERVER root per entry request, one HTTP CLIENT span per
 * attempt as a child of the caller span ({@code url.full}), and JDBC CLIENT spans named {@code <op> <db>.<table>}
 * with {@code db.system}.
 */
class FindingsMatchEvidenceTest {

    private static Report report(Run run, List<WorkerResult> rs, TraceEvidence traces, List<Verdict> verdicts) {
        return ReportBuilder.build(run, PLAN, rs, List.of(), CLEAN_DYNAMIC, verdicts, List.of(),
                new ReportEvidence(List.of(), null, List.of(), traces, null), null, 1);
    }

    private static List<StepFigures> steps(Report r) {
        List<StepFigures> all = new ArrayList<>(r.preTest());
        all.addAll(r.formal());
        return all;
    }

    private static TraceEvidence evidence(List<StepFigures> steps, List<Span> spans) {
        return TraceEvidence.of("test spans", spans, Fixtures.windows(steps), Marker.DEFAULT);
    }

    /** Step 3 over capacity (504s), steps 1 and 2 healthy. */
    private static List<WorkerResult> overAtStep3() {
        List<WorkerResult> rs = healthyUpTo(2);
        rs.add(step("formal", 2, 80, 800, 600, Map.of("504", 200L), 0, 1400));
        return rs;
    }

    /**
     * One marked trace of {@code order POST /orders}: {@code attempts} HTTP CLIENT spans of the root to the same
     * inventory URL (retries), {@code queries} JDBC spans of the root, and {@code calls} CLIENT spans to distinct URLs.
     */
    private static List<Span> orderTrace(String traceId, long startMs, int attempts, int queries, int calls) {
        List<Span> out = new ArrayList<>();
        long start = startMs * 1_000_000;
        String root = traceId.substring(0, 16);
        out.add(new Span(traceId, root, "", List.of(), "order", "POST /orders", SpanKind.SERVER, "",
                Map.of("richter-loadtest", "1", "http.request.method", "POST", "http.route", "/orders"), start, 30_000_000));
        int n = 0;
        for (int a = 0; a < attempts; a++) {
            out.add(new Span(traceId, String.format("%016x", ++n), root, List.of(), "order", "POST", SpanKind.CLIENT, "inventory",
                    Map.of("http.request.method", "POST", "url.full", "http://inventory:8080/reservations",
                            "server.address", "inventory", "server.port", "8080"), start + n * 1_000_000L, 1_000_000));
        }
        for (int q = 0; q < queries; q++) {
            out.add(new Span(traceId, String.format("%016x", ++n), root, List.of(), "order", "SELECT shop.orders", SpanKind.CLIENT,
                    "postgres", Map.of("db.system", "postgresql", "db.name", "shop", "db.operation", "SELECT",
                            "db.sql.table", "orders", "db.statement", "select * from orders where id=?", "server.address", "postgres"),
                    start + n * 1_000_000L, 500_000));
        }
        for (int c = 0; c < calls; c++) {
            out.add(new Span(traceId, String.format("%016x", ++n), root, List.of(), "order", "GET", SpanKind.CLIENT, "catalog",
                    Map.of("http.request.method", "GET", "url.full", "http://catalog:8080/items/" + c, "server.address", "catalog"),
                    start + n * 1_000_000L, 1_000_000));
        }
        return out;
    }

    /** 20 order traces per step; at step 3 each has {@code attemptsAt3} inventory attempts and {@code queriesAt3} queries. */
    private static List<Span> orderTraces(List<StepFigures> steps, int attemptsAt3, int queriesAt3) {
        List<Span> out = new ArrayList<>();
        int id = 0;
        for (StepFigures f : steps) {
            boolean third = f.stage().equals("formal") && f.stepIndex() == 2;
            for (int i = 0; i < 20; i++) {
                out.addAll(orderTrace(String.format("%032x", 0xA000L + id++), f.startedAtMs() + 100 + i, third ? attemptsAt3 : 1,
                        third ? queriesAt3 : 1, 0));
            }
        }
        return out;
    }

    /** Field trial: JDBC spans multiplied at step 3 (5 queries per request, was 1) were counted as retries. */
    @Test
    void databaseCallsAreNoRetries() {
        List<WorkerResult> rs = overAtStep3();
        List<StepFigures> steps = steps(report(RUN, rs, null, List.of()));
        TraceEvidence traces = evidence(steps, orderTraces(steps, 1, 5));
        TraceEvidence.EntryTraces at3 = traces.step("formal", 2).orElseThrow().entry("order POST /orders").orElseThrow();
        assertEquals(20, at3.downstreamCalls(), "one inventory call per request; the 100 JDBC spans are no service call");
        assertEquals(0, at3.retries());
        Report.Finding f = report(RUN, rs, traces, List.of()).resilience().of(ResilienceVerdict.RETRIES);
        assertEquals(HOLDS, f.status(), f.line());
        assertTrue(f.line().contains("step 2 \u2192 step 3: 1.00 \u2192 1.00 calls, 0.00 \u2192 0.00 retries per request"), f.line());
    }

    /** Three attempts of the same POST from the same caller span: two retries per request, and the finding fails. */
    @Test
    void repeatedClientSpansToTheSameOperationAreRetries() {
        List<WorkerResult> rs = overAtStep3();
        List<StepFigures> steps = steps(report(RUN, rs, null, List.of()));
        TraceEvidence traces = evidence(steps, orderTraces(steps, 3, 1));
        TraceEvidence.EntryTraces at3 = traces.step("formal", 2).orElseThrow().entry("order POST /orders").orElseThrow();
        assertEquals(40, at3.retries());
        assertEquals(60, at3.downstreamCalls());
        Report.Finding f = report(RUN, rs, traces, List.of()).resilience().of(ResilienceVerdict.RETRIES);
        assertEquals(FAILS, f.status(), f.line());
        assertTrue(f.line().startsWith("downstream calls per entry request grow with load, by retries: step 2 \u2192 step 3:"
                + " 1.00 \u2192 3.00 calls, 0.00 \u2192 2.00 retries per request over the same entries (order POST /orders)"), f.line());

        List<Span> distinct = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            distinct.addAll(orderTrace(String.format("%032x", 0xB000L + i), 0, 0, 0, 3));
        }
        assertEquals(0, TraceEvidence.retries(distinct.subList(0, 4)), "GET /items/0, /1, /2: three calls, no retry");
    }

    /**
     * Field trial: step 2 ran only the cheap entry (1 call per request), step 3 added an entry with 4 calls per request:
     * averaged over all traces calls per request grew 2.5×, but the same entries at both steps stayed flat.
     */
    @Test
    void aDifferentRequestMixIsNoAmplification() {
        List<WorkerResult> rs = overAtStep3();
        List<StepFigures> steps = steps(report(RUN, rs, null, List.of()));
        List<Span> spans = new ArrayList<>(Fixtures.traces(steps, 20, x -> 1, x -> 20, "search", "GET /items", "catalog"));
        StepFigures third = steps.get(3);
        for (int i = 0; i < 20; i++) {
            spans.addAll(orderTrace(String.format("%032x", 0xC000L + i), third.startedAtMs() + 200 + i, 0, 0, 4));
        }
        TraceEvidence traces = evidence(steps, spans);
        assertEquals(2.5, traces.step("formal", 2).orElseThrow().callsPerRequest(), 1e-9);
        Report.Finding f = report(RUN, rs, traces, List.of()).resilience().of(ResilienceVerdict.RETRIES);
        assertEquals(HOLDS, f.status(), f.line());
        assertTrue(f.line().contains("step 2 \u2192 step 3: 1.00 \u2192 1.00 calls"), f.line());
    }

    /**
     * Field trial: inventory DAMAGED at step 1; search, which never calls it, had p99 25 ms in the 2 QPS pre-test and
     * already 280 ms at every formal step. The pre-test is no comparable step: not observed, never a leak.
     */
    @Test
    void bulkheadsNeverCompareWithThePreTest() {
        List<WorkerResult> rs = healthyUpTo(3);
        List<StepFigures> steps = steps(report(RUN, rs, null, List.of()));
        List<Span> spans = new ArrayList<>(Fixtures.traces(steps, 20, x -> 1, x -> 40, "order", "POST /orders", "inventory"));
        spans.addAll(Fixtures.traces(steps, 20, x -> 1, x -> x.stage().equals("pre-test") ? 25 : 280, "search", "GET /items", "catalog"));
        TraceEvidence traces = evidence(steps, spans);
        List<Verdict> atStep1 = List.of(new Verdict("inventory", Verdict.State.DAMAGED, "weighted probe vote 1.00 >= 0.60",
                startOf("formal", 0) + 3_000));
        Report.Finding first = report(RUN, rs, traces, atStep1).resilience().of(ResilienceVerdict.BULKHEADS);
        assertEquals(NOT_OBSERVED, first.status(), first.line());
        assertEquals("inventory DAMAGED at step 1, but no entry that does not call inventory has traces at the formal step"
                + " before it to compare with (the pre-test, at a far lower rate, is no comparable step)", first.line());

        List<Verdict> atStep3 = List.of(new Verdict("inventory", Verdict.State.DAMAGED, "weighted probe vote 1.00 >= 0.60",
                startOf("formal", 2) + 3_000));
        Report.Finding third = report(RUN, rs, traces, atStep3).resilience().of(ResilienceVerdict.BULKHEADS);
        assertEquals(HOLDS, third.status(), third.line());
        assertEquals("damage stays isolated: inventory DAMAGED at step 3: entries that do not call it: search GET /items p99 280"
                + " \u2192 280 ms", third.line().replaceAll("p99 280\\.\\d+", "p99 280").replaceAll("\u2192 280\\.\\d+", "\u2192 280"));
    }

    private static Report.Resilience findings(Report.Status shedding, Report.Status deadlines, Report.Status retries) {
        return new Report.Resilience(List.of(new Report.Finding(ResilienceVerdict.SHEDDING, shedding, "s"),
                new Report.Finding(ResilienceVerdict.DEADLINES, deadlines, "d"),
                new Report.Finding(ResilienceVerdict.RETRIES, retries, "r"),
                new Report.Finding(ResilienceVerdict.BULKHEADS, NOT_OBSERVED, "b")));
    }

    /** The failure mode of steps 1, 2 healthy (10, 12 ms) and {@code third} over capacity, with these findings. */
    private static Report.FailureMode mode(WorkerResult third, Report.Resilience r) {
        List<WorkerResult> rs = healthyUpTo(2);
        rs.add(third);
        return ResilienceVerdict.failureMode(report(RUN, rs, null, List.of()).formal(), r);
    }

    /** Every row of {@link ResilienceVerdict#MODES}, and the field trial's collapse with 0 timeouts and deadlines holding. */
    @Test
    void theFailureModeFollowsItsRuleTable() {
        Report.FailureMode collapse = mode(step("formal", 2, 80, 800, 500, Map.of(), 300, 1900),
                findings(FAILS, FAILS, NOT_OBSERVED));
        assertEquals("progressive collapse", collapse.kind(), collapse.evidence());
        assertTrue(collapse.evidence().contains("most errors are timeouts at the client deadline; slow responses grow without"
                + " bound (deadlines fails)"), collapse.evidence());

        Report.FailureMode withRetries = mode(step("formal", 2, 80, 800, 500, Map.of(), 300, 1900),
                findings(FAILS, FAILS, FAILS));
        assertTrue(withRetries.evidence().contains("retries multiply the load (retry amplification fails)"), withRetries.evidence());

        // field trial: 500s, p99 grew, retries "failed", 0 timeouts and deadlines holding: no collapse can be said
        Report.FailureMode trial = mode(step("formal", 2, 80, 800, 500, Map.of("500", 300L), 0, 150),
                findings(FAILS, HOLDS, FAILS));
        assertEquals("fast errors", trial.kind(), trial.evidence());
        assertFalse(trial.evidence().contains("progressive collapse"));

        Report.FailureMode slowdown = mode(step("formal", 2, 80, 800, 800, Map.of(), 0, 3500), findings(FAILS, HOLDS, NOT_OBSERVED));
        assertEquals("slowdown", slowdown.kind(), slowdown.evidence());

        Report.FailureMode slowShed = mode(step("formal", 2, 80, 800, 500, Map.of("503", 300L), 0, 14),
                findings(FAILS, HOLDS, NOT_OBSERVED));
        assertEquals("slow shedding", slowShed.kind(), slowShed.evidence());

        Report.FailureMode graceful = mode(step("formal", 2, 80, 800, 500, Map.of("429", 300L), 0, 14),
                findings(HOLDS, HOLDS, NOT_OBSERVED));
        assertEquals("graceful shedding", graceful.kind(), graceful.evidence());

        Report.FailureMode refused = mode(worker("formal", 2, 0, 1, 80, 800, 500, Map.of(), 0, 300, 14, false),
                findings(FAILS, HOLDS, NOT_OBSERVED));
        assertEquals("refused connections", refused.kind(), refused.evidence());

        Report.FailureMode fast = mode(step("formal", 2, 80, 800, 500, Map.of("500", 300L), 0, 15), findings(FAILS, HOLDS, NOT_OBSERVED));
        assertEquals("fast errors", fast.kind(), fast.evidence());
        assertTrue(fast.evidence().contains("errors answered without the growth of a collapse (0 timeouts)"), fast.evidence());
        assertEquals(List.of("progressive collapse", "slowdown", "slow shedding", "graceful shedding", "refused connections",
                "fast errors"), ResilienceVerdict.MODES.stream().map(ResilienceVerdict.Mode::name).toList());
    }

    /** Step 1 aborted by a module DAMAGED from its probes (health DOWN), its requests failing with it. */
    private static List<WorkerResult> faultAtStep1() {
        List<WorkerResult> rs = healthyUpTo(0);
        rs.add(worker("formal", 0, 0, 1, 20, 120, 60, Map.of("500", 60L), 0, 0, 40, true));
        return rs;
    }

    /**
     * Field trial: "capacity 0 QPS" for a run a fault aborted at its first step; and, once a step was sustained, the
     * abort keeps what it measured.
     */
    @Test
    void aFaultCausedAbortMeasuresNoCapacityBeforeASustainedStepAndKeepsItAfter() {
        String why = "DAMAGED core module inventory: weighted probe vote 1.00 >= 0.60 (failing: http); http: DOWN";
        Report r = report(Fixtures.aborted(why), faultAtStep1(), null, List.of());
        assertFalse(r.capacity().measured());
        assertEquals(0.0, r.capacity().maxSustainableQps());
        assertEquals("not measured: aborted by " + why + " at step 1", r.capacity().limitedBy());
        assertEquals("not measured", HtmlReport.capacityFigure(r));
        assertTrue(HtmlReport.render(r).contains(HtmlReport.esc("not measured: aborted by " + why + " at step 1")));

        List<WorkerResult> lost = healthyUpTo(1);
        lost.add(worker("formal", 1, 0, 1, 40, 200, 200, Map.of(), 0, 0, 12, true));
        Report monitoring = report(Fixtures.aborted(MonitorHeartbeat.REASON_PREFIX + "no heartbeat for 30 s"), lost, null, List.of());
        String first = StepLabels.qps(monitoring.formal().get(0).targetQps());
        assertEquals("at least " + first + " QPS: aborted by monitoring lost: no heartbeat for 30 s at step 2, after 1"
                + " sustained step", monitoring.capacity().limitedBy(), "what step 1 measured is kept");
        assertTrue(monitoring.capacity().measured());
        assertFalse(monitoring.capacity().reached());
    }

    /**
     * The demo: the shop sheds at its rate limiter at step 3 and the abort policy stops the run on the load's own
     * error rate: that is the knee, so capacity is the last sustained step. A knee at an unaborted step before a
     * fault's abort is measured too.
     */
    @Test
    void theLoadsOwnBreachAndAnEarlierKneeStillMeasureCapacity() {
        List<WorkerResult> demo = healthyUpTo(2);
        demo.add(worker("formal", 2, 0, 1, 80, 400, 200, Map.of("429", 200L), 0, 0, 8, true));
        Report r = report(Fixtures.aborted("error rate over 0.250 for 5 s"), demo, null, List.of());
        assertTrue(r.capacity().measured(), r.capacity().limitedBy());
        assertEquals(40.0, r.capacity().maxSustainableQps());

        Report burst = report(Fixtures.aborted("DAMAGED core module order: error rate 0.500 >= 0.250 over the last 5 s"), demo,
                null, List.of());
        assertEquals(40.0, burst.capacity().maxSustainableQps(), burst.capacity().limitedBy());
        assertTrue(burst.capacity().measured());

        List<WorkerResult> knee = healthyUpTo(1);
        knee.add(step("formal", 1, 40, 400, 300, Map.of("500", 100L), 0, 20));
        knee.add(worker("formal", 2, 0, 1, 80, 100, 50, Map.of("500", 50L), 0, 0, 20, true));
        Report later = report(Fixtures.aborted("requested by alice: enough"), knee, null, List.of());
        assertTrue(later.capacity().measured(), later.capacity().limitedBy());
        assertEquals(20.0, later.capacity().maxSustainableQps());
    }
}
