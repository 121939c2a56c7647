package dev.richter.report;

import static dev.richter.report.Fixtures.CLEAN_DYNAMIC;
import static dev.richter.report.Fixtures.PLAN;
import static dev.richter.report.Fixtures.RUN;
import static dev.richter.report.Fixtures.healthyUpTo;
import static dev.richter.report.Fixtures.step;
import static dev.richter.report.Report.Status.FAILS;
import static dev.richter.report.Report.Status.HOLDS;
import static dev.richter.report.Report.Status.NOT_OBSERVED;
import static dev.richter.report.Report.Status.WEAK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.Marker;
import dev.richter.common.model.OverloadResponses;
import dev.richter.common.model.Verdict;
import dev.richter.common.model.WorkerResult;
import dev.richter.links.trace.Span;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The resilience verdict against scripted targets: one that sheds with Retry-After in seconds, one with an HTTP-date
 * (corpus bug 28), one that sheds without it, one that times out without bound, one whose retries amplify load, and one
 * whose damaged module leaks (or not) into an entry that does not call it.
 */
class ResilienceVerdictTest {
    static final Path CORPUS = Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"));

    /** Steps 1 and 2 healthy; step 3 over capacity: 300 of 800 answered 503 at 14 ms. */
    private static List<WorkerResult> sheddingRun() {
        List<WorkerResult> rs = healthyUpTo(2);
        rs.add(step("formal", 2, 80, 800, 500, Map.of("503", 300L), 0, 14));
        return rs;
    }

    /** What the load driver records for step 3's 503s: each answered at {@code latencyUs} with these headers. */
    private static OverloadResponses overload(int responses, long latencyUs, String retryAfter, String date) {
        OverloadResponses.Recorder rec = new OverloadResponses.Recorder();
        long now = Instant.parse("2026-10-21T07:28:00Z").toEpochMilli();
        for (int i = 0; i < responses; i++) {
            rec.record(503, retryAfter, date, latencyUs, now);
        }
        return rec.snapshot("run-1", "formal", 2, 0, 0);
    }

    private static Report report(List<WorkerResult> rs, List<OverloadResponses> overload, TraceEvidence traces, List<Verdict> verdicts) {
        return ReportBuilder.build(RUN, PLAN, rs, List.of(), CLEAN_DYNAMIC, verdicts, List.of(),
                new ReportEvidence(List.of(), null, overload, traces, null), null, 1);
    }

    @Test
    void shedsFastWithRetryAfterInSeconds() {
        Report r = report(sheddingRun(), List.of(overload(300, 4_000, "120", null)), null, List.of());
        Report.Finding f = r.resilience().of(ResilienceVerdict.SHEDDING);
        assertEquals(HOLDS, f.status(), f.line());
        assertEquals("step 3 \u00b7 80 QPS: 300 of 800 requests answered 429/503 (37.5 %), fast (p99 4.00 ms); valid Retry-After on"
                + " 300 of 300 (300 delay-seconds, 0 HTTP-date; 120 s), 0 invalid, 0 without", f.line());
        assertEquals("graceful shedding", r.failureMode().kind(), r.failureMode().evidence());
        assertTrue(r.failureMode().evidence().endsWith("shedding holds, deadlines holds, retry amplification not observed"),
                r.failureMode().evidence());
    }

    /** Corpus bug 28: the 503 carries Retry-After as an IMF-fixdate two minutes after its Date header. */
    @Test
    void shedsFastWithRetryAfterAsAnHttpDate() throws Exception {
        Map<String, String> h = headers(Files.readString(CORPUS.resolve("bugs/28-retry-after-http-date.http")));
        assertTrue(h.get("status").startsWith("503"));
        Report r = report(sheddingRun(), List.of(overload(300, 6_000, h.get("retry-after"), h.get("date"))), null, List.of());
        Report.Finding f = r.resilience().of(ResilienceVerdict.SHEDDING);
        assertEquals(HOLDS, f.status(), f.line());
        assertTrue(f.line().endsWith("valid Retry-After on 300 of 300 (0 delay-seconds, 300 HTTP-date; 120 s), 0 invalid, 0 without"), f.line());
        assertEquals("graceful shedding", r.failureMode().kind());
    }

    @Test
    void shedsWithoutRetryAfterIsWeak() {
        List<OverloadResponses> o = List.of(overload(200, 3_000, null, null), overload(100, 3_000, "soon", null));
        Report r = report(sheddingRun(), o, null, List.of());
        Report.Finding f = r.resilience().of(ResilienceVerdict.SHEDDING);
        assertEquals(WEAK, f.status(), f.line());
        assertTrue(f.line().contains("fast (p99 3.00 ms), but 300 without a valid Retry-After"), f.line());
        assertTrue(f.line().endsWith("valid Retry-After on 0 of 300 (0 delay-seconds, 0 HTTP-date), 100 invalid (e.g. 'soon'), 200 without"), f.line());
        assertEquals("graceful shedding", r.failureMode().kind(), "fast 503s still shed, even without a hint");
        assertTrue(r.problems().stream().anyMatch(p -> p.kind().equals("resilience") && p.subject().equals("shedding")
                && p.next().contains("Retry-After")), r.problems().toString());
    }

    @Test
    void slow503sAreQueuedWorkNotShedding() {
        Report r = report(sheddingRun(), List.of(overload(300, 1_800_000, "120", null)), null, List.of());
        Report.Finding f = r.resilience().of(ResilienceVerdict.SHEDDING);
        assertEquals(FAILS, f.status(), f.line());
        assertTrue(f.line().contains("slowly: p99 1800 ms > 250 ms"), f.line());
        assertEquals("slow shedding", r.failureMode().kind(), "0 timeouts and deadlines holding: no collapse to cite");
    }

    /**
     * Issue 24 finding 6: fast 500s (p99 about 13 ms, no timeouts, deadlines HOLDS) are errors answered fast, not a
     * collapse; the mode names the evidence it read.
     */
    @Test
    void fast500sAreFastErrorsNotProgressiveCollapse() {
        List<WorkerResult> rs = healthyUpTo(2);
        rs.add(step("formal", 2, 80, 800, 500, Map.of("500", 300L), 0, 15));
        Report r = report(rs, List.of(), null, List.of());
        assertEquals("fast errors", r.failureMode().kind(), r.failureMode().evidence());
        assertTrue(r.failureMode().evidence().startsWith("step 3 \u00b7 80 QPS: 300 errors (0 429/503, 0 timeouts, 0 connect,"
                + " 300 other HTTP {500=300}), p99 "), r.failureMode().evidence());
        assertTrue(r.failureMode().evidence().endsWith("the service fails fast, but does not shed with 429/503; shedding fails,"
                + " deadlines holds, retry amplification not observed"), r.failureMode().evidence());
    }

    /** Connect errors without slowing down are refused connections; latency alone missed is a slowdown. */
    @Test
    void refusedConnectionsAndASlowdownAreNamedForTheirEvidence() {
        List<WorkerResult> refused = healthyUpTo(2);
        refused.add(Fixtures.worker("formal", 2, 0, 1, 80, 800, 500, Map.of(), 0, 300, 15, false));
        Report r = report(refused, List.of(), null, List.of());
        assertEquals("refused connections", r.failureMode().kind(), r.failureMode().evidence());

        // every request answered, p99 rising 1.8 -> 2.5 -> 3.2 s: over the 3 s criterion by latency alone, no 2x jump
        List<WorkerResult> slow = new ArrayList<>(List.of(step("pre-test", 0, 2, 20, 20, Map.of(), 0, 5),
                step("formal", 0, 20, 200, 200, Map.of(), 0, 1500), step("formal", 1, 40, 400, 400, Map.of(), 0, 2080),
                step("formal", 2, 80, 800, 800, Map.of(), 0, 2670)));
        Report s = report(slow, List.of(), null, List.of());
        assertEquals(List.of(true, true, false), s.formal().stream().map(ReportBuilder::healthy).toList(),
                s.formal().toString());
        assertEquals("slowdown", s.failureMode().kind(), s.failureMode().evidence());
    }

    /** Only the load's own figures were DAMAGED: the bulkhead line says so instead of "no module was DAMAGED". */
    @Test
    void aDamagedLoadModuleIsNamedByTheBulkheadLine() {
        List<WorkerResult> rs = healthyUpTo(2);
        rs.add(step("formal", 2, 80, 800, 500, Map.of("500", 300L), 0, 15));
        long at = Fixtures.startOf("formal", 2) + 3_000;
        Report r = report(rs, List.of(), null, List.of(new Verdict("load", Verdict.State.DAMAGED, "error rate 37.5 %", at)));
        Report.Finding f = r.resilience().of(ResilienceVerdict.BULKHEADS);
        assertEquals(NOT_OBSERVED, f.status());
        assertEquals("only the load's own figures were DAMAGED (module load: error rate 37.5 %); no service module was"
                + " SUSPECT or DAMAGED, so no damage of one could be seen leaking into the others", f.line());
    }

    @Test
    void sheddingWithoutTheLoadDriversRecordsIsNotVerified() {
        Report r = report(sheddingRun(), List.of(), null, List.of());
        Report.Finding f = r.resilience().of(ResilienceVerdict.SHEDDING);
        assertEquals(NOT_OBSERVED, f.status());
        assertTrue(f.line().endsWith("their latency and Retry-After were not recorded by the load driver, so shedding is not verified"),
                f.line());
    }

    @Test
    void overCapacityWithoutA429Or503FailsShedding() {
        List<WorkerResult> rs = healthyUpTo(2);
        rs.add(step("formal", 2, 80, 800, 700, Map.of("500", 40L), 60, 1900));
        Report.Finding f = report(rs, List.of(), null, List.of()).resilience().of(ResilienceVerdict.SHEDDING);
        assertEquals(FAILS, f.status(), f.line());
        assertTrue(f.line().startsWith("step 3 \u00b7 80 QPS went over capacity (success 87.50 %") && f.line().contains("without a single 429/503"),
                f.line());
    }

    @Test
    void oneFallback503IsNotShedding() {
        List<WorkerResult> rs = healthyUpTo(2);
        rs.add(step("formal", 2, 80, 2000, 1999, Map.of("503", 1L), 0, 16));
        Report r = report(rs, List.of(overload(1, 3_000, null, null)), null, List.of());
        Report.Finding f = r.resilience().of(ResilienceVerdict.SHEDDING);
        assertEquals(NOT_OBSERVED, f.status(), f.line());
        assertTrue(f.line().endsWith("and its 1 429/503 answer is too few to judge shedding by (at least 10 and 1 % of a"
                + " step's requests)"), f.line());
        assertTrue(r.problems().stream().noneMatch(p -> p.subject().equals("shedding")), r.problems().toString());

        List<WorkerResult> over = healthyUpTo(2);
        over.add(step("formal", 2, 80, 800, 699, Map.of("503", 1L, "500", 40L), 60, 1900));
        Report.Finding failed = report(over, List.of(overload(1, 3_000, "1", null)), null, List.of()).resilience()
                .of(ResilienceVerdict.SHEDDING);
        assertEquals(FAILS, failed.status(), failed.line());
        assertTrue(failed.line().contains("with only 1 429/503, too few to be shedding"), failed.line());
    }

    /** One worker's step of {@code sent} answers: all at {@code typicalMs} but the {@code slow} slowest at {@code slowMs}. */
    private static WorkerResult tail(int index, double qps, long sent, long ok, Map<String, Long> http, double typicalMs,
                                     int slow, double slowMs) {
        var h = dev.richter.common.model.HistogramCodec.newLatencyHistogramUs();
        for (long i = 0; i < sent; i++) {
            h.recordValue((long) ((i < sent - slow ? typicalMs : slowMs) * 1000));
        }
        long start = Fixtures.startOf("formal", index);
        return new WorkerResult("run-1", "formal", index, 0, 1, qps, start, start + 10_000,
                new dev.richter.common.model.Counters(sent, sent, ok, http, 0, 0, 0, 0, sent),
                dev.richter.common.model.HistogramCodec.encode(h), dev.richter.common.model.HistogramCodec.encode(h), false);
    }

    @Test
    void aP99OfFewAnswersIsNotComparedForGrowthItsP90Is() {
        // MainJobIT in CI: the step before the knee answered 400 requests with a p99 of 92 ms, the knee step 194 ms:
        // "progressive collapse" on the 4 slowest answers of each, where the same system gives "graceful shedding"
        List<WorkerResult> rs = healthyUpTo(1);
        rs.add(tail(1, 40, 400, 400, Map.of(), 11, 5, 92));
        rs.add(tail(2, 60, 600, 510, Map.of("429", 90L), 12, 7, 194));
        Report r = report(rs, List.of(overload(90, 3_000, "1", null)), null, List.of());
        assertEquals("graceful shedding", r.failureMode().kind(), r.failureMode().evidence());
        assertEquals(HOLDS, r.resilience().of(ResilienceVerdict.DEADLINES).status(),
                r.resilience().of(ResilienceVerdict.DEADLINES).line());

        List<WorkerResult> grown = healthyUpTo(1);
        grown.add(tail(1, 40, 400, 400, Map.of(), 11, 5, 92));
        grown.add(tail(2, 60, 600, 510, Map.of("429", 90L), 140, 7, 194));
        Report collapse = report(grown, List.of(overload(90, 3_000, "1", null)), null, List.of());
        assertEquals("progressive collapse", collapse.failureMode().kind(), collapse.failureMode().evidence());
        assertTrue(collapse.failureMode().evidence().contains("p90 grew 12.7\u00d7 over the step before"),
                collapse.failureMode().evidence());
    }

    @Test
    void aSustainedRunObservesNoDefence() {
        Report r = report(healthyUpTo(3), List.of(), null, List.of());
        assertEquals(List.of(NOT_OBSERVED, NOT_OBSERVED, NOT_OBSERVED, NOT_OBSERVED, NOT_OBSERVED),
                r.resilience().findings().stream().map(Report.Finding::status).toList(), r.resilience().toString());
        assertEquals("no step went over capacity (the highest, step 3 \u00b7 80 QPS, was sustained) and none was answered with 429/503",
                r.resilience().of(ResilienceVerdict.SHEDDING).line());
        assertTrue(r.resilience().of(ResilienceVerdict.DEADLINES).line().startsWith("no step got slow: p99 at most 16.75 ms (step 3)"),
                r.resilience().of(ResilienceVerdict.DEADLINES).line());
    }

    /** Each step slower than the last until requests hit the client deadline in growing numbers. */
    @Test
    void timesOutWithoutBound() {
        List<WorkerResult> rs = new ArrayList<>(List.of(step("pre-test", 0, 2, 20, 20, Map.of(), 0, 5)));
        rs.add(step("formal", 0, 20, 200, 200, Map.of(), 0, 60));
        rs.add(step("formal", 1, 40, 400, 388, Map.of(), 12, 400));
        rs.add(step("formal", 2, 80, 800, 460, Map.of(), 340, 1700));
        Report r = report(rs, List.of(), null, List.of());
        Report.Finding f = r.resilience().of(ResilienceVerdict.DEADLINES);
        assertEquals(FAILS, f.status(), f.line());
        assertTrue(f.line().startsWith("slow responses grow without bound: "), f.line());
        assertTrue(f.line().contains("0 \u2192 12 \u2192 340 timeouts at the 2000 ms client deadline (step 1..3)"), f.line());
        assertEquals("progressive collapse", r.failureMode().kind());
        assertEquals(20.0, r.capacity().maxSustainableQps());
    }

    @Test
    void boundedSlowResponsesHold() {
        List<WorkerResult> rs = healthyUpTo(2);
        rs.add(step("formal", 2, 80, 800, 500, Map.of("503", 300L), 0, 20));
        Report.Finding f = report(rs, List.of(), null, List.of()).resilience().of(ResilienceVerdict.DEADLINES);
        assertEquals(HOLDS, f.status(), f.line());
    }

    /** Step 3 over capacity; its traces show three client calls per entry request where lower steps had one. */
    @Test
    void amplifiesRetries() {
        List<WorkerResult> rs = healthyUpTo(2);
        rs.add(step("formal", 2, 80, 800, 600, Map.of("504", 200L), 0, 1400));
        Report base = report(rs, List.of(), null, List.of());
        List<StepFigures> steps = steps(base);
        List<Span> spans = Fixtures.traces(steps, 20, f -> f.stepIndex() == 2 && f.stage().equals("formal") ? 3 : 1, f -> 30,
                "order", "POST /orders", "inventory");
        TraceEvidence traces = TraceEvidence.of("test spans", spans, Fixtures.windows(steps), Marker.DEFAULT);
        assertEquals(3.0, traces.step("formal", 2).orElseThrow().callsPerRequest(), 1e-9);
        Report r = report(rs, List.of(), traces, List.of());
        Report.Finding f = r.resilience().of(ResilienceVerdict.RETRIES);
        assertEquals(FAILS, f.status(), f.line());
        assertTrue(f.line().startsWith("downstream calls per entry request grow with load, by retries: step 2 \u2192 step 3:"
                + " 1.00 \u2192 3.00 calls, 0.00 \u2192 2.00 retries per request over the same entries (order POST /orders);"
                + " retries multiply the load on the callees"), f.line());
        assertEquals("progressive collapse", r.failureMode().kind());

        List<Span> flat = Fixtures.traces(steps, 20, x -> 2, x -> 30, "order", "POST /orders", "inventory");
        Report.Finding held = report(rs, List.of(), TraceEvidence.of("test spans", flat, Fixtures.windows(steps), Marker.DEFAULT), List.of())
                .resilience().of(ResilienceVerdict.RETRIES);
        assertEquals(HOLDS, held.status(), held.line());
        assertEquals(NOT_OBSERVED, report(rs, List.of(), TraceEvidence.notRead("no trace source configured for team t1"), List.of())
                .resilience().of(ResilienceVerdict.RETRIES).status());
    }

    /**
     * The demo's failed pre-test: one step with traces, and no formal step. A ratio at one step says nothing about
     * growth with load, so retry amplification is not observed, never "holds".
     */
    @Test
    void oneStepWithTracesCannotShowRetriesStayFlat() {
        List<WorkerResult> rs = new ArrayList<>(List.of(step("pre-test", 0, 2, 20, 13, Map.of(), 7, 2300)));
        Report base = report(rs, List.of(), null, List.of());
        List<StepFigures> steps = steps(base);
        List<Span> spans = Fixtures.traces(steps, 20, x -> 1, x -> 30, "order", "POST /orders", "inventory");
        Report.Finding f = report(rs, List.of(), TraceEvidence.of("test spans", spans, Fixtures.windows(steps), Marker.DEFAULT),
                List.of()).resilience().of(ResilienceVerdict.RETRIES);
        assertEquals(NOT_OBSERVED, f.status(), f.line());
        assertEquals("1.00 downstream calls per entry request at one step only (pre-test): growth with load needs two steps"
                + " with traces", f.line());
    }

    /** inventory is DAMAGED during step 3; search never calls it. */
    @Test
    void bulkheadsHoldOrLeak() {
        List<WorkerResult> rs = healthyUpTo(3);
        List<StepFigures> steps = steps(report(rs, List.of(), null, List.of()));
        var damaged = List.of(new Verdict("inventory", Verdict.State.HEALTHY, "ok", Fixtures.T0),
                new Verdict("inventory", Verdict.State.DAMAGED, "10 consecutive failed probes", Fixtures.startOf("formal", 2) + 3_000));
        List<Span> spans = new ArrayList<>(Fixtures.traces(steps, 20, x -> 1, x -> 40, "order", "POST /orders", "inventory"));
        spans.addAll(Fixtures.traces(steps, 20, x -> 1, x -> 25, "search", "GET /items", "catalog"));
        Report.Finding held = report(rs, List.of(), TraceEvidence.of("t", spans, Fixtures.windows(steps), Marker.DEFAULT), damaged)
                .resilience().of(ResilienceVerdict.BULKHEADS);
        assertEquals(HOLDS, held.status(), held.line());
        assertEquals("damage stays isolated: inventory DAMAGED at step 3: entries that do not call it: search GET /items p99 25.01"
                + " \u2192 25.01 ms", held.line());

        List<Span> leaking = new ArrayList<>(Fixtures.traces(steps, 20, x -> 1, x -> 40, "order", "POST /orders", "inventory"));
        leaking.addAll(Fixtures.traces(steps, 20, x -> 1, x -> x.stage().equals("formal") && x.stepIndex() == 2 ? 400 : 25,
                "search", "GET /items", "catalog"));
        Report r = report(rs, List.of(), TraceEvidence.of("t", leaking, Fixtures.windows(steps), Marker.DEFAULT), damaged);
        Report.Finding leaks = r.resilience().of(ResilienceVerdict.BULKHEADS);
        assertEquals(FAILS, leaks.status(), leaks.line());
        assertTrue(leaks.line().contains("inventory DAMAGED at step 3"), leaks.line());
        assertTrue(leaks.line().contains("search GET /items p99 25.01 \u2192 400 ms (leaks)"), leaks.line());

        List<Span> onlyOrder = Fixtures.traces(steps, 20, x -> 1, x -> 40, "order", "POST /orders", "inventory");
        Report.Finding none = report(rs, List.of(), TraceEvidence.of("t", onlyOrder, Fixtures.windows(steps), Marker.DEFAULT), damaged)
                .resilience().of(ResilienceVerdict.BULKHEADS);
        assertEquals(NOT_OBSERVED, none.status());
        assertTrue(none.line().contains("every entry with traces calls inventory"), none.line());
        assertEquals(NOT_OBSERVED, report(rs, List.of(), null, List.of()).resilience().of(ResilienceVerdict.BULKHEADS).status());
    }

    @Test
    void aStepThatSentNothingNeverDecidesTheFailureMode() {
        List<WorkerResult> rs = healthyUpTo(2);
        long start = Fixtures.startOf("formal", 2);
        rs.add(new WorkerResult("run-1", "formal", 2, 0, 1, 80, start, start + 10, new dev.richter.common.model.Counters(0, 0, 0,
                Map.of(), 0, 0, 0, 0, 0), null, null, true));
        Report r = ReportBuilder.build(Fixtures.aborted("stop"), PLAN, rs, List.of(), CLEAN_DYNAMIC, List.of(), null, 1);
        assertEquals("none observed", r.failureMode().kind(), r.failureMode().evidence());
        assertEquals(40.0, r.capacity().maxSustainableQps());
        assertEquals("step 3 at 80 QPS sent no request: capacity is at least 40 QPS", r.capacity().limitedBy());
    }

    private static List<StepFigures> steps(Report r) {
        List<StepFigures> all = new ArrayList<>(r.preTest());
        all.addAll(r.formal());
        return all;
    }

    /** Header fields of an HTTP response file, names lower-cased; the status line as {@code status}. */
    static Map<String, String> headers(String response) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : response.split("\r?\n")) {
            if (line.isEmpty()) {
                break;
            }
            if (line.startsWith("HTTP/")) {
                out.put("status", line.substring(line.indexOf(' ') + 1));
                continue;
            }
            int colon = line.indexOf(':');
            if (colon > 0) {
                out.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
            }
        }
        return out;
    }
}
