package dev.richter.report;

import static dev.richter.report.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.richter.common.model.Marker;
import dev.richter.common.model.WorkerResult;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.SpanKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Per formal step, the service whose self-time per request grew most, with its saturation signals of the step. */
class BottlenecksTest {
    /** A marked gateway SERVER span of {@code gatewayMs} whose child is order's SERVER span of {@code orderMs}. */
    static List<Span> gatewayThenOrder(String traceId, long startMs, double gatewayMs, double orderMs) {
        long start = startMs * 1_000_000;
        String root = traceId.substring(0, 16);
        return List.of(
                new Span(traceId, root, "", List.of(), "gateway", "POST /orders", SpanKind.SERVER, "",
                        Map.of("richter-loadtest", "1"), start, (long) (gatewayMs * 1e6)),
                new Span(traceId, traceId.substring(16), root, List.of(), "order", "POST /orders", SpanKind.SERVER, "",
                        Map.of(), start + 1_000_000, (long) (orderMs * 1e6)));
    }

    /** Four marked traces per step, each a gateway span of {@code ms[step][0]} over order's {@code ms[step][1]}. */
    static TraceEvidence traces(List<StepFigures> steps, double[][] ms) {
        List<Span> spans = new ArrayList<>();
        for (int s = 0; s < steps.size(); s++) {
            for (int i = 0; i < 4; i++) {
                spans.addAll(gatewayThenOrder(String.format("%032x", 1000L * s + i + 1), steps.get(s).startedAtMs() + 100 + i,
                        ms[s][0], ms[s][1]));
            }
        }
        return TraceEvidence.of("test spans", spans, windows(steps), Marker.DEFAULT);
    }

    /** Three steps: pre-test (gateway 30 + order 20 ms), formal 1 (gateway 40), formal 2 (order 420). */
    static Report report(List<SaturationSignal> signals) {
        Report base = ReportBuilder.build(RUN, PLAN, healthyUpTo(2), List.of(), CLEAN_DYNAMIC, List.of(), null, 1);
        List<StepFigures> steps = new ArrayList<>(base.preTest());
        steps.addAll(base.formal());
        double[][] ms = {{50, 20}, {60, 20}, {460, 420}};
        TraceEvidence traces = traces(steps, ms);
        ReportEvidence evidence = new ReportEvidence(List.of(), null, List.of(), traces, null).withSaturation(signals);
        return ReportBuilder.build(RUN, PLAN, healthyUpTo(2), List.of(), CLEAN_DYNAMIC, List.of(), List.of(), evidence, null, 1);
    }

    @Test
    void theServiceWhoseOwnTimeGrewMostSinceThePreviousStepIsTheBottleneck() {
        long step2 = startOf("formal", 1);
        Report r = report(List.of(
                new SaturationSignal("order", step2 + 2000, "hostCpuRatio", 0.97, 0.9),
                new SaturationSignal("order", step2 + 4000, "hostCpuRatio", 0.99, 0.9),
                new SaturationSignal("order", step2 + 4000, "healthLatencyMs", 450, 200),
                new SaturationSignal("gateway", step2 + 4000, "cpuRatio", 0.99, 0.95),
                new SaturationSignal("order", startOf("formal", 0) + 2000, "connectionsPending", 3, 0)));

        assertEquals(2, r.bottlenecks().size());
        Bottlenecks.Bottleneck first = r.bottlenecks().get(0);
        assertEquals("gateway", first.module(), "gateway's own time 30 → 40 ms, order's unchanged");
        assertEquals(30, first.beforeMsPerRequest(), 1e-6);
        assertEquals(40, first.afterMsPerRequest(), 1e-6);
        assertEquals(List.of(), first.saturation());

        Bottlenecks.Bottleneck second = r.bottlenecks().get(1);
        assertEquals("formal", second.stage());
        assertEquals(1, second.stepIndex());
        assertEquals("order", second.module());
        assertEquals(20, second.beforeMsPerRequest(), 1e-6);
        assertEquals(420, second.afterMsPerRequest(), 1e-6);
        assertEquals(List.of(new Bottlenecks.Seen("healthLatencyMs", 450, 200, 1), new Bottlenecks.Seen("hostCpuRatio", 0.99, 0.9, 2)),
                second.saturation(), "order's signals in the step's window; gateway's and an earlier step's are not");
        assertEquals("order 20.0 → 420.0 ms/request; healthLatencyMs 450 > 200 (1 round), hostCpuRatio 0.990 > 0.900 (2 rounds)",
                second.text());
    }

    /**
     * Issue 46: the pre-test comes first, on cold targets, and the warm-up after the dynamic gate; formal step 1 is
     * compared with the warm-up's last step (warm), not with the pre-test, whose cold order (300 ms) would hide its growth.
     */
    @Test
    void theFirstFormalStepIsComparedWithTheWarmUpsLastStepNotTheColdPreTest() {
        List<WorkerResult> rs = healthyUpTo(1);
        rs.add(step("warm-up", 3, 20, 200, 200, Map.of(), 0, 20));
        Report base = ReportBuilder.build(RUN, PLAN, rs, List.of(), CLEAN_DYNAMIC, List.of(), null, 1);
        List<StepFigures> beforeFormal = Report.runOrder(base.preTest(), base.warmUp(), List.of());
        List<StepFigures> steps = new ArrayList<>(beforeFormal);
        steps.addAll(base.formal());
        double[][] ms = {{310, 300}, {30, 20}, {70, 60}}; // gateway's own time 10 ms throughout
        TraceEvidence traces = traces(steps, ms);
        ReportEvidence evidence = new ReportEvidence(List.of(), null, List.of(), traces, null);
        Bottlenecks.Bottleneck first = ReportBuilder.build(RUN, PLAN, rs, List.of(), CLEAN_DYNAMIC, List.of(), List.of(),
                evidence, null, 1).bottlenecks().getFirst();
        assertEquals("order", first.module());
        assertEquals(20, first.beforeMsPerRequest(), 1e-6, "the warm-up's last step, not the pre-test's 300 ms");
        assertEquals(60, first.afterMsPerRequest(), 1e-6);
    }

    @Test
    void theStepsTableShowsEachStepsBottleneckAndTheJsonCarriesIt() {
        Report r = report(List.of(new SaturationSignal("order", startOf("formal", 1) + 2000, "hostCpuRatio", 0.97, 0.9)));

        String html = HtmlReport.render(r);
        assertTrue(html.contains("<th class=l>bottleneck</th>"), "a column of the steps table");
        assertTrue(html.contains("<td class=l>order 20.0 → 420.0 ms/request; hostCpuRatio 0.970 &gt; 0.900 (1 round)</td>"), html);
        String json = dev.richter.common.Json.write(r);
        assertTrue(json.contains("\"bottlenecks\":[{\"stage\":\"formal\",\"stepIndex\":0,\"module\":\"gateway\""), json);
    }

    @Test
    void withoutTracesTheStepSaysWhyNoBottleneckIsNamed() {
        Report base = ReportBuilder.build(RUN, PLAN, healthyUpTo(2), List.of(), CLEAN_DYNAMIC, List.of(), null, 1);
        List<Bottlenecks.Bottleneck> none = Bottlenecks.of(base.preTest(), base.formal(),
                TraceEvidence.notRead("no trace source configured for team t1"), List.of());
        assertEquals("traces not read: no trace source configured for team t1", none.getFirst().text());
        assertEquals("", none.getFirst().module());

        List<Bottlenecks.Bottleneck> untraced = Bottlenecks.of(base.preTest(), base.formal(),
                TraceEvidence.of("test spans", List.of(), windows(base.formal()), Marker.DEFAULT), List.of());
        assertEquals("no marked traces in this step", untraced.get(1).note());
    }
}
