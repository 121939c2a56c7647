package dev.richter.common.model;

import java.util.List;
import java.util.Map;

/**
 * A load-test plan (DESIGN.md §1 step 4): scenarios, the mandatory pre-test step, the formal
 * stage's QPS steps in order, the abort policy and the modules whose damage matters.
 *
 * @param planId        plan id, {@code plan-<uuid>}
 * @param teamId        owning team
 * @param name          human name
 * @param scenarios     weighted scenarios (weights normalized over the plan)
 * @param preTest       the pre-test step (low QPS, short)
 * @param formal        the formal stage's steps, run in order
 * @param abortPolicy   when the fault decider stops the run
 * @param coreModules   modules (registered service names) whose DAMAGED verdict aborts the run
 * @param perWorkerQps  maximum rate of one load-driver worker; workers = ceil(stepQps / perWorkerQps)
 * @param requestTimeoutMs deadline of each replayed request, milliseconds
 * @param createdAtMs   epoch milliseconds of creation
 * @param warmUp        the warm-up step the plan states (a {@code durationS} of 0 turns the warm-up off; a {@code qps}
 *                      of 0 takes the first formal step's rate), or null for {@link #defaultWarmUp}; see
 *                      {@link #warmUpStep()}
 * @param preTestSettleS the pre-test's settle the plan states ({@code preTest.settleS}), seconds, or null for the
 *                      default; see {@link #preTestSettle()}
 * @param expectedLatencyMs the latency the plan expects its targets to answer within under load (their p99),
 *                      milliseconds, or null when it states none: the load driver's in-flight cap is sized from it by
 *                      Little's law ({@code dev.richter.sizing.InFlightSizing}); without it a worker gets its hard ceiling
 */
public record Plan(String planId, String teamId, String name, List<ScenarioSpec> scenarios, StepSpec preTest,
                   List<StepSpec> formal, AbortSettings abortPolicy, List<String> coreModules, double perWorkerQps,
                   int requestTimeoutMs, long createdAtMs, StepSpec warmUp, Integer preTestSettleS,
                   Integer expectedLatencyMs) {

    /**
     * Requests a warm-up sends by default: HotSpot's C2 compiles a method once its invocation and back-edge counters
     * reach {@code -XX:CompileThreshold}, 10 000 (the {@code java} tool reference, "Advanced JIT Compiler Options";
     * tiered compilation's C2 thresholds, {@code Tier4InvocationThreshold=5000} and {@code Tier4CompileThreshold=15000},
     * are of the same order). Each request runs a service's hot path about once.
     */
    public static final int WARM_UP_REQUESTS = 10_000;
    /** Shortest bound of a default warm-up, seconds: room for the ramp and three hold steps at any rate. */
    public static final int WARM_UP_MIN_S = 60;
    /** Longest bound of a default warm-up, seconds: bounds what the warm-up adds to a run's duration and cost. */
    public static final int WARM_UP_MAX_S = 300;
    /** Default warm-up rate when a plan has no formal step, requests per second. */
    public static final double WARM_UP_FALLBACK_QPS = 10;

    public Plan {
        scenarios = scenarios == null ? List.of() : List.copyOf(scenarios);
        formal = formal == null ? List.of() : List.copyOf(formal);
        coreModules = coreModules == null ? List.of() : List.copyOf(coreModules);
        abortPolicy = abortPolicy == null ? AbortSettings.DEFAULT : abortPolicy;
    }

    /** A plan that states no expected latency: its workers get their hard in-flight ceiling. */
    public Plan(String planId, String teamId, String name, List<ScenarioSpec> scenarios, StepSpec preTest,
                List<StepSpec> formal, AbortSettings abortPolicy, List<String> coreModules, double perWorkerQps,
                int requestTimeoutMs, long createdAtMs, StepSpec warmUp, Integer preTestSettleS) {
        this(planId, teamId, name, scenarios, preTest, formal, abortPolicy, coreModules, perWorkerQps,
                requestTimeoutMs, createdAtMs, warmUp, preTestSettleS, null);
    }

    /** A plan that states no pre-test settle: it gets {@link #PRE_TEST_SETTLE_S} ({@link #settleS}). */
    public Plan(String planId, String teamId, String name, List<ScenarioSpec> scenarios, StepSpec preTest,
                List<StepSpec> formal, AbortSettings abortPolicy, List<String> coreModules, double perWorkerQps,
                int requestTimeoutMs, long createdAtMs, StepSpec warmUp) {
        this(planId, teamId, name, scenarios, preTest, formal, abortPolicy, coreModules, perWorkerQps,
                requestTimeoutMs, createdAtMs, warmUp, null);
    }

    /** A plan that states no warm-up: it gets {@link #defaultWarmUp}. */
    public Plan(String planId, String teamId, String name, List<ScenarioSpec> scenarios, StepSpec preTest,
                List<StepSpec> formal, AbortSettings abortPolicy, List<String> coreModules, double perWorkerQps,
                int requestTimeoutMs, long createdAtMs) {
        this(planId, teamId, name, scenarios, preTest, formal, abortPolicy, coreModules, perWorkerQps,
                requestTimeoutMs, createdAtMs, null);
    }

    /**
     * The warm-up as the plan states it: the plan's own ({@code qps} 0 meaning the first formal step's rate), else
     * {@link #defaultWarmUp}. A {@code durationS} of 0 means no warm-up. The run sends it as the ramp
     * {@link #warmUpSteps}, once the pre-test passed the dynamic gate and before the formal stage.
     */
    public StepSpec warmUpStep() {
        if (warmUp == null) {
            return defaultWarmUp(formal);
        }
        return warmUp.qps() > 0 ? warmUp : new StepSpec(firstFormalQps(formal), warmUp.durationS());
    }

    /** Rungs of a fixed warm-up's ramp ({@link #warmUpSteps}: a warm-up too short for {@value #WARM_UP_MIN_HOLDS} hold steps). */
    public static final int WARM_UP_RUNGS = 4;
    /** Shortest rung of a fixed warm-up, seconds: a warm-up shorter than {@value #WARM_UP_RUNGS} rungs of this runs as one step. */
    public static final int WARM_UP_MIN_RUNG_S = 5;
    /** Rungs below the warm-up's rate that a steadied warm-up starts with ({@link #warmUpSteps}). */
    public static final int WARM_UP_RAMP_RUNGS = 3;
    /** Length of each ramp rung of a steadied warm-up, seconds. */
    public static final int WARM_UP_RAMP_RUNG_S = 5;
    /**
     * Hold steps a steadied warm-up needs at least: the rule that ends it compares this many consecutive hold steps
     * ({@code WarmUpRule} in libs/reports: a trend over two intervals, not the noise between two).
     */
    public static final int WARM_UP_MIN_HOLDS = 3;
    /** Answers a hold step is long enough for at its rate: its p90 then rests on 20 answers above it. */
    public static final int WARM_UP_HOLD_ANSWERS = 200;
    /** Bounds of a hold step's length, seconds. */
    public static final int WARM_UP_HOLD_MIN_S = 10;
    public static final int WARM_UP_HOLD_MAX_S = 30;

    /**
     * Length of one hold step at {@code qps}: {@code ceil(}{@value #WARM_UP_HOLD_ANSWERS}{@code / qps)} seconds, bounded
     * to [{@value #WARM_UP_HOLD_MIN_S}, {@value #WARM_UP_HOLD_MAX_S}] (20 QPS: 10 s; 2 QPS: 30 s).
     */
    public static int warmUpHoldS(double qps) {
        long s = qps <= 0 ? WARM_UP_HOLD_MAX_S : (long) Math.ceil(WARM_UP_HOLD_ANSWERS / qps);
        return (int) Math.max(WARM_UP_HOLD_MIN_S, Math.min(WARM_UP_HOLD_MAX_S, s));
    }

    /**
     * The warm-up as the run may send it. Its {@code durationS} is the longest it may take:
     * <ul>
     *   <li><b>Steadied</b> (when at least {@value #WARM_UP_MIN_HOLDS} hold steps fit): {@value #WARM_UP_RAMP_RUNGS}
     *       rungs of {@value #WARM_UP_RAMP_RUNG_S} s from the pre-test's rate up towards the warm-up's (each the same
     *       factor above the one before, rounded to 0.1 QPS; none when the warm-up is no faster than the pre-test),
     *       then hold steps at the warm-up's rate, each {@link #warmUpHoldS} long, as many as fit in the rest of
     *       {@code durationS} (its remainder is not sent). The run skips the hold steps left once three consecutive
     *       hold steps had steady latency ({@code WarmUpRule}), so a warm target ends the warm-up after the ramp and
     *       {@value #WARM_UP_MIN_HOLDS} holds, and a cold one is warmed until it steadies or the bound is reached.
     *       The demo plan's 20 QPS × 165 s: 2, 4.3, 9.3 QPS for 5 s each, then up to 15 holds of 20 QPS × 10 s.</li>
     *   <li><b>Fixed</b> (too short for that): a ramp of {@value #WARM_UP_RUNGS} steps of equal length (the last takes
     *       the remainder) from the pre-test's rate up to the warm-up's, or one step at its rate when shorter than
     *       {@value #WARM_UP_RUNGS} × {@value #WARM_UP_MIN_RUNG_S} s or no faster than the pre-test. It is sent whole.</li>
     * </ul>
     * A cold target meets a rate it can answer while it compiles, fills its pools and caches, instead of the full
     * rate at once: the demo shop's first calls take over a second, and 20 QPS at once trips its circuit breaker before
     * it has warmed. Empty when the warm-up's {@code durationS} is 0.
     */
    public List<StepSpec> warmUpSteps() {
        StepSpec w = warmUpStep();
        if (w.durationS() <= 0) {
            return List.of();
        }
        double from = warmUpFrom(w);
        List<StepSpec> steps = new java.util.ArrayList<>();
        int firstHold = warmUpFirstHold();
        if (firstHold >= 0) {
            for (int i = 0; i < firstHold; i++) {
                steps.add(new StepSpec(rungQps(from, w.qps(), i, WARM_UP_RAMP_RUNGS), WARM_UP_RAMP_RUNG_S));
            }
            int hold = warmUpHoldS(w.qps());
            for (int i = 0; i < (w.durationS() - firstHold * WARM_UP_RAMP_RUNG_S) / hold; i++) {
                steps.add(new StepSpec(w.qps(), hold));
            }
            return List.copyOf(steps);
        }
        if (w.durationS() < WARM_UP_RUNGS * WARM_UP_MIN_RUNG_S || from <= 0 || from >= w.qps()) {
            return List.of(w);
        }
        int rung = w.durationS() / WARM_UP_RUNGS;
        for (int i = 0; i < WARM_UP_RUNGS; i++) {
            boolean last = i == WARM_UP_RUNGS - 1;
            double qps = last ? w.qps() : rungQps(from, w.qps(), i, WARM_UP_RUNGS - 1);
            steps.add(new StepSpec(qps, last ? w.durationS() - rung * (WARM_UP_RUNGS - 1) : rung));
        }
        return List.copyOf(steps);
    }

    /**
     * The formal stage's slots as a run lays them out: the plan's steps, then, when it has at least two, one
     * <b>confirm slot</b> ({@link #confirmSlot()}). When a formal step F is the first that fails the capacity criteria
     * and the step G before it held, the slot after F runs the <b>confirm step</b> at {@link #confirmQps} between them,
     * and each later step takes the slot after its own; otherwise the last slot is skipped (DESIGN.md §5 "Confirm
     * step"). Estimates, leases and limits take every slot at its bound.
     */
    public List<StepSpec> formalSlots() {
        if (formal.size() < 2) {
            return formal;
        }
        List<StepSpec> slots = new java.util.ArrayList<>(formal);
        slots.add(confirmSlot());
        return List.copyOf(slots);
    }

    /**
     * The bound of the confirm step, the slot {@link #formalSlots()} adds: the highest rate of the formal steps from the
     * second on (the confirm step follows a failing step F, never the first, and runs below F's rate), for the longest
     * of their durations (it runs for F's).
     *
     * @throws IllegalStateException when the plan has fewer than two formal steps (no confirm slot)
     */
    public StepSpec confirmSlot() {
        List<StepSpec> after = confirmable();
        return new StepSpec(after.stream().mapToDouble(StepSpec::qps).max().orElseThrow(),
                after.stream().mapToInt(StepSpec::durationS).max().orElseThrow());
    }

    /**
     * Index in {@link #formal()} of the step a confirm step can cost the most as: of the steps from the second on, the
     * one that sends the most requests ({@code qps × durationS}; the last of equals). The confirm step runs below F's
     * rate for F's duration, so it sends fewer requests, needs no more workers and no longer legs than this step.
     *
     * @throws IllegalStateException when the plan has fewer than two formal steps (no confirm slot)
     */
    public int confirmSlotCostliest() {
        List<StepSpec> after = confirmable();
        int best = 0;
        for (int i = 1; i < after.size(); i++) {
            if (after.get(i).qps() * after.get(i).durationS() >= after.get(best).qps() * after.get(best).durationS()) {
                best = i;
            }
        }
        return best + 1;
    }

    private List<StepSpec> confirmable() {
        if (formal.size() < 2) {
            throw new IllegalStateException("a confirm slot needs at least two formal steps");
        }
        return formal.subList(1, formal.size());
    }

    /**
     * The confirm step's rate between the last step that held ({@code heldQps}, G) and the first that failed
     * ({@code failedQps}, F): their midpoint, rounded to 0.01 QPS. Empty unless G &lt; midpoint &lt; F.
     */
    public static java.util.OptionalDouble confirmQps(double heldQps, double failedQps) {
        double mid = Math.round((heldQps + failedQps) * 50) / 100.0;
        return heldQps < mid && mid < failedQps ? java.util.OptionalDouble.of(mid) : java.util.OptionalDouble.empty();
    }

    /**
     * Index in {@link #warmUpSteps} of the first hold step of a steadied warm-up (the steps from it on are its hold
     * steps, at the warm-up's rate): {@value #WARM_UP_RAMP_RUNGS} after a ramp, 0 without one. -1 when the warm-up is
     * fixed (too short for {@value #WARM_UP_MIN_HOLDS} hold steps: sent whole) or off.
     */
    public int warmUpFirstHold() {
        StepSpec w = warmUpStep();
        if (w.durationS() <= 0) {
            return -1;
        }
        double from = warmUpFrom(w);
        int rungs = from > 0 && from < w.qps() ? WARM_UP_RAMP_RUNGS : 0;
        int holds = (w.durationS() - rungs * WARM_UP_RAMP_RUNG_S) / warmUpHoldS(w.qps());
        return holds >= WARM_UP_MIN_HOLDS ? rungs : -1;
    }

    /** Where a warm-up's ramp starts: the pre-test's rate, at most the warm-up's. */
    private double warmUpFrom(StepSpec w) {
        return preTest == null ? w.qps() : Math.min(preTest.qps(), w.qps());
    }

    /** Rung {@code i} of a geometric ramp from {@code from} reaching {@code to} at rung {@code n}, rounded to 0.1 QPS. */
    private static double rungQps(double from, double to, int i, int n) {
        return Math.round(10 * from * Math.pow(to / from, (double) i / n)) / 10.0;
    }

    /**
     * The default warm-up: at the first formal step's rate {@code q} (else {@value #WARM_UP_FALLBACK_QPS} QPS), for at
     * most {@code 2 × ceil(}{@value #WARM_UP_REQUESTS}{@code / q)} seconds, bounded to [{@value #WARM_UP_MIN_S},
     * {@value #WARM_UP_MAX_S}] s: room for twice C2's compile threshold of requests, which a target that steadies
     * sooner never gets ({@link #warmUpSteps}). 20 QPS: 1 000 s bounded to 300 s; 100 QPS: 200 s; 400 QPS: 60 s.
     */
    public static StepSpec defaultWarmUp(List<StepSpec> formal) {
        double qps = firstFormalQps(formal);
        long seconds = 2 * (long) Math.ceil(WARM_UP_REQUESTS / qps);
        return new StepSpec(qps, (int) Math.max(WARM_UP_MIN_S, Math.min(WARM_UP_MAX_S, seconds)));
    }

    /**
     * Default settle of the pre-test, seconds: its first seconds, whose answers its success-rate check does not judge
     * ({@link #settleS}). A pre-test is the run's first marked load and meets cold targets: their first requests pay
     * one-time costs (class loading of the marked path, pools to the shadow stores opening, interpreted code), which in
     * the demo shop outlast order's 1 s inventory timeout (2 of 20 requests degraded, p99 1 673 ms). 3 s is the default
     * request deadline (2 s, the latest a first request's outcome is observed) plus the 1 s granularity of the windows
     * the check reads: whatever the first second's requests do, their outcomes stay in the settle.
     */
    public static final int PRE_TEST_SETTLE_S = 3;

    /**
     * The settle a pre-test of {@code durationS} seconds (or a replay of its shape) gets: {@code statedS} when given,
     * else {@value #PRE_TEST_SETTLE_S} s, and never more than half of {@code durationS} (rounded down), so the success
     * rate always judges at least as many seconds as it leaves out. 0 (every request judged) for a pre-test under 2 s,
     * too short to have a judged part. Only the success rate settles: the isolation and trace checks judge every
     * request of the pre-test.
     *
     * @param statedS   the plan's own settle, seconds, or null for the default
     * @param durationS the pre-test's duration, seconds
     * @return the settle, seconds, 0 ≤ result ≤ durationS / 2
     */
    public static int settleS(Integer statedS, int durationS) {
        int wanted = statedS == null ? PRE_TEST_SETTLE_S : Math.max(0, statedS);
        return Math.max(0, Math.min(wanted, durationS / 2));
    }

    /** The settle this plan's pre-test gets: {@link #settleS} of its stated settle and its duration, seconds. */
    public int preTestSettle() {
        return settleS(preTestSettleS, preTest == null ? 0 : preTest.durationS());
    }

    private static double firstFormalQps(List<StepSpec> formal) {
        return formal == null || formal.isEmpty() ? WARM_UP_FALLBACK_QPS : formal.get(0).qps();
    }

    /**
     * One scenario as the user wrote it: inline requests, or a stored traffic set by id; either may draw values from
     * data sets. Request paths, header values and text bodies are templates: {@code {{data.<dataSetId>.<column>}}}
     * takes the column of the row drawn from that bound data set for the request (all placeholders of one set in one
     * request share the row), {@code {{gen.uuid}}} a random UUID, {@code {{gen.timestampMs}}} the send time (epoch
     * milliseconds), {@code {{gen.seq}}} the worker's request counter of the scenario (from 0).
     *
     * @param name         scenario name
     * @param service      registered service name the traffic goes to (load goes only to the team's registered services)
     * @param weight       share of the plan's QPS, &gt; 0
     * @param requests     the inline traffic set (empty when {@code trafficSetId} is given)
     * @param trafficSetId a stored traffic set of the team, replayed by its endpoints' weights, or null
     * @param data         data sets the templates draw from, each with how its rows are used
     * @param slots        for a traffic set: slot name → template filling each {@code {{slot:<name>}}} the import put
     *                     where it scrubbed a value (e.g. {@code "header.authorization": "Bearer {{data.buyers.token}}"})
     * @param expect       what a good answer is for every request of the scenario that states none of its own (the
     *                     requests of a traffic set included); {@link Expectation#NONE}: any 2xx or 304
     */
    public record ScenarioSpec(String name, String service, double weight, List<RequestSpec> requests,
                               String trafficSetId, List<DataBinding> data, Map<String, String> slots,
                               Expectation expect) {
        public ScenarioSpec {
            requests = requests == null ? List.of() : List.copyOf(requests);
            data = data == null ? List.of() : List.copyOf(data);
            slots = slots == null ? Map.of() : Map.copyOf(slots);
            expect = expect == null ? Expectation.NONE : expect;
        }

        /** A scenario without a scenario-wide expectation. */
        public ScenarioSpec(String name, String service, double weight, List<RequestSpec> requests,
                            String trafficSetId, List<DataBinding> data, Map<String, String> slots) {
            this(name, service, weight, requests, trafficSetId, data, slots, Expectation.NONE);
        }

        /** What a good answer to {@code r} is: its own expectation, else the scenario's. */
        public Expectation expectFor(RequestSpec r) {
            return r.expect().isNone() ? expect : r.expect();
        }

        /** A scenario of inline requests and no data sets. */
        public ScenarioSpec(String name, String service, double weight, List<RequestSpec> requests) {
            this(name, service, weight, requests, null, List.of(), Map.of());
        }
    }

    /**
     * A data set a scenario draws values from.
     *
     * @param dataSetId a stored data set of the team (only its {@code ok} rows are used)
     * @param mode      {@code unique}: each row at most once per step, the rows partitioned over the step's workers
     *                  and legs (worker k of n in leg l of L uses the rows whose index {@code % (n × L) == l × n + k});
     *                  {@code sequential}: every worker goes through all rows in order, starting at its own index, and
     *                  starts over; {@code random}: a uniformly random row for each request. Default {@code unique}.
     */
    public record DataBinding(String dataSetId, String mode) {
        public DataBinding {
            mode = mode == null || mode.isBlank() ? "unique" : mode;
        }
    }

    /**
     * One request of an inline traffic set.
     *
     * @param method     HTTP method
     * @param path       path and query, starting with {@code /}
     * @param headers    headers, one value each
     * @param body       text body (UTF-8), or null
     * @param bodyBase64 binary body, base64, or null; wins over {@code body}
     * @param expect     what a good answer is; {@link Expectation#NONE} for the scenario's (by default any 2xx or 304)
     */
    public record RequestSpec(String method, String path, Map<String, String> headers, String body, String bodyBase64,
                              Expectation expect) {
        public RequestSpec {
            headers = headers == null ? Map.of() : Map.copyOf(headers);
            expect = expect == null ? Expectation.NONE : expect;
        }

        /** A request without an expectation of its own. */
        public RequestSpec(String method, String path, Map<String, String> headers, String body, String bodyBase64) {
            this(method, path, headers, body, bodyBase64, Expectation.NONE);
        }
    }

    /**
     * One QPS level held for a duration.
     *
     * @param qps       target rate of the whole step, requests per second (may be below 1)
     * @param durationS how long the level is held, seconds
     */
    public record StepSpec(double qps, int durationS) {}

    /**
     * When a run is aborted (DESIGN.md §4): the plan's settings, which the run's preparation turns into the fault
     * decider's list of abort conditions.
     *
     * @param abortOnDamagedCoreModule abort as soon as any core module is DAMAGED (default true)
     * @param maxErrorRatePct          abort when the load driver's error rate exceeds this percentage ... (default 50)
     * @param errorRateWindowS         ... for this many consecutive seconds (default 5)
     */
    public record AbortSettings(boolean abortOnDamagedCoreModule, double maxErrorRatePct, int errorRateWindowS) {
        /** Defaults: abort on a DAMAGED core module, or error rate over 50 % for 5 s. */
        public static final AbortSettings DEFAULT = new AbortSettings(true, 50.0, 5);
    }
}
