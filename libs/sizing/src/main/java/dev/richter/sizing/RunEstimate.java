package dev.richter.sizing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.richter.common.Json;
import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.Stages;
import dev.richter.common.model.StartedStep;
import dev.richter.common.model.StepRef;
import dev.richter.sizing.RunLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a plan will cost and whether it fits AWS, computed before it runs: executions, history events,
 * concurrency, invocations, state payloads, invocation length, state transitions, DynamoDB traffic and
 * dollars, plus every AWS limit the plan as it stands would break ({@link #violations()}). Plain Java: the
 * same {@link Quotas} and {@link StepLayout} the run uses, and the real {@link StartedStep}
 * of each step, serialized with {@link Json#write} and measured. A plan of two formal steps or more has one more
 * slot, the confirm slot ({@link Plan#formalSlots()}): it is counted as the formal step from the second on that sends
 * the most requests ({@link Plan#confirmSlotCostliest()}), which the confirm step never exceeds, and adds no violation
 * of its own (that step's are already listed).
 *
 * <p>How a run executes ({@code statemachines/load-test-run.asl.json}) and what that costs in history
 * events, counted as AWS counts them: a Task on a Lambda ARN 5 (TaskStateEntered, LambdaFunctionScheduled,
 * LambdaFunctionStarted, LambdaFunctionSucceeded, TaskStateExited); Pass, Choice, Wait and Succeed 2; Parallel
 * 4 plus its branches' states; an inline Map 4 plus 2 per iteration plus the iterations' states; a
 * Distributed Map 6 in its own execution (MapStateEntered, MapStateStarted, MapRunStarted, MapRunSucceeded,
 * MapStateSucceeded, MapStateExited) while its children are separate executions; every execution 2
 * (ExecutionStarted, ExecutionSucceeded). Hence:
 * <ul>
 *   <li>the <b>parent</b> execution: {@value #PARENT_FIXED_EVENTS} + {@value #EVENTS_PER_STEP} per step
 *       ({@link #parentHistoryEvents}: Prepare, StaticChecks, StaticGate, SelectPreTest, RunStage over the
 *       pre-test's step, AfterStage, DynamicChecks, DynamicGate, SelectWarmUp, RunStage over the warm-up's steps (none
 *       when the plan turns it off), AfterStage, SelectFormal, RunStage over the formal steps,
 *       AfterStage, Report, ReleaseLeases, Done; a step's iteration is StartStep, SkipIfAborted, the RunLegs Distributed
 *       Map and CompleteStep);</li>
 *   <li>a <b>leg</b> child execution (one per leg, item of RunLegs): WaitForLaunch, then the Leg Parallel of
 *       the Workers Distributed Map and the monitor loop (WaitForLegStart, then rounds of Probe, Decide,
 *       KeepMonitoring with WaitNextRound between them, the last one ending in MonitorDone), then AfterLeg
 *       and LegDone: {@code 20 + 14·rounds} ({@link #legHistoryEvents}). The loop runs from the leg's {@code startAt} (at
 *       once for the first leg, which is {@link Quotas#workerLeadMs()} before its first due time) to its
 *       {@code endMs}, and every round waits at least {@link Quotas#alertWaitMs()} (the decider shortens the wait
 *       from {@link Quotas#monitorWaitMs()} while anything is amiss), so a leg monitoring {@code spanMs} has at most
 *       {@code ceil(spanMs / alertWaitMs) + 1} rounds ({@link #monitorRounds}): history, probe and decider figures
 *       are the upper bound of a leg that stays on alert throughout;</li>
 *   <li>a <b>worker</b> child execution (one per worker per leg): the Worker Task,
 *       {@value #WORKER_HISTORY_EVENTS} events.</li>
 * </ul>
 * Retries are not counted (each extra attempt of a Task adds 3 events and a transition), nor failures
 * (a caught worker failure runs WorkerMissing instead).
 *
 * <p>Limits, all from {@link Quotas} except the DynamoDB item size:
 * <ul>
 *   <li>account Lambda concurrency ({@link Quotas#lambdaConcurrency()}, 1,000 by default,
 *       docs.aws.amazon.com/lambda/latest/dg/lambda-concurrency.html): a step's peak concurrent workers
 *       (twice its workers when it has more than one leg: the next leg's workers launch
 *       {@link Quotas#workerLeadMs()} before the previous leg ends) plus the probe and the fault decider, with
 *       {@link Quotas#lambdaReserve()} left free for everything else;</li>
 *   <li>what one worker holds in flight ({@link InFlightSizing#MAX_IN_FLIGHT}, from Lambda's 1,024 file descriptors):
 *       a plan stating {@code expectedLatencyMs} whose {@code perWorkerQps × latency × }{@value InFlightSizing#HEADROOM}
 *       exceeds it, at {@code $.perWorkerQps};</li>
 *   <li>Distributed Map concurrency ({@link Quotas#distributedMapMaxConcurrency()}, 10,000,
 *       docs.aws.amazon.com/step-functions/latest/dg/state-map-distributed.html): a step's workers per leg and
 *       its legs, since each Map runs all of its children at once;</li>
 *   <li>history events per execution ({@link Quotas#historyEventsPerExecution()}, 25,000,
 *       docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html);</li>
 *   <li>state payload ({@link Quotas#statePayloadBytes()}, 256 KiB, same page): the started step (StartStep's
 *       output, the biggest state of a run), a leg's input (its RunLegs ItemSelector: the started step without
 *       the step's legs, with its own leg) and the parent's state ({@code run} and {@code current});</li>
 *   <li>the shortest leg ({@link StepLayout#MIN_LEG_MS}): the load driver's timeout must leave room for the
 *       worker lead, the request timeout, the in-flight grace and the margin;</li>
 *   <li>DynamoDB's item size, 400 KB = {@value #DYNAMODB_ITEM_MAX_BYTES} bytes including attribute names
 *       (docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html), for the stored plan.</li>
 * </ul>
 *
 * <p>Figures that depend on run time are assumptions, named in {@link #assumptions()} and in the constants
 * below: item sizes, the other functions' durations (their memory is the template's 1,024 MB), reads.
 *
 * @param planId                the plan's id
 * @param quotas                the limits and timings the estimate used
 * @param prices                the prices it used
 * @param steps                 per step in run order: the pre-test, the warm-up (when on), the formal steps (empty when no step can be
 *                              laid out: see the {@code $.requestTimeoutMs} violation)
 * @param executions            Step Functions executions the run starts
 * @param maxHistoryEvents      history events of the largest execution (without retries)
 * @param maxHistoryExecution   which execution that is: {@code parent}, {@code <stage> step <n> leg <m>} (1-based,
 *                              e.g. {@code formal step 3 leg 1}) or {@code worker}
 * @param historyEvents         history events of the largest execution of each kind, and the limit
 * @param peakConcurrentWorkers the most load-driver workers running at once in any step
 * @param peakConcurrentLambdas the most Lambda executions at once: peak workers + 2 (probe, fault decider)
 * @param lambdaReserve         Lambda executions the run leaves free for everything else ({@link Quotas#lambdaReserve()}:
 *                              its checks, preparation and report, the API, the account's other functions)
 * @param lambdaConcurrencyLeft the account's concurrency less {@code peakConcurrentLambdas}: room left at the run's
 *                              peak, at least {@code lambdaReserve} when the plan fits
 * @param workerCapacity        what one worker measurably holds and where the figure comes from (the default
 *                              {@code perWorkerQps})
 * @param inFlight              each worker's in-flight cap and connections, sized from the plan's rate and expected
 *                              latency by Little's law ({@link InFlightSizing})
 * @param maxMapConcurrency     the most children any Distributed Map runs at once (a step's workers per leg, or its
 *                              legs when more)
 * @param lambdaInvocations     invocations per function ({@code run-preparation}, {@code checks},
 *                              {@code load-driver}, {@code probe}, {@code fault-decider}, {@code report}); probe
 *                              and fault-decider at their upper bound (every leg monitored to its end)
 * @param statePayloads         state payload sizes, bytes of UTF-8 JSON
 * @param longestInvocationS    the longest load-driver invocation, seconds: worker lead + leg + request timeout +
 *                              in-flight grace, when its last response is accounted; the margin after it (the final
 *                              flush and result write) keeps it under the load driver's timeout. Billing
 *                              ({@code loadDriverGbSeconds}) counts the margin too, as an upper bound
 * @param expectedDurationS     how long the run is expected to take from its start to its leases' release, seconds,
 *                              when nothing aborts it: {@link #expectedDurationMs} (the step durations plus each
 *                              step's start, worker lead and drain, plus preparation, checks and report)
 * @param stateTransitions      Step Functions state transitions over all executions (the states entered)
 * @param dynamoDb              DynamoDB items and request units
 * @param costUsd               dollars by item and in total
 * @param usdPerMillionRequests what a million of the run's load requests cost: {@code costUsd.total} over the requests
 *                              its steps send (warm-up, pre-test and formal: {@code ceil(qps × durationS)} each), per
 *                              million, USD; 0 when it sends none. The load driver's GB-seconds dominate it, so it
 *                              falls as {@code perWorkerQps} rises
 * @param assumptions           what the estimate assumes, one sentence each
 * @param violations            every limit the plan breaks, in plan order; empty when it fits
 */
public record RunEstimate(String planId, Quotas quotas, Prices prices, List<StepEstimate> steps,
                          Executions executions, long maxHistoryEvents, String maxHistoryExecution,
                          HistoryEvents historyEvents, int peakConcurrentWorkers,
                          int peakConcurrentLambdas, int lambdaReserve, int lambdaConcurrencyLeft,
                          WorkerCapacity workerCapacity, InFlightSizing inFlight, int maxMapConcurrency, Map<String, Long> lambdaInvocations,
                          StatePayloads statePayloads, double longestInvocationS, double expectedDurationS,
                          long stateTransitions,
                          DynamoDbUse dynamoDb, Cost costUsd, double usdPerMillionRequests, List<String> assumptions,
                          List<Violation> violations) {

    /** DynamoDB's largest item, bytes: 400 KB including attribute names and values (ServiceQuotas.html). */
    public static final int DYNAMODB_ITEM_MAX_BYTES = 400 * 1024;
    /** Source of {@link #DYNAMODB_ITEM_MAX_BYTES}. */
    public static final String DYNAMODB_ITEM_SOURCE =
            "docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html";

    /** History events of the parent execution that do not depend on the step count. */
    public static final int PARENT_FIXED_EVENTS = 2 /* execution */ + 5 /* Prepare */ + 5 /* StaticChecks */
            + 2 /* StaticGate */ + 2 /* SelectPreTest */ + 4 /* RunStage (pre-test) */ + 2 /* AfterStage */
            + 5 /* DynamicChecks */ + 2 /* DynamicGate */ + 2 /* SelectWarmUp */ + 4 /* RunStage (warm-up) */
            + 2 /* AfterStage */ + 2 /* SelectFormal */ + 4 /* RunStage (formal) */
            + 2 /* AfterStage */ + 5 /* Report */ + 5 /* ReleaseLeases */ + 2 /* Done */;
    /**
     * History events of one step in the parent: the inline Map's iteration (2), StartStep (5), SkipIfAborted (2), RunLegs
     * (6), CompleteStep (5), StepEnded (2).
     */
    public static final int EVENTS_PER_STEP = 2 + 5 + 2 + 6 + 5 + 2;
    /** History events of a worker child execution: the execution (2) and its Worker Task (5). */
    public static final int WORKER_HISTORY_EVENTS = 2 + 5;

    /** Assumed size of one per-second load window item (counters and a compressed HdrHistogram of that second), bytes: ~1–2 KB. */
    public static final int WINDOW_ITEM_BYTES = 1_536;
    /** Assumed size of one worker result item (counters and two compressed histograms), bytes. */
    public static final int RESULT_ITEM_BYTES = 3_072;
    /** Assumed size of one verdict or decider-state item, bytes (at most 1 KB: one WRU). */
    public static final int VERDICT_ITEM_BYTES = 1_024;
    /** Abort-flag reads per worker per second (the load driver polls every 500 ms; one strongly consistent GetItem each). */
    public static final int ABORT_POLLS_PER_S = 2;
    /** Memory of every function but the load driver, MB (template Globals {@code MemorySize}). */
    public static final int OTHER_FUNCTION_MEMORY_MB = 1_024;
    /** Assumed duration of one probe round, ms (each target's deadline is {@link RunLayout#PROBE_TIMEOUT_MS}, probed concurrently). */
    public static final long PROBE_INVOCATION_MS = 1_000;
    /** Assumed duration of one fault-decider round, ms. */
    public static final long DECIDER_INVOCATION_MS = 500;
    /** Assumed duration of a run-preparation call (prepare, start-step), ms. */
    public static final long RUN_PREPARATION_INVOCATION_MS = 1_000;
    /** Assumed duration of a checks call (static, dynamic), ms. */
    public static final long CHECKS_INVOCATION_MS = 5_000;
    /** Assumed duration of the report call, ms. */
    public static final long REPORT_INVOCATION_MS = 10_000;
    /** Assumed duration of a step's CompleteStep call (the report function's Step Completed), ms. */
    public static final long STEP_COMPLETION_INVOCATION_MS = 1_000;
    /** Seconds of load windows the fault decider reads per round beyond the abort policy's error-rate window (its flush lag). */
    public static final int DECIDER_FLUSH_LAG_S = 2;
    /** The fault decider's default passive window, seconds: it reads at least this many seconds of windows per round. */
    public static final int DECIDER_PASSIVE_WINDOW_S = 2;

    /** A run id of a real run's length, for measuring payloads. */
    static final String SAMPLE_RUN_ID = "run-20260101T000000-0a1b2c3d";
    /** A "now" with non-zero milliseconds, so timestamps have a real run's length (2026-01-01T00:00:00.123Z). */
    static final long SAMPLE_NOW_MS = 1_767_225_600_123L;
    /** Above this many workers the started step is built with this many and its index list extended by arithmetic. */
    static final int MAX_BUILT_WORKERS = 20_000;
    /** The fields of a started step that RunLegs' ItemSelector copies into every leg's input (besides {@code leg}). */
    static final List<String> LEG_INPUT_FIELDS = List.of("runId", "teamId", "stage", "stepIndex", "workerIndexes",
            "probeTargets", "coreModules", "abortPolicy");

    /** Copies the lists and the map (unmodifiable; the invocation map keeps its order). */
    public RunEstimate {
        steps = List.copyOf(steps);
        lambdaInvocations = Collections.unmodifiableMap(new LinkedHashMap<>(lambdaInvocations));
        assumptions = List.copyOf(assumptions);
        violations = List.copyOf(violations);
    }

    /**
     * One step as it will run.
     *
     * @param stage                   {@code warm-up}, {@code pre-test} or {@code formal}
     * @param stepIndex               index within the stage
     * @param path                    the step in the plan, e.g. {@code $.formal.steps[2]}
     * @param qps                     target rate, requests per second
     * @param durationS               duration, seconds
     * @param workers                 load-driver workers per leg
     * @param legs                    legs (child executions of RunLegs)
     * @param legMs                   length of every leg but the last, milliseconds
     * @param peakConcurrentWorkers   workers running at once: {@code workers}, twice that with more than one leg
     * @param peakConcurrentLambdas   Lambda executions at once: peak workers + probe + fault decider
     * @param monitorRounds           probe rounds over all legs (upper bound)
     * @param largestLegHistoryEvents history events of the step's largest leg execution
     * @param startedStepBytes        StartStep's output (the started step), bytes of JSON
     * @param legInputBytes           the largest leg's input, bytes of JSON
     * @param longestInvocationS      its longest load-driver invocation, seconds
     * @param workerInvocations       load-driver invocations: {@code workers × legs}
     * @param loadDriverGbSeconds     load-driver GB-seconds, upper bound (every invocation to its lead + leg + request
     *                                timeout + grace + margin)
     */
    public record StepEstimate(String stage, int stepIndex, String path, double qps, int durationS, int workers,
                               int legs, long legMs, long peakConcurrentWorkers, long peakConcurrentLambdas,
                               long monitorRounds, long largestLegHistoryEvents, long startedStepBytes,
                               long legInputBytes, double longestInvocationS, long workerInvocations,
                               double loadDriverGbSeconds) {}

    /**
     * Step Functions executions of the run.
     *
     * @param total   {@code parent + legs + workers}
     * @param parent  1
     * @param legs    leg child executions, over all steps
     * @param workers worker child executions, over all steps ({@code Σ legs × workers})
     */
    public record Executions(long total, long parent, long legs, long workers) {}

    /**
     * History events per execution, without retries.
     *
     * @param parent     the parent execution's events
     * @param largestLeg the largest leg execution's events
     * @param worker     a worker execution's events
     * @param limit      {@link Quotas#historyEventsPerExecution()}
     */
    public record HistoryEvents(long parent, long largestLeg, long worker, long limit) {}

    /**
     * State payload sizes, bytes of UTF-8 JSON as the functions write them ({@link Json#write}).
     *
     * @param largestBytes     the largest of the state payloads below
     * @param largestState     which one: e.g. {@code StartStep output of formal step 8}
     * @param startedStepBytes the largest started step (StartStep's output, the RunLegs input)
     * @param legInputBytes    the largest leg execution's input (ItemSelector of RunLegs)
     * @param parentStateBytes the parent's state at RunStage ({@code {runId, planId, teamId, run, current}}; the check
     *                         results it also carries are not counted)
     * @param planItemBytes    the stored plan's DynamoDB item (attribute names and values), not a state payload
     * @param limitBytes       {@link Quotas#statePayloadBytes()}
     */
    public record StatePayloads(long largestBytes, String largestState, long startedStepBytes, long legInputBytes,
                                long parentStateBytes, long planItemBytes, long limitBytes) {}

    /**
     * DynamoDB traffic of the run (on-demand request units).
     *
     * @param windowItems       per-second load windows: {@code Σ workers × durationS}
     * @param resultItems       worker results: one per load-driver invocation
     * @param verdictItems      fault-decider writes: per round, a state and a verdict item per module (the plan's
     *                          modules and the load driver's own {@code load})
     * @param stepItems         stored started steps: one per step
     * @param writeRequestUnits write request units: each item's size rounded up to 1 KB
     * @param readRequestUnits  read request units: abort-flag polls, the fault decider's window and state reads, each
     *                          worker's step, plan and registry reads
     */
    public record DynamoDbUse(long windowItems, long resultItems, long verdictItems, long stepItems,
                              long writeRequestUnits, double readRequestUnits) {}

    /**
     * Cost of one run in USD, by item, at {@link #prices()}.
     *
     * @param loadDriverGbSeconds  load-driver GB-seconds (at {@link Quotas#loadDriverMemoryMb()})
     * @param otherGbSeconds       GB-seconds of the other functions (at {@value #OTHER_FUNCTION_MEMORY_MB} MB)
     * @param loadDriverCompute    load-driver duration
     * @param otherCompute         the other functions' duration
     * @param lambdaRequests       Lambda requests (all invocations)
     * @param stateTransitions     Step Functions state transitions
     * @param dynamoDbWrites       DynamoDB write request units
     * @param dynamoDbReads        DynamoDB read request units
     * @param total                the sum of the items
     */
    public record Cost(double loadDriverGbSeconds, double otherGbSeconds, double loadDriverCompute,
                       double otherCompute, double lambdaRequests, double stateTransitions, double dynamoDbWrites,
                       double dynamoDbReads, double total) {}

    /**
     * A limit the plan breaks.
     *
     * @param path   where in the plan to change it, a JSON path (e.g. {@code $.formal.steps[3].qps},
     *               {@code $.requestTimeoutMs}, {@code $} for the whole plan)
     * @param limit  the limit
     * @param reason one sentence with the numbers, naming the limit
     */
    public record Violation(String path, Limit limit, String reason) {}

    /**
     * A limit by name, value and where it comes from.
     *
     * @param name   e.g. {@code lambdaConcurrency} (a {@link Quotas} field) or {@code dynamoDbItemBytes}
     * @param value  its value in the unit its name says (count, bytes, milliseconds)
     * @param source the AWS documentation page (and environment variable) it comes from
     */
    public record Limit(String name, long value, String source) {}

    // ------------------------------------------------------------------ the estimate

    /**
     * Estimates a plan's run as it stands.
     *
     * @param plan     the plan (its {@code perWorkerQps} and {@code requestTimeoutMs} already defaulted, as stored)
     * @param services the team's registered services; only the plan's modules are probed. Without a registry, pass
     *                 {@link #typicalServices(Plan)}
     * @param quotas   the limits and timings (e.g. {@link Quotas#fromEnv()} or {@link Quotas#AWS})
     * @param prices   the prices (e.g. {@link Prices#US_EAST_1})
     * @return the estimate; a plan that breaks a limit is not an error but has {@link #violations()}
     */
    public static RunEstimate of(Plan plan, List<RegisteredService> services, Quotas quotas, Prices prices) {
        List<Violation> violations = new ArrayList<>();
        long planItemBytes = planItemBytes(plan);
        if (planItemBytes > DYNAMODB_ITEM_MAX_BYTES) {
            violations.add(new Violation("$", new Limit("dynamoDbItemBytes", DYNAMODB_ITEM_MAX_BYTES, DYNAMODB_ITEM_SOURCE),
                    "the stored plan would be a " + n(planItemBytes) + "-byte DynamoDB item, over DynamoDB's item size limit of "
                            + n(DYNAMODB_ITEM_MAX_BYTES) + " bytes (400 KB); ship less inline traffic"));
        }
        if (!(plan.perWorkerQps() > 0) || Double.isInfinite(plan.perWorkerQps())) {
            violations.add(new Violation("$.perWorkerQps", new Limit("perWorkerQps", 0, "DESIGN.md §5"),
                    "perWorkerQps must be a finite rate above 0, was " + plan.perWorkerQps()));
            return empty(plan, quotas, prices, planItemBytes, violations);
        }
        InFlightSizing inFlight = InFlightSizing.of(plan.perWorkerQps(),
                plan.expectedLatencyMs() == null || plan.expectedLatencyMs() < 1 ? null : plan.expectedLatencyMs());
        if (!inFlight.fits()) {
            violations.add(new Violation("$.perWorkerQps", new Limit("maxInFlight", InFlightSizing.MAX_IN_FLIGHT,
                    InFlightSizing.CEILING_SOURCE),
                    "at " + fmt(plan.perWorkerQps()) + " QPS per worker against targets answering in "
                            + n(plan.expectedLatencyMs()) + " ms (expectedLatencyMs) a worker needs "
                            + n(inFlight.inFlightNeeded()) + " requests in flight (Little's law: " + fmt(plan.perWorkerQps())
                            + " QPS x " + fmt(plan.expectedLatencyMs() / 1000.0) + " s x " + fmt(InFlightSizing.HEADROOM)
                            + " headroom), over the " + n(InFlightSizing.MAX_IN_FLIGHT) + " one worker holds; lower "
                            + "perWorkerQps to at most " + fmt(InFlightSizing.perWorkerQpsAt(plan.expectedLatencyMs()))
                            + " (a plan that omits it gets that rate)"));
        }
        long legMs = StepLayout.legMs(plan.requestTimeoutMs(), quotas);
        if (legMs < StepLayout.MIN_LEG_MS) {
            violations.add(new Violation("$.requestTimeoutMs", minLegLimit(),
                    "the request timeout of " + n(plan.requestTimeoutMs()) + " ms does not fit one load-driver invocation: "
                            + "its " + n(quotas.loadDriverTimeoutS()) + " s (template parameter LoadDriverTimeoutSeconds) "
                            + "less the " + n(quotas.workerLeadMs()) + " ms worker lead (WorkerLeadMs), this timeout, "
                            + n(StepLayout.IN_FLIGHT_GRACE_MS) + " ms in-flight grace and the " + n(quotas.legMarginMs())
                            + " ms margin (LegMarginMs) must leave a leg of at least " + n(StepLayout.MIN_LEG_MS)
                            + " ms; lower requestTimeoutMs to at most "
                            + n(plan.requestTimeoutMs() + legMs - StepLayout.MIN_LEG_MS) + " ms or raise the timeout"));
            return empty(plan, quotas, prices, planItemBytes, violations);
        }

        List<StepEstimate> steps = new ArrayList<>();
        long legExecutions = 0;
        long workerExecutions = 0;
        long transitions = parentTransitions(warmUpSteps(plan), plan.formalSlots().size());
        long monitorRoundsTotal = 0;
        long peakWorkers = 0;
        long peakLambdas = 0;
        long maxMap = 0;
        double longestS = 0;
        long largestLegEvents = 0;
        String largestLegName = "";
        long largestStarted = 0;
        String largestStartedName = "";
        long largestLegInput = 0;
        String largestLegInputName = "";
        long windowItems = 0;
        long resultItems = 0;
        long verdictItems = 0;
        double readUnits = 0;
        double loadDriverGbS = 0;
        int modules = modules(plan).size() + 1; // the plan's modules and the passive "load" module
        int lookBackS = deciderLookBackS(plan.abortPolicy());
        long planReadUnits = ceilDiv(planItemBytes, 4096) + 2; // plan (strong), step plan, registry

        for (StepInPlan ref : stepsInPlan(plan)) {
            StepLayout layout;
            try {
                layout = StepLayout.of(ref.spec().qps(), ref.spec().durationS(), plan.perWorkerQps(),
                        plan.requestTimeoutMs(), quotas);
            } catch (IllegalArgumentException e) {
                if (!ref.stage().equals(Stages.CONFIRM)) { // the same step's own violation says it
                    violations.add(new Violation(ref.path() + ".qps", new Limit("stepLayout", 0, "StepLayout.of"),
                            ref.name() + " cannot be laid out: " + e.getMessage()));
                }
                continue;
            }
            int workers = layout.workers();
            int legs = layout.legs().size();
            long stepPeakWorkers = (long) workers * (legs > 1 ? 2 : 1);
            long stepPeakLambdas = stepPeakWorkers + 2;
            long stepRounds = 0;
            long stepLegEvents = 0;
            int stepLargestLeg = 0;
            long stepLongestMs = 0;
            long invocationMsSum = 0;
            for (StepLayout.Leg leg : layout.legs()) {
                long lenMs = leg.endOffsetMs() - leg.startOffsetMs();
                long spanMs = lenMs + (leg.legIndex() == 0 ? quotas.workerLeadMs() : 0);
                long rounds = monitorRounds(spanMs, quotas.alertWaitMs());
                long events = legHistoryEvents(rounds);
                if (events > stepLegEvents) {
                    stepLegEvents = events;
                    stepLargestLeg = leg.legIndex();
                }
                stepRounds += rounds;
                transitions += legTransitions(rounds) + workers;
                long invocationMs = quotas.workerLeadMs() + lenMs + StepLayout.drainMs(plan.requestTimeoutMs(), quotas);
                // the margin is kept free for the last flush: the worker's work ends before it
                stepLongestMs = Math.max(stepLongestMs, invocationMs - quotas.legMarginMs());
                invocationMsSum += invocationMs;
            }
            long workerInvocations = (long) workers * legs;
            double stepGbS = workers * (invocationMsSum / 1000.0) * (quotas.loadDriverMemoryMb() / 1024.0);
            Payload payload = payload(ref, plan, services, quotas, workers);

            steps.add(new StepEstimate(ref.stage(), ref.index(), ref.path(), ref.spec().qps(), ref.spec().durationS(),
                    workers, legs, layout.legMs(), stepPeakWorkers, stepPeakLambdas, stepRounds, stepLegEvents,
                    payload.startedStepBytes(), payload.legInputBytes(), stepLongestMs / 1000.0, workerInvocations,
                    stepGbS));

            legExecutions += legs;
            workerExecutions += workerInvocations;
            monitorRoundsTotal += stepRounds;
            peakWorkers = Math.max(peakWorkers, stepPeakWorkers);
            peakLambdas = Math.max(peakLambdas, stepPeakLambdas);
            maxMap = Math.max(maxMap, Math.max(workers, legs));
            longestS = Math.max(longestS, stepLongestMs / 1000.0);
            if (stepLegEvents > largestLegEvents) {
                largestLegEvents = stepLegEvents;
                largestLegName = ref.name() + " leg " + (stepLargestLeg + 1);
            }
            if (payload.startedStepBytes() > largestStarted) {
                largestStarted = payload.startedStepBytes();
                largestStartedName = "StartStep output of " + ref.name();
            }
            if (payload.legInputBytes() > largestLegInput) {
                largestLegInput = payload.legInputBytes();
                largestLegInputName = "leg input of " + ref.name();
            }
            windowItems += (long) workers * ref.spec().durationS();
            resultItems += workerInvocations;
            verdictItems += stepRounds * 2L * modules;
            loadDriverGbS += stepGbS;
            readUnits += ABORT_POLLS_PER_S * workers * Math.ceil(invocationMsSum / 1000.0);
            readUnits += workerInvocations * planReadUnits;
            readUnits += stepRounds * (0.5 * ceilDiv((long) workers * lookBackS * WINDOW_ITEM_BYTES, 4096)
                    + ceilDiv((long) modules * VERDICT_ITEM_BYTES, 4096) + 2);

            if (!ref.stage().equals(Stages.CONFIRM)) { // the confirm slot is laid out as a formal step already checked
                stepViolations(ref, workers, legs, layout.legMs(), stepPeakWorkers, stepPeakLambdas, stepLegEvents,
                        stepLargestLeg, payload, plan, quotas, violations);
            }
        }

        long parentEvents = parentHistoryEvents(warmUpSteps(plan), plan.formalSlots().size());
        long parentStateBytes = parentStateBytes(plan);
        if (parentEvents > quotas.historyEventsPerExecution()) {
            violations.add(new Violation("$.formal.steps", historyLimit(quotas),
                    "the run's parent execution would record " + n(parentEvents) + " history events ("
                            + PARENT_FIXED_EVENTS + " + " + EVENTS_PER_STEP + " per step, " + plan.formal().size()
                            + " formal steps, the pre-test and " + warmUpSteps(plan) + " warm-up step), over the limit of " + n(quotas.historyEventsPerExecution())
                            + " history events per execution"));
        }
        if (parentStateBytes > quotas.statePayloadBytes()) {
            violations.add(new Violation("$.formal.steps", payloadLimit(quotas),
                    "the run's parent state would be " + n(parentStateBytes) + " bytes with " + plan.formal().size()
                            + " formal steps, over the state payload limit of " + n(quotas.statePayloadBytes()) + " bytes"));
        }

        HistoryEvents history = new HistoryEvents(parentEvents, largestLegEvents, WORKER_HISTORY_EVENTS,
                quotas.historyEventsPerExecution());
        long maxHistory = parentEvents;
        String maxHistoryExecution = "parent";
        if (largestLegEvents > maxHistory) {
            maxHistory = largestLegEvents;
            maxHistoryExecution = largestLegName;
        }
        if (WORKER_HISTORY_EVENTS > maxHistory) {
            maxHistory = WORKER_HISTORY_EVENTS;
            maxHistoryExecution = "worker";
        }
        StatePayloads payloads = payloads(largestStarted, largestStartedName, largestLegInput, largestLegInputName,
                parentStateBytes, planItemBytes, quotas);

        int stepCount = steps.size();
        Map<String, Long> invocations = new LinkedHashMap<>();
        invocations.put("run-preparation", 1L + stepCount);
        invocations.put("checks", 2L);
        invocations.put("load-driver", workerExecutions);
        invocations.put("probe", monitorRoundsTotal);
        invocations.put("fault-decider", monitorRoundsTotal);
        invocations.put("report", 1L + stepCount);   // the report, and each step's CompleteStep
        invocations.put("release-leases", 1L);
        long requests = invocations.values().stream().mapToLong(Long::longValue).sum();

        long writeUnits = windowItems * ceilDiv(WINDOW_ITEM_BYTES, 1024) + resultItems * ceilDiv(RESULT_ITEM_BYTES, 1024)
                + verdictItems * ceilDiv(VERDICT_ITEM_BYTES, 1024) + 2L * stepCount;   // each step's plan and its Step Completed claim
        DynamoDbUse dynamo = new DynamoDbUse(windowItems, resultItems, verdictItems, stepCount, writeUnits, readUnits);

        double otherGbS = (OTHER_FUNCTION_MEMORY_MB / 1024.0) / 1000.0 * (monitorRoundsTotal * PROBE_INVOCATION_MS
                + monitorRoundsTotal * DECIDER_INVOCATION_MS + (1L + stepCount) * RUN_PREPARATION_INVOCATION_MS
                + 2 * CHECKS_INVOCATION_MS + REPORT_INVOCATION_MS + stepCount * STEP_COMPLETION_INVOCATION_MS);
        Cost cost = cost(loadDriverGbS, otherGbS, requests, transitions, writeUnits, readUnits, prices);

        return new RunEstimate(plan.planId(), quotas, prices, steps,
                new Executions(1 + legExecutions + workerExecutions, 1, legExecutions, workerExecutions), maxHistory,
                maxHistoryExecution, history,
                (int) Math.min(Integer.MAX_VALUE, peakWorkers), (int) Math.min(Integer.MAX_VALUE, peakLambdas),
                quotas.lambdaReserve(), (int) Math.max(Integer.MIN_VALUE, quotas.lambdaConcurrency() - peakLambdas),
                WorkerCapacity.measured(), inFlight,
                (int) Math.min(Integer.MAX_VALUE, maxMap), invocations, payloads, longestS,
                expectedDurationMs(plan, quotas) / 1000.0, transitions, dynamo, cost, usdPerMillion(cost, steps),
                assumptions(lookBackS, plan, quotas, prices, inFlight, cost, requests, transitions, writeUnits, readUnits,
                        loadDriverRequests(steps)), violations);
    }

    /**
     * One registered service per module of the plan (its scenarios' services and its core modules), with a
     * typical base URL ({@code https://<name>.internal.example.com:8443}), an actuator health path and a Prometheus
     * path: for estimating without a registry (the scale benchmark). {@code POST /plans} requires every module to
     * be registered, so a real registry has at least these.
     */
    public static List<RegisteredService> typicalServices(Plan plan) {
        return modules(plan).stream().map(m -> new RegisteredService(plan.teamId(), m,
                "https://" + m + ".internal.example.com:8443", "/actuator/health", "/actuator/prometheus", List.of()))
                .toList();
    }

    // ------------------------------------------------------------------ counting rules (public for tests and docs)

    /**
     * History events of the parent execution for a plan of {@code warmUpSteps} warm-up steps (the rungs of its ramp),
     * {@code formalSteps} formal steps and its one pre-test step.
     */
    public static long parentHistoryEvents(int warmUpSteps, int formalSteps) {
        return PARENT_FIXED_EVENTS + (long) EVENTS_PER_STEP * (warmUpSteps + 1 + formalSteps);
    }

    /** The plan's warm-up steps: the rungs of its ramp, 0 when its warm-up's {@code durationS} is 0 ({@link Plan#warmUpSteps()}). */
    static int warmUpSteps(Plan plan) {
        return plan.warmUpSteps().size();
    }

    /**
     * History events of one leg execution with {@code rounds} monitor rounds: execution 2, WaitForLaunch 2, Leg
     * Parallel 4, Workers Distributed Map 6, WaitForLegStart 2, per round Probe 5 + Decide 5 + KeepMonitoring 2,
     * WaitNextRound 2 between rounds, MonitorDone 2, AfterLeg 2, LegDone 2: {@code 20 + 14·rounds}.
     */
    public static long legHistoryEvents(long rounds) {
        return 2 + 2 + 4 + 6 + 2 + rounds * (5 + 5 + 2) + Math.max(0, rounds - 1) * 2 + 2 + 2 + 2;
    }

    /**
     * The most monitor rounds a leg can run while monitoring {@code spanMs} milliseconds: every round but the last
     * decides to go on only while the leg has not ended, and waits {@code monitorWaitMs} (at least 1 ms) before the
     * next one, so {@code ceil(spanMs / monitorWaitMs) + 1}.
     */
    public static long monitorRounds(long spanMs, long monitorWaitMs) {
        return ceilDiv(Math.max(0, spanMs), Math.max(1, monitorWaitMs)) + 1;
    }

    /**
     * State transitions of the parent execution: 17 states (the warm-up's SelectWarmUp, RunStage and AfterStage
     * included) plus StartStep, SkipIfAborted, RunLegs, CompleteStep and StepEnded per step (pre-test, warm-up and
     * formal).
     */
    public static long parentTransitions(int warmUpSteps, int formalSteps) {
        return 17 + 5L * (warmUpSteps + 1 + formalSteps);
    }

    /**
     * State transitions of one leg execution: WaitForLaunch, Leg, Workers, WaitForLegStart, MonitorDone, AfterLeg,
     * LegDone, per round Probe, Decide and KeepMonitoring, and WaitNextRound between rounds: {@code 6 + 4·rounds}.
     * (Each worker execution adds 1, its Worker Task.)
     */
    public static long legTransitions(long rounds) {
        return 7 + 3 * rounds + Math.max(0, rounds - 1);
    }

    /**
     * The plan's DynamoDB item size as {@code Repositories.putPlan} stores it: attribute names plus values
     * ({@code planId}, {@code teamId}, {@code createdAtMs} as a number of ⌈digits / 2⌉ + 1 bytes, {@code doc} the
     * plan's JSON), UTF-8 bytes; the sizing rule of
     * docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html.
     */
    public static long planItemBytes(Plan plan) {
        String digits = Long.toString(Math.abs(plan.createdAtMs())).replaceAll("0+$", "");
        return "planId".length() + utf8(plan.planId()) + "teamId".length() + utf8(plan.teamId())
                + "createdAtMs".length() + (digits.length() + 1) / 2 + 1 + "doc".length() + utf8(Json.write(plan));
    }

    // ------------------------------------------------------------------ internals

    /** One step of the plan, with where it is: its stage and index, its JSON path and the name messages use. */
    private record StepInPlan(String stage, int index, String path, String name, Plan.StepSpec spec) {}

    private record Payload(long startedStepBytes, long legInputBytes) {}

    private static List<StepInPlan> stepsInPlan(Plan plan) {
        List<StepInPlan> refs = new ArrayList<>();
        refs.add(new StepInPlan(Stages.PRE_TEST, 0, "$.preTest", "pre-test step 1", plan.preTest()));
        List<Plan.StepSpec> rungs = plan.warmUpSteps();
        for (int i = 0; i < rungs.size(); i++) {
            refs.add(new StepInPlan(Stages.WARM_UP, i, "$.warmUp", "warm-up step " + (i + 1), rungs.get(i)));
        }
        for (int i = 0; i < plan.formal().size(); i++) {
            refs.add(new StepInPlan(Stages.FORMAL, i, "$.formal.steps[" + i + "]", "formal step " + (i + 1),
                    plan.formal().get(i)));
        }
        if (plan.formalSlots().size() > plan.formal().size()) {
            int k = plan.confirmSlotCostliest();
            refs.add(new StepInPlan(Stages.CONFIRM, 0, "$.formal.steps[" + k + "]", "the confirm slot (at most as formal step "
                    + (k + 1) + ")", plan.formal().get(k)));
        }
        return refs;
    }

    private static Set<String> modules(Plan plan) {
        Set<String> modules = new LinkedHashSet<>();
        plan.scenarios().forEach(s -> modules.add(s.service()));
        modules.addAll(plan.coreModules());
        return modules;
    }

    /** The seconds of windows the fault decider reads per round: max(passive window, error-rate window + flush lag). */
    private static int deciderLookBackS(Plan.AbortSettings policy) {
        int errorWindow = policy.maxErrorRatePct() < 100 ? Math.max(1, policy.errorRateWindowS()) : 0;
        return Math.max(DECIDER_PASSIVE_WINDOW_S, errorWindow + DECIDER_FLUSH_LAG_S);
    }

    /** The started step and the largest leg input of a step, measured on the real started step. */
    private static Payload payload(StepInPlan ref, Plan plan, List<RegisteredService> services, Quotas quotas, int workers) {
        Plan built = plan;
        if (workers > MAX_BUILT_WORKERS) {
            // far over any Distributed Map: build MAX_BUILT_WORKERS and extend the index list by arithmetic
            built = new Plan(plan.planId(), plan.teamId(), plan.name(), plan.scenarios(), plan.preTest(), plan.formal(),
                    plan.abortPolicy(), plan.coreModules(), ref.spec().qps() / MAX_BUILT_WORKERS,
                    plan.requestTimeoutMs(), plan.createdAtMs(), plan.warmUp(), plan.preTestSettleS(),
                    plan.expectedLatencyMs());
        }
        StartedStep started = RunLayout.start(new StepRef(SAMPLE_RUN_ID,
                        plan.teamId(), ref.stage(), ref.index(), ref.spec().qps(), ref.spec().durationS()), built,
                services, SAMPLE_NOW_MS, false, quotas);
        int builtWorkers = started.workerCount();
        long indexCorrection = indexListChars(workers) - indexListChars(builtWorkers);
        long countCorrection = Long.toString(workers).length() - Long.toString(builtWorkers).length();
        ObjectNode tree = Json.MAPPER.valueToTree(started);
        long startedBytes = utf8(Json.write(tree)) + indexCorrection + countCorrection;
        ObjectNode legInput = Json.MAPPER.createObjectNode();
        for (String field : LEG_INPUT_FIELDS) {
            if (tree.has(field)) {
                legInput.set(field, tree.get(field));
            }
        }
        JsonNode largestLeg = null;
        long largestLegBytes = -1;
        for (JsonNode leg : tree.path("legs")) {
            long b = utf8(Json.write(leg));
            if (b > largestLegBytes) {
                largestLegBytes = b;
                largestLeg = leg;
            }
        }
        if (largestLeg != null) {
            legInput.set("leg", largestLeg);
        }
        long legInputBytes = utf8(Json.write(legInput)) + indexCorrection;
        return new Payload(startedBytes, legInputBytes);
    }

    /** Characters of the JSON array {@code [0,1,...,n-1]}. */
    static long indexListChars(long n) {
        if (n <= 0) {
            return 2;
        }
        long digits = 0;
        long from = 0;
        long width = 1;
        for (long next = 10; from < n; next = next > Long.MAX_VALUE / 10 ? Long.MAX_VALUE : next * 10, width++) {
            long to = Math.min(n, next);
            digits += (to - from) * width;
            from = to;
        }
        return 2 + (n - 1) + digits;
    }

    /** The parent's state at RunStage: the execution input, {@code run} (the stages) and {@code current} (the formal stage). */
    private static long parentStateBytes(Plan plan) {
        RegisteredService any = new RegisteredService(plan.teamId(), "any", "http://localhost", "/health", null, List.of());
        Stages stages = RunLayout.prepare(SAMPLE_RUN_ID, plan, name -> Optional.of(any));
        Map<String, Object> state = new LinkedHashMap<>();
        state.put("runId", SAMPLE_RUN_ID);
        state.put("planId", plan.planId());
        state.put("teamId", plan.teamId());
        state.put("run", stages);
        state.put("current", Map.of("stage", Stages.FORMAL, "steps", stages.formal()));
        return utf8(Json.write(state));
    }

    private static void stepViolations(StepInPlan ref, int workers, int legs, long legMs, long peakWorkers,
                                       long peakLambdas, long legEvents, int largestLeg, Payload payload, Plan plan,
                                       Quotas quotas, List<Violation> out) {
        String qpsPath = ref.path() + ".qps";
        String durationPath = ref.path() + ".durationS";
        long room = quotas.lambdaConcurrency() - quotas.lambdaReserve();
        if (peakLambdas > room) {
            out.add(new Violation(qpsPath, new Limit("lambdaConcurrency", room,
                    "account concurrent executions, docs.aws.amazon.com/lambda/latest/dg/lambda-concurrency.html "
                            + "(env RICHTER_LAMBDA_CONCURRENCY), less Quotas.lambdaReserve()"),
                    ref.name() + " needs " + n(peakLambdas) + " concurrent Lambda executions (" + n(workers) + " workers"
                            + (legs > 1 ? " × 2 while consecutive legs overlap" : "") + ", + probe and fault decider) at "
                            + fmt(ref.spec().qps()) + " QPS and perWorkerQps " + fmt(plan.perWorkerQps())
                            + ", over the " + n(room) + " a run may take: the account's Lambda concurrency limit of "
                            + n(quotas.lambdaConcurrency()) + " (template parameter AccountLambdaConcurrency) less "
                            + n(quotas.lambdaReserve()) + " left for the run's checks, preparation and report, the API"
                            + " and the account's other functions; raise perWorkerQps or the account's limit"));
        }
        if (workers > quotas.distributedMapMaxConcurrency()) {
            out.add(new Violation(qpsPath, mapLimit(quotas),
                    ref.name() + " fans out to " + n(workers) + " workers per leg (" + fmt(ref.spec().qps()) + " QPS / "
                            + fmt(plan.perWorkerQps()) + " perWorkerQps), over the Distributed Map concurrency limit of "
                            + n(quotas.distributedMapMaxConcurrency()) + " child executions at once"));
        }
        if (legs > quotas.distributedMapMaxConcurrency()) {
            out.add(new Violation(durationPath, mapLimit(quotas),
                    ref.name() + " is cut into " + n(legs) + " legs of " + n(legMs) + " ms for its "
                            + n(ref.spec().durationS()) + " s, over the Distributed Map concurrency limit of "
                            + n(quotas.distributedMapMaxConcurrency()) + " child executions at once"));
        }
        if (legEvents > quotas.historyEventsPerExecution()) {
            out.add(new Violation(durationPath, historyLimit(quotas),
                    ref.name() + " leg " + (largestLeg + 1) + " would record " + n(legEvents) + " history events ("
                            + "its monitor loop may probe every " + n(quotas.alertWaitMs()) + " ms), over the limit of "
                            + n(quotas.historyEventsPerExecution()) + " history events per execution"));
        }
        long bytes = Math.max(payload.startedStepBytes(), payload.legInputBytes());
        if (bytes > quotas.statePayloadBytes()) {
            boolean started = payload.startedStepBytes() >= payload.legInputBytes();
            out.add(new Violation(qpsPath, payloadLimit(quotas),
                    ref.name() + "'s " + (started ? "started step (StartStep's output)" : "leg input") + " would be "
                            + n(bytes) + " bytes (" + n(workers) + " worker indexes, " + n(legs) + " legs), over the "
                            + "state payload limit of " + n(quotas.statePayloadBytes()) + " bytes"));
        }
    }

    private static Limit mapLimit(Quotas q) {
        return new Limit("distributedMapMaxConcurrency", q.distributedMapMaxConcurrency(),
                "docs.aws.amazon.com/step-functions/latest/dg/state-map-distributed.html "
                        + "(env RICHTER_DISTRIBUTED_MAP_MAX_CONCURRENCY)");
    }

    private static Limit historyLimit(Quotas q) {
        return new Limit("historyEventsPerExecution", q.historyEventsPerExecution(),
                "docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html (env RICHTER_HISTORY_EVENT_LIMIT)");
    }

    private static Limit payloadLimit(Quotas q) {
        return new Limit("statePayloadBytes", q.statePayloadBytes(),
                "docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html (env RICHTER_STATE_PAYLOAD_BYTES)");
    }

    private static Limit minLegLimit() {
        return new Limit("minLegMs", StepLayout.MIN_LEG_MS, "StepLayout.MIN_LEG_MS within the load driver's timeout "
                + "(at most 900 s, docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html; env LOAD_DRIVER_TIMEOUT_S)");
    }

    private static StatePayloads payloads(long started, String startedName, long legInput, String legInputName,
                                          long parentState, long planItem, Quotas quotas) {
        long largest = started;
        String which = startedName;
        if (legInput > largest) {
            largest = legInput;
            which = legInputName;
        }
        if (parentState > largest) {
            largest = parentState;
            which = "parent state";
        }
        return new StatePayloads(largest, which, started, legInput, parentState, planItem, quotas.statePayloadBytes());
    }

    /**
     * {@code cost.total()} per million of the load requests {@code steps} send ({@code ceil(qps × durationS)} each), USD;
     * 0 when they send none.
     */
    static double usdPerMillion(Cost cost, List<StepEstimate> steps) {
        long requests = loadDriverRequests(steps);
        return requests == 0 ? 0 : cost.total() / (requests / 1e6);
    }

    private static Cost cost(double loadDriverGbS, double otherGbS, long requests, long transitions, long writeUnits,
                             double readUnits, Prices p) {
        double ld = loadDriverGbS * p.lambdaUsdPerGbSecond();
        double other = otherGbS * p.lambdaUsdPerGbSecond();
        double req = requests / 1e6 * p.lambdaUsdPerMillionRequests();
        double sfn = transitions / 1e3 * p.stateTransitionsUsdPerThousand();
        double writes = writeUnits / 1e6 * p.dynamoDbUsdPerMillionWriteUnits();
        double reads = readUnits / 1e6 * p.dynamoDbUsdPerMillionReadUnits();
        return new Cost(loadDriverGbS, otherGbS, ld, other, req, sfn, writes, reads, ld + other + req + sfn + writes + reads);
    }

    private static RunEstimate empty(Plan plan, Quotas quotas, Prices prices, long planItemBytes, List<Violation> violations) {
        InFlightSizing inFlight = plan.perWorkerQps() > 0 && !Double.isInfinite(plan.perWorkerQps())
                && (plan.expectedLatencyMs() == null || plan.expectedLatencyMs() >= 1)
                ? InFlightSizing.of(plan.perWorkerQps(), plan.expectedLatencyMs()) : null;
        return new RunEstimate(plan.planId(), quotas, prices, List.of(), new Executions(0, 0, 0, 0),
                0, "", new HistoryEvents(0, 0, 0, quotas.historyEventsPerExecution()), 0, 0, quotas.lambdaReserve(),
                quotas.lambdaConcurrency(), WorkerCapacity.measured(), inFlight, 0, Map.of(),
                new StatePayloads(0, "", 0, 0, 0, planItemBytes, quotas.statePayloadBytes()), 0, 0, 0,
                new DynamoDbUse(0, 0, 0, 0, 0, 0), new Cost(0, 0, 0, 0, 0, 0, 0, 0, 0), 0,
                List.of("no step can be laid out: see the violations"), violations);
    }

    /**
     * The expected wall-clock duration of a run of {@code plan} that nothing aborts, milliseconds: per step (pre-test,
     * warm-up and formal) its start ({@link #RUN_PREPARATION_INVOCATION_MS}), the worker lead ({@link Quotas#workerLeadMs()}),
     * its planned duration, the drain of its last requests ({@link StepLayout#drainMs}) and its Step Completed
     * ({@link #STEP_COMPLETION_INVOCATION_MS}); once, the preparation and
     * the release (a run-preparation call each), the static and dynamic checks ({@link #CHECKS_INVOCATION_MS} each)
     * and the report ({@link #REPORT_INVOCATION_MS}). Data sets are built before a run, so their time is not in it.
     * The steps run one after another (DESIGN.md §4), so the figure adds; the invocation times are the estimate's
     * assumptions.
     */
    public static long expectedDurationMs(Plan plan, Quotas quotas) {
        long perStep = RUN_PREPARATION_INVOCATION_MS + quotas.workerLeadMs() + StepLayout.drainMs(plan.requestTimeoutMs(), quotas)
                + STEP_COMPLETION_INVOCATION_MS;
        long ms = 2 * RUN_PREPARATION_INVOCATION_MS + 2 * CHECKS_INVOCATION_MS + REPORT_INVOCATION_MS;
        ms += plan.preTest().durationS() * 1000L + perStep;
        for (Plan.StepSpec rung : plan.warmUpSteps()) {
            ms += rung.durationS() * 1000L + perStep;
        }
        for (Plan.StepSpec step : plan.formalSlots()) {
            ms += step.durationS() * 1000L + perStep;
        }
        return ms;
    }

    /** The load requests {@code steps} send: {@code ceil(qps × durationS)} each. */
    static long loadDriverRequests(List<StepEstimate> steps) {
        long requests = 0;
        for (StepEstimate st : steps) {
            requests += (long) Math.ceil(st.qps() * st.durationS() - 1e-9);
        }
        return requests;
    }

    private static List<String> assumptions(int lookBackS, Plan plan, Quotas quotas, Prices p, InFlightSizing inFlight,
                                            Cost c, long lambdaRequests, long transitions, long writeUnits,
                                            double readUnits, long loadRequests) {
        WorkerCapacity capacity = WorkerCapacity.measured();
        List<String> out = new ArrayList<>(List.of(
                "no retries and no failures: each extra attempt of a Task adds 3 history events and 1 state transition",
                "every leg is monitored to its end (probe and fault-decider rounds at their upper bound)",
                "load-driver duration is billed to its bound: worker lead + leg + request timeout + in-flight grace + margin",
                "other functions run at " + OTHER_FUNCTION_MEMORY_MB + " MB for: probe " + PROBE_INVOCATION_MS
                        + " ms, fault-decider " + DECIDER_INVOCATION_MS + " ms, run-preparation "
                        + RUN_PREPARATION_INVOCATION_MS + " ms, checks " + CHECKS_INVOCATION_MS + " ms, report "
                        + REPORT_INVOCATION_MS + " ms (a step's Step Completed " + STEP_COMPLETION_INVOCATION_MS
                        + " ms) per invocation",
                "a per-second load window item is ~" + WINDOW_ITEM_BYTES + " bytes (a compressed histogram of 1-2 KB): "
                        + ceilDiv(WINDOW_ITEM_BYTES, 1024) + " WRU; a worker result ~" + RESULT_ITEM_BYTES + " bytes: "
                        + ceilDiv(RESULT_ITEM_BYTES, 1024) + " WRU; verdict and decider-state items <= 1 KB: 1 WRU",
                "reads: " + ABORT_POLLS_PER_S + " abort-flag polls per worker-second, " + lookBackS
                        + " s of windows (eventually consistent) plus module states per decider round, and the step, "
                        + "plan and registry per worker invocation",
                "list prices of one Region, no free tier; run-item updates, checks, report and audit writes are not counted",
                "the expected duration adds the steps one after another, each with its start, worker lead and drain, and"
                        + " the preparation, checks, report and release at the invocation times above",
                "a worker holds " + fmt(capacity.perWorkerQps()) + " QPS on " + capacity.vcpus() + " vCPU (" + capacity.measuredBy()
                        + ": " + capacity.measurement() + "); Lambda gives 1 vCPU at " + WorkerCapacity.LAMBDA_MB_PER_VCPU
                        + " MB, so the load driver has " + n(quotas.loadDriverMemoryMb()) + " MB; this plan's perWorkerQps is "
                        + fmt(plan.perWorkerQps()),
                inFlight == null ? "no in-flight cap: perWorkerQps is not a rate" : "in flight per worker: "
                        + (inFlight.expectedLatencyMs() == null
                        ? "no expectedLatencyMs, so the cap is the ceiling of " + n(inFlight.maxInFlight())
                        + " (" + InFlightSizing.CEILING_SOURCE + "), which holds " + fmt(inFlight.perWorkerQps())
                        + " QPS for latencies up to " + n(inFlight.latencyHeldMs()) + " ms with the "
                        + fmt(InFlightSizing.HEADROOM) + "x headroom"
                        : "ceil(" + fmt(inFlight.perWorkerQps()) + " QPS x " + fmt(inFlight.expectedLatencyMs() / 1000.0)
                        + " s x " + fmt(InFlightSizing.HEADROOM) + " headroom) = " + n(inFlight.inFlightNeeded())
                        + " (Little's law), cap " + n(inFlight.inFlightCap()) + " of at most " + n(inFlight.maxInFlight()))
                        + "; connections: " + n(inFlight.connectionsHttp1()) + " over HTTP/1.1, "
                        + n(inFlight.connectionsHttp2()) + " over HTTP/2",
                "peak Lambdas: workers (x 2 while consecutive legs overlap) + probe + fault decider, with "
                        + n(quotas.lambdaReserve()) + " of the account's " + n(quotas.lambdaConcurrency())
                        + " left for the run's checks, preparation and report, the API and the account's other functions"));
        out.add(String.format(Locale.ROOT, "cost on %s at list prices: load driver %.1f GB-s x $%s = $%.4f; other functions"
                        + " %.1f GB-s x $%s = $%.4f; %,d Lambda requests x $%s/10^6 = $%.4f; %,d state transitions x $%s/10^3"
                        + " = $%.4f; %,d WRU x $%s/10^6 = $%.4f; %.0f RRU x $%s/10^6 = $%.4f; total $%.4f over %,d load"
                        + " requests = $%.6f per million",
                p.lambdaArchitecture(), c.loadDriverGbSeconds(), price(p.lambdaUsdPerGbSecond()), c.loadDriverCompute(),
                c.otherGbSeconds(), price(p.lambdaUsdPerGbSecond()), c.otherCompute(), lambdaRequests,
                price(p.lambdaUsdPerMillionRequests()), c.lambdaRequests(), transitions,
                price(p.stateTransitionsUsdPerThousand()), c.stateTransitions(), writeUnits,
                price(p.dynamoDbUsdPerMillionWriteUnits()), c.dynamoDbWrites(), readUnits,
                price(p.dynamoDbUsdPerMillionReadUnits()), c.dynamoDbReads(), c.total(), loadRequests,
                loadRequests == 0 ? 0 : c.total() / (loadRequests / 1e6)));
        return out;
    }

    private static String price(double usd) {
        return java.math.BigDecimal.valueOf(usd).stripTrailingZeros().toPlainString();
    }

    private static long ceilDiv(long a, long b) {
        return Math.floorDiv(a + b - 1, b);
    }

    private static long utf8(String s) {
        return s == null ? 0 : s.getBytes(StandardCharsets.UTF_8).length;
    }

    private static String n(long v) {
        return String.format(Locale.ROOT, "%,d", v);
    }

    private static String fmt(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }
}
