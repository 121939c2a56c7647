package dev.richter.report;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.HistogramCodec;
import dev.richter.common.model.Marker;
import dev.richter.common.model.OverloadResponses;
import dev.richter.common.model.Verdict;
import dev.richter.common.model.WindowAttributes;
import dev.richter.common.model.WorkerResult;
import dev.richter.links.trace.Span;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.HdrHistogram.Histogram;

/**
 * A realistic report of the demo shop's plan (pre-test at 2 QPS, steps of 20, 40 and 80 QPS): healthy up to 40 QPS,
 * shedding with fast 503s and Retry-After at 80 QPS while inventory turns SUSPECT; per-second windows with noise, the
 * shop's call graph with a mocked payment exit, a lost marker and a real exit, and marked traces.
 */
final class SampleReports {
    private SampleReports() {}

    static Report shop(boolean windowsWithKinds) {
        Random rnd = new Random(7);
        List<WorkerResult> rs = new ArrayList<>(List.of(Fixtures.step("pre-test", 0, 2, 20, 20, Map.of(), 0, 31)));
        rs.add(Fixtures.step("formal", 0, 20, 200, 200, Map.of(), 0, 33));
        rs.add(Fixtures.step("formal", 1, 40, 400, 400, Map.of(), 0, 38));
        rs.add(Fixtures.step("formal", 2, 80, 800, 560, Map.of("503", 240L), 0, 61));
        List<Verdict> verdicts = List.of(new Verdict("inventory", Verdict.State.HEALTHY, "probes ok", Fixtures.T0),
                new Verdict("order", Verdict.State.HEALTHY, "probes ok", Fixtures.T0),
                new Verdict("inventory", Verdict.State.SUSPECT, "5 consecutive failed probes; heap 0.71", Fixtures.startOf("formal", 2) + 4_000),
                new Verdict("inventory", Verdict.State.HEALTHY, "3 consecutive successes", Fixtures.startOf("formal", 2) + 9_000));
        Map<String, Double> targets = Map.of("pre-test#0", 2.0, "formal#0", 20.0, "formal#1", 40.0, "formal#2", 80.0);
        TimeSeries.Builder b = new TimeSeries.Builder(1, targets);
        String[][] steps = {{"pre-test", "0", "2", "31"}, {"formal", "0", "20", "33"}, {"formal", "1", "40", "38"}, {"formal", "2", "80", "61"}};
        for (String[] s : steps) {
            int index = Integer.parseInt(s[1]);
            double qps = Double.parseDouble(s[2]);
            double ms = Double.parseDouble(s[3]);
            long first = Fixtures.startOf(s[0], index) / 1000;
            for (long sec = first; sec < first + 10; sec++) {
                long count = Math.max(0, Math.round(qps + (qps > 2 ? rnd.nextGaussian() * qps * 0.03 : 0)));
                boolean over = qps == 80 && sec - first >= 2;
                long shed = over ? Math.round(count * 0.3) : 0;
                Histogram h = HistogramCodec.newLatencyHistogramUs();
                for (long i = 0; i < count; i++) {
                    double v = ms * (0.6 + 0.5 * rnd.nextDouble()) + (rnd.nextDouble() < 0.02 ? ms * 2 : 0);
                    h.recordValue((long) (v * 1000));
                }
                Map<String, Long> optional = windowsWithKinds ? Map.of(WindowAttributes.SENT, count, WindowAttributes.HTTP_4XX, 0L,
                        WindowAttributes.HTTP_5XX, shed, WindowAttributes.TIMEOUTS, 0L, WindowAttributes.CONNECT_ERRORS, 0L,
                        WindowAttributes.DROPPED, 0L, WindowAttributes.LATE, 0L) : Map.of();
                b.add(new TimeSeries.StoredWindow(s[0], index, sec, count, shed, HistogramCodec.encode(h), optional));
            }
        }
        OverloadResponses.Recorder rec = new OverloadResponses.Recorder();
        for (int i = 0; i < 240; i++) {
            rec.record(503, i % 2 == 0 ? "2" : "Wed, 21 Oct 2026 07:28:02 GMT", "Wed, 21 Oct 2026 07:28:00 GMT", 3_000 + i * 10L,
                    Fixtures.T0);
        }
        Report base = ReportBuilder.build(Fixtures.RUN, Fixtures.plan(2), rs, List.of(), List.of(), verdicts, null, Fixtures.T0 + 80_000);
        List<StepFigures> all = new ArrayList<>(base.preTest());
        all.addAll(base.formal());
        List<Span> spans = Fixtures.traces(all, 20, f -> 1, f -> f.latencyMs().getOrDefault("p50", 10.0), "order", "POST /orders",
                "inventory");
        TraceEvidence traces = TraceEvidence.of("directory examples/shop/target/run", spans, Fixtures.windows(all), Marker.DEFAULT);
        List<CheckResult> dynamic = List.of(
                new CheckResult("workers-reported", CheckResult.Outcome.PASS, "pre-test", "1 of 1 workers reported results"),
                new CheckResult("marker-sent", CheckResult.Outcome.PASS, "pre-test", "20 of 20 sent requests carried the marker"),
                new CheckResult("trace-source", CheckResult.Outcome.PASS, "pre-test", "91 spans (60 marked) from directory examples/shop/target/run"),
                new CheckResult("marker-propagation", CheckResult.Outcome.PASS, "marked traces", "20 marked traces from 1 entries"
                        + " [order POST /orders]: all 60 in-scope spans carry richter-loadtest=1"),
                new CheckResult("mocked-exit", CheckResult.Outcome.PASS, CallGraphTest.CHARGE, "20 marked calls answered by the mock"
                        + " (richter.mock=true), 0 real"),
                new CheckResult("test-vs-real-links", CheckResult.Outcome.WARN, "entries", "no entry seen under both marked and real"
                        + " traffic (marked: [order POST /orders], real: [order GET /actuator/health]): links not compared"));
        List<CheckResult> statics = List.of(
                new CheckResult("target-answers", CheckResult.Outcome.PASS, "order", "connected to 127.0.0.1:18081 in 1 ms"),
                new CheckResult("marker-configured", CheckResult.Outcome.PASS, "plan plan-1", "header baggage member richter-loadtest=1"),
                new CheckResult("mock-present", CheckResult.Outcome.PASS, CallGraphTest.CHARGE, "mock answers 200 in 50 ms"));
        ReportEvidence evidence = new ReportEvidence(List.of(), b.build(), List.of(rec.snapshot("run-1", "formal", 2, 0, 0)), traces,
                CallGraphTest.shop(dynamic));
        return ReportBuilder.build(Fixtures.RUN, Fixtures.plan(2), rs, statics, dynamic, verdicts, List.of(), evidence, null,
                Fixtures.T0 + 80_000);
    }
}
