package dev.richter.report;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.Counters;
import dev.richter.common.model.HistogramCodec;
import dev.richter.common.model.Plan;
import dev.richter.common.model.Run;
import dev.richter.common.model.WorkerResult;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.SpanKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** Scripted runs for the report's tests: a plan, runs, worker results, checks and spans. */
final class Fixtures {
    private Fixtures() {}

    /** Epoch ms of the pre-test's first due time; each step lasts 10 s and the next starts 5 s after. */
    static final long T0 = 1_796_000_000_000L;
    static final double[] FORMAL_QPS = {20, 40, 80};

    /** 25 distinct requests to one entry, so the data deduction does not apply. */
    static List<Plan.RequestSpec> requests(int n) {
        List<Plan.RequestSpec> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new Plan.RequestSpec("POST", "/orders", Map.of("content-type", "application/json"),
                    "{\"sku\":\"A" + i + "\",\"qty\":1}", null));
        }
        return out;
    }

    static final Plan PLAN = plan(25);

    /** The three-step plan of 2 → 20/40/80 QPS, 10 s each, with {@code distinctRequests} requests to order POST /orders. */
    static Plan plan(int distinctRequests) {
        return new Plan("plan-1", "t1", "shop capacity", List.of(new Plan.ScenarioSpec("place-order", "order", 1,
                requests(distinctRequests))), new Plan.StepSpec(2, 10),
                List.of(new Plan.StepSpec(20, 10), new Plan.StepSpec(40, 10), new Plan.StepSpec(80, 10)), null,
                List.of("order", "inventory"), 50, 2000, 0);
    }

    static final Run RUN = new Run("run-1", "plan-1", "t1", "RUNNING", "", "", -1, 0, false, "", "");

    static Run aborted(String reason) {
        return new Run("run-1", "plan-1", "t1", "RUNNING", "", "", -1, 0, true, reason, "");
    }

    /** Dynamic checks of a clean pre-test whose links were compared. */
    static final List<CheckResult> CLEAN_DYNAMIC = List.of(
            new CheckResult("workers-reported", CheckResult.Outcome.PASS, "pre-test", "1 of 1 workers reported results"),
            new CheckResult("marker-propagation", CheckResult.Outcome.PASS, "marked traces", "20 marked traces: all carry the marker"),
            new CheckResult("test-vs-real-links", CheckResult.Outcome.PASS, "order POST /orders", "same 2 edges"));

    /**
     * Epoch ms of a step's first due time: the warm-up at T0 − 130 s (its default 120 s for {@link #PLAN}), pre-test at
     * {@link #T0}, formal step i at T0 + 15 s × (i + 1).
     */
    static long startOf(String stage, int index) {
        return T0 + (stage.equals("warm-up") ? -130_000L : stage.equals("pre-test") ? 0 : 15_000L * (index + 1));
    }

    /**
     * One worker's result of a 10 s step: {@code sent} requests, {@code ok} fine, the rest by kind, latencies spread
     * evenly over 80..120 % of {@code latencyMs}.
     */
    static WorkerResult step(String stage, int index, double qps, long sent, long ok, Map<String, Long> http, long timeouts,
                             double latencyMs) {
        return worker(stage, index, 0, 1, qps, sent, ok, http, timeouts, 0, latencyMs, false);
    }

    static WorkerResult worker(String stage, int index, int workerIndex, int workerCount, double qps, long sent, long ok,
                               Map<String, Long> http, long timeouts, long connect, double latencyMs, boolean aborted) {
        Histogram h = HistogramCodec.newLatencyHistogramUs();
        long answered = sent - connect;
        for (long i = 0; i < answered; i++) {
            h.recordValue((long) (latencyMs * 1000 * (0.8 + 0.4 * i / Math.max(1, answered - 1))));
        }
        long start = startOf(stage, index);
        return new WorkerResult("run-1", stage, index, workerIndex, workerCount, qps, start, start + 10_000,
                new Counters(sent, sent, ok, http, timeouts, connect, 0, 0, sent), HistogramCodec.encode(h),
                HistogramCodec.encode(h), aborted);
    }

    /** A pre-test and {@code formalSteps} healthy formal steps (10 ms, then 12, 14 ms). */
    static List<WorkerResult> healthyUpTo(int formalSteps) {
        List<WorkerResult> rs = new ArrayList<>(List.of(step("pre-test", 0, 2, 20, 20, Map.of(), 0, 5)));
        for (int i = 0; i < formalSteps; i++) {
            rs.add(step("formal", i, FORMAL_QPS[i], (long) FORMAL_QPS[i] * 10, (long) FORMAL_QPS[i] * 10, Map.of(), 0, 10 + 2 * i));
        }
        return rs;
    }

    /**
     * A marked trace rooted at {@code service operation} at {@code startMs}, lasting {@code durationMs}, with
     * {@code calls} CLIENT spans of the root to each of {@code callees} (retries are repeated calls).
     */
    static List<Span> trace(String traceId, String service, String operation, long startMs, double durationMs, int calls,
                            String... callees) {
        List<Span> out = new ArrayList<>();
        long start = startMs * 1_000_000;
        String root = traceId.substring(0, 16);
        out.add(new Span(traceId, root, "", List.of(), service, operation, SpanKind.SERVER, "",
                Map.of("richter-loadtest", "1"), start, (long) (durationMs * 1_000_000)));
        int n = 0;
        for (String callee : callees) {
            for (int c = 0; c < calls; c++) {
                String id = String.format("%016x", (long) traceId.hashCode() * 31 + n++);
                out.add(new Span(traceId, id, root, List.of(), service, "POST", SpanKind.CLIENT, callee,
                        Map.of("richter-loadtest", "1"), start + 1_000_000, 1_000_000));
            }
        }
        return out;
    }

    /** {@code tracesPerStep} marked traces per step window of {@code steps}, each with {@code callsAt(step)} calls. */
    static List<Span> traces(List<StepFigures> steps, int tracesPerStep, java.util.function.ToIntFunction<StepFigures> callsAt,
                             java.util.function.ToDoubleFunction<StepFigures> durationAt, String service, String operation,
                             String... callees) {
        List<Span> out = new ArrayList<>();
        int id = 0;
        for (StepFigures f : steps) {
            for (int i = 0; i < tracesPerStep; i++) {
                out.addAll(trace(String.format("%032x", (long) (service + f.stage() + f.stepIndex()).hashCode() * 1000 + id++),
                        service, operation, f.startedAtMs() + 100 + i, durationAt.applyAsDouble(f), callsAt.applyAsInt(f), callees));
            }
        }
        return out;
    }

    /** The step windows of {@code steps}, for {@link TraceEvidence#of}. */
    static List<TraceEvidence.StepWindow> windows(List<StepFigures> steps) {
        return steps.stream().map(f -> new TraceEvidence.StepWindow(f.stage(), f.stepIndex(), f.startedAtMs(), f.endedAtMs())).toList();
    }
}
