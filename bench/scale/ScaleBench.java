import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.api.InputValidator;
import dev.richter.api.PlanApi;
import dev.richter.common.Json;
import dev.richter.common.model.Plan;
import dev.richter.sizing.Prices;
import dev.richter.sizing.Quotas;
import dev.richter.sizing.RunEstimate;
import dev.richter.sizing.WorkerCapacity;
import dev.richter.runs.PlanDocument;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Scale benchmark (bench/scale.sh): the run estimate ({@link RunEstimate}) of three plans against {@link Quotas#AWS}
 * and {@link Prices#US_EAST_1} (arm64), each printed as a table, each figure beside its AWS limit:
 * <ol>
 *   <li>a 100 000 QPS plan (10^5 QPS × 4 h): pre-test 100 QPS × 60 s, then 8 formal steps of 12 500, 25 000, …,
 *       100 000 QPS × 30 min, one scenario, {@code perWorkerQps} from {@code --per-worker-qps} (default: the plan
 *       default, what one worker measurably holds, {@link WorkerCapacity#measured()});</li>
 *   <li>the demo plan {@code examples/shop/plan.json};</li>
 *   <li>a million QPS for an hour (10^6 QPS × 1 h): pre-test 100 QPS × 60 s, then 4 formal steps of 250 000, 500 000,
 *       750 000 and 1 000 000 QPS × 15 min, {@code perWorkerQps} as plan (a)'s.</li>
 * </ol>
 * Both plans go through the same schema and defaults as {@code POST /plans} ({@link InputValidator},
 * {@link PlanDocument#toPlan}); without a registry, every module is a typical registered service
 * ({@link RunEstimate#typicalServices}).
 *
 * <p>Last line, for the large plan: {@code max_history_events=<n> max_map_concurrency=<n> max_payload_kib=<x>
 * longest_invocation_s=<s> cost_usd=<x> usd_per_million_requests=<x> demo_usd_per_million_requests=<x>
 * max_qps_default_quotas=<n> usd_per_million=<x>}, where max_map_concurrency is the most children one Distributed Map
 * runs at once (a step's workers per leg), demo_usd_per_million_requests is plan (b)'s, max_qps_default_quotas the
 * highest rate of a step an hour long that the estimate accepts under {@link Quotas#AWS} at plan (a)'s
 * {@code perWorkerQps} ({@link #maxQpsDefaultQuotas}), and usd_per_million plan (c)'s cost of a million requests.
 * Exit status 1 when any figure of any plan is over its AWS limit (history
 * 25 000 events per execution; Distributed Map 10 000 children; 1 000 concurrent Lambda executions; 256 KiB state
 * payload; 900 s invocation) or the estimate lists a violation; 2 on bad arguments.
 *
 * <p>Usage: {@code java -cp <plan-api classpath> bench/scale/ScaleBench.java [--per-worker-qps N] [--demo-plan PATH]}
 * (without {@code --per-worker-qps} plans (a) and (c) omit the field and get the plan default)
 */
public class ScaleBench {
    static final Quotas AWS = Quotas.AWS;

    /** Runs both estimates and prints them; arguments and exit status in the class documentation. */
    public static void main(String[] args) throws Exception {
        Double perWorkerQps = null;
        Path demo = Path.of("examples/shop/plan.json");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--per-worker-qps" -> perWorkerQps = Double.parseDouble(args[++i]);
                case "--demo-plan" -> demo = Path.of(args[++i]);
                default -> {
                    System.err.println("usage: bench/scale.sh [--per-worker-qps N] [--demo-plan PATH]");
                    System.exit(2);
                }
            }
        }
        InputValidator validator = new InputValidator();
        Plan large = PlanDocument.toPlan(validator.parse("plan", ladderPlan("100k QPS capacity", 8, 12_500, 1800,
                perWorkerQps).getBytes(StandardCharsets.UTF_8)), "bench");
        Plan shop = PlanDocument.toPlan(validator.parse("plan", Files.readAllBytes(demo)), "bench");
        Plan million = PlanDocument.toPlan(validator.parse("plan", ladderPlan("a million QPS for an hour", 4, 250_000, 900,
                perWorkerQps).getBytes(StandardCharsets.UTF_8)), "bench");

        RunEstimate largeEstimate = RunEstimate.of(large, RunEstimate.typicalServices(large), AWS, Prices.US_EAST_1);
        RunEstimate shopEstimate = RunEstimate.of(shop, RunEstimate.typicalServices(shop), AWS, Prices.US_EAST_1);
        RunEstimate millionEstimate = RunEstimate.of(million, RunEstimate.typicalServices(million), AWS, Prices.US_EAST_1);

        boolean over = print("(a) 100 000 QPS x 4 h: pre-test 100 QPS x 60 s, 8 formal steps 12 500..100 000 QPS x 30 min, "
                + fmt(large.perWorkerQps()) + " QPS per worker", largeEstimate);
        over |= print("(b) demo plan " + demo + " (" + fmt(shop.perWorkerQps()) + " QPS per worker)", shopEstimate);
        over |= print("(c) 1 000 000 QPS x 1 h: pre-test 100 QPS x 60 s, 4 formal steps 250 000..1 000 000 QPS x 15 min, "
                + fmt(million.perWorkerQps()) + " QPS per worker", millionEstimate);

        System.out.println();
        System.out.printf(Locale.ROOT, "max_history_events=%d max_map_concurrency=%d max_payload_kib=%.2f "
                        + "longest_invocation_s=%s cost_usd=%.2f usd_per_million_requests=%.4f demo_usd_per_million_requests=%.4f"
                        + " max_qps_default_quotas=%s usd_per_million=%.4f%n",
                largeEstimate.maxHistoryEvents(), largeEstimate.maxMapConcurrency(),
                largeEstimate.statePayloads().largestBytes() / 1024.0, fmt(largeEstimate.longestInvocationS()),
                largeEstimate.costUsd().total(), largeEstimate.usdPerMillionRequests(), shopEstimate.usdPerMillionRequests(),
                fmt(maxQpsDefaultQuotas(large)), millionEstimate.usdPerMillionRequests());
        System.exit(over ? 1 : 0);
    }

    /**
     * The highest rate, a whole number of workers at {@code like}'s {@code perWorkerQps}, of a plan whose one formal step
     * runs an hour (so two legs overlap) that the estimate accepts under {@link Quotas#AWS}: {@code like} with that one
     * step, the warm-up off, found by bisection over the worker count (the estimate's violations are monotone in it).
     */
    static double maxQpsDefaultQuotas(Plan like) {
        long lo = 0;
        long hi = AWS.distributedMapMaxConcurrency() + 1L;
        while (hi - lo > 1) {
            long mid = (lo + hi) / 2;
            if (fits(like, mid * like.perWorkerQps())) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return lo * like.perWorkerQps();
    }

    private static boolean fits(Plan like, double qps) {
        Plan p = new Plan(like.planId(), like.teamId(), like.name(), like.scenarios(), like.preTest(),
                List.of(new Plan.StepSpec(qps, 3600)), like.abortPolicy(), like.coreModules(), like.perWorkerQps(),
                like.requestTimeoutMs(), like.createdAtMs(), new Plan.StepSpec(0, 0), like.preTestSettleS(),
                like.expectedLatencyMs());
        return RunEstimate.of(p, RunEstimate.typicalServices(p), AWS, Prices.US_EAST_1).violations().isEmpty();
    }

    /**
     * A ladder plan as a POST /plans body: pre-test 100 QPS × 60 s, {@code steps} formal steps of {@code i × qps} for
     * {@code durationS}, one scenario; {@code perWorkerQps} only when given (else the plan default applies).
     */
    static String ladderPlan(String name, int stepCount, double qps, int durationS, Double perWorkerQps) {
        List<Map<String, Object>> steps = new ArrayList<>();
        for (int i = 1; i <= stepCount; i++) {
            steps.add(Map.of("qps", qps * i, "durationS", durationS));
        }
        Map<String, Object> plan = new LinkedHashMap<>();
        plan.put("name", name);
        plan.put("scenarios", List.of(Map.of("name", "place-order", "service", "order", "weight", 1,
                "requests", List.of(Map.of("method", "POST", "path", "/orders",
                        "headers", Map.of("content-type", "application/json"), "body", "{\"sku\":\"A1\",\"qty\":1}")))));
        plan.put("preTest", Map.of("qps", 100, "durationS", 60));
        plan.put("formal", Map.of("steps", steps));
        plan.put("coreModules", List.of("order"));
        if (perWorkerQps != null) {
            plan.put("perWorkerQps", perWorkerQps);
        }
        return Json.write(plan);
    }

    /** Prints one plan's tables; true when a figure is over its AWS limit or the estimate lists a violation. */
    static boolean print(String title, RunEstimate e) {
        System.out.println();
        System.out.println("== " + title + " ==");
        System.out.println("columns: peak_wk/peak_fn = concurrent workers / Lambda executions at the step's peak (next leg "
                + "launched early); rounds = monitor rounds; leg_hist = history events of its largest leg; started_B / "
                + "leg_in_B = StartStep output / leg input, bytes; longest_s = longest worker invocation");
        double peakQps = e.steps().stream().mapToDouble(RunEstimate.StepEstimate::qps).max().orElse(0);
        if (peakQps > PlanApi.DEFAULT_MAX_TEAM_QPS) {
            System.out.println("note: POST /plans also applies the per-team cap (template parameter MaxTeamQps, default "
                    + fmt(PlanApi.DEFAULT_MAX_TEAM_QPS) + " QPS): deploy with MaxTeamQps >= " + fmt(peakQps)
                    + " to store this plan; it is Richter's safety cap, not an AWS limit");
        }
        System.out.printf(Locale.ROOT, "%-16s %9s %6s %8s %5s %8s %8s %7s %8s %10s %10s %8s%n", "step", "qps", "dur_s",
                "workers", "legs", "peak_wk", "peak_fn", "rounds", "leg_hist", "started_B", "leg_in_B", "longest_s");
        for (RunEstimate.StepEstimate s : e.steps()) {
            System.out.printf(Locale.ROOT, "%-16s %9s %6d %8d %5d %8d %8d %7d %8d %10d %10d %8s%n",
                    s.stage() + " " + (s.stepIndex() + 1), fmt(s.qps()), s.durationS(), s.workers(), s.legs(),
                    s.peakConcurrentWorkers(), s.peakConcurrentLambdas(), s.monitorRounds(),
                    s.largestLegHistoryEvents(), s.startedStepBytes(), s.legInputBytes(), fmt(s.longestInvocationS()));
        }
        System.out.println();
        System.out.printf("%-60s %18s %12s  %s%n", "figure", "value", "AWS limit", "");
        boolean over = false;
        over |= row("max history events per execution (" + e.maxHistoryExecution() + ")", e.maxHistoryEvents(),
                AWS.historyEventsPerExecution());
        over |= row("max Distributed Map children at once", e.maxMapConcurrency(), AWS.distributedMapMaxConcurrency());
        over |= row("peak concurrent Lambdas (limit: " + AWS.lambdaConcurrency() + " less " + e.lambdaReserve() + " reserve)",
                e.peakConcurrentLambdas(), AWS.lambdaConcurrency() - e.lambdaReserve());
        info("Lambda executions left at the peak", e.lambdaConcurrencyLeft());
        if (e.inFlight() != null) {
            info("in flight per worker: cap / ceiling (latency held, ms)", e.inFlight().inFlightCap() + " / "
                    + e.inFlight().maxInFlight() + " (" + e.inFlight().latencyHeldMs() + ")");
        }
        over |= row("largest state payload, KiB (" + e.statePayloads().largestState() + ")",
                e.statePayloads().largestBytes() / 1024.0, AWS.statePayloadBytes() / 1024.0);
        over |= row("longest invocation, s", e.longestInvocationS(), Quotas.LAMBDA_MAX_TIMEOUT_S);
        over |= row("stored plan item, KiB", e.statePayloads().planItemBytes() / 1024.0,
                RunEstimate.DYNAMODB_ITEM_MAX_BYTES / 1024.0);
        info("expected duration, s (start to leases released, nothing aborting)", fmt(e.expectedDurationS()));
        info("peak concurrent workers", e.peakConcurrentWorkers());
        info("executions (1 parent + legs + workers)", e.executions().total() + " (1 + " + e.executions().legs() + " + "
                + e.executions().workers() + ")");
        info("history: parent / largest leg / worker", e.historyEvents().parent() + " / "
                + e.historyEvents().largestLeg() + " / " + e.historyEvents().worker());
        info("state transitions", e.stateTransitions());
        e.lambdaInvocations().forEach((fn, n) -> info("invocations: " + fn, n));
        info("DynamoDB WRU (windows " + e.dynamoDb().windowItems() + ", results " + e.dynamoDb().resultItems() + ")",
                e.dynamoDb().writeRequestUnits());
        info("DynamoDB RRU", String.format(Locale.ROOT, "%.0f", e.dynamoDb().readRequestUnits()));
        RunEstimate.Cost c = e.costUsd();
        info("USD load-driver (" + String.format(Locale.ROOT, "%.0f", c.loadDriverGbSeconds()) + " GB-s)", usd(c.loadDriverCompute()));
        info("USD other functions (" + String.format(Locale.ROOT, "%.0f", c.otherGbSeconds()) + " GB-s)", usd(c.otherCompute()));
        info("USD Lambda requests", usd(c.lambdaRequests()));
        info("USD state transitions", usd(c.stateTransitions()));
        info("USD DynamoDB writes", usd(c.dynamoDbWrites()));
        info("USD DynamoDB reads", usd(c.dynamoDbReads()));
        info("USD total (us-east-1 list prices, " + e.prices().lambdaArchitecture() + ")", usd(c.total()));
        info("USD per million requests (" + e.steps().stream().mapToLong(st -> (long) Math.ceil(st.qps() * st.durationS() - 1e-9)).sum()
                + " requests)", usd(e.usdPerMillionRequests()));
        if (e.violations().isEmpty()) {
            System.out.println("violations: none");
        } else {
            over = true;
            System.out.println("violations:");
            e.violations().forEach(v -> System.out.println("  " + v.path() + ": " + v.reason()));
        }
        return over;
    }

    static boolean row(String name, double value, double limit) {
        boolean over = value > limit;
        System.out.printf("%-60s %18s %12s  %s%n", name, fmt(value), fmt(limit), over ? "OVER" : "ok");
        return over;
    }

    static void info(String name, Object value) {
        System.out.printf("%-60s %18s%n", name, value);
    }

    static String usd(double v) {
        return String.format(Locale.ROOT, "%.4f", v);
    }

    static String fmt(double v) {
        return v == Math.rint(v) ? String.format(Locale.ROOT, "%d", (long) v) : String.format(Locale.ROOT, "%.2f", v);
    }
}
