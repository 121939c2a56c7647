package dev.richter.report;

import dev.richter.common.model.OverloadResponses;
import dev.richter.common.model.StepPlan;
import dev.richter.common.model.WorkerKey;
import dev.richter.links.middleware.MiddlewareUse;
import java.util.List;
import java.util.Map;

/**
 * What the report reads besides the worker results, checks and verdicts: each part optional, each saying when it was
 * not read, so a report is written whatever failed before it.
 *
 * @param startedSteps the stored plans of the steps that started (run-metrics {@code step#...}): a started step none of
 *                     whose workers stored a result still shows, with its workers missing
 * @param timeSeries   the per-second series built from the load driver's windows ({@link TimeSeries#EMPTY} when none)
 * @param overload     the load driver's 429/503 records of the run (empty when it recorded none)
 * @param traces       the marked traces per step and entry
 * @param callGraph    the links below the plan's entries
 * @param windowSentByWorker requests sent per worker according to its stored windows, keyed by worker
 *                     (what names the sends of a worker that stored no result)
 * @param coverage     the call paths the marked traces crossed, and those that vanished ({@link VanishedEdges})
 * @param saturation   the saturation signals the fault decider stored per round (empty when none or not read)
 * @param events       the run's events: alerts fired and resolved, verdict changes, the abort ({@link RunEvents})
 * @param businessMetrics the business metrics the fault decider read per round
 * @param middleware   the clients, stores and servers each scope service used in the run's traces, judged against the
 *                     run's scope ({@link dev.richter.links.middleware.MiddlewareInventory}; empty when not read)
 * @param breakerCounts the circuit breakers' not-permitted counters per decision round ({@link BreakerCount}; empty
 *                     when none or not read)
 * @param halves       each formal step's two halves in time, keyed {@code formal#<stepIndex>} ({@link StepHalves};
 *                     empty when the windows were not read)
 */
public record ReportEvidence(List<StepPlan> startedSteps, TimeSeries timeSeries,
                             List<OverloadResponses> overload, TraceEvidence traces, CallGraph callGraph,
                             Map<WorkerKey, Long> windowSentByWorker, VanishedEdges.Coverage coverage,
                             List<SaturationSignal> saturation, List<RunEvent> events,
                             List<BusinessMetricRound> businessMetrics, List<MiddlewareUse> middleware,
                             List<BreakerCount> breakerCounts, Map<String, StepHalves.Half[]> halves) {
    /** Evidence without the marked traces' coverage of the call graph and without saturation signals. */
    public ReportEvidence(List<StepPlan> startedSteps, TimeSeries timeSeries, List<OverloadResponses> overload,
                          TraceEvidence traces, CallGraph callGraph, Map<WorkerKey, Long> windowSentByWorker) {
        this(startedSteps, timeSeries, overload, traces, callGraph, windowSentByWorker, VanishedEdges.Coverage.NONE, List.of(),
                List.of(), List.of(), List.of(), List.of(), Map.of());
    }

    /** Evidence without saturation signals. */
    public ReportEvidence(List<StepPlan> startedSteps, TimeSeries timeSeries, List<OverloadResponses> overload,
                          TraceEvidence traces, CallGraph callGraph, Map<WorkerKey, Long> windowSentByWorker,
                          VanishedEdges.Coverage coverage) {
        this(startedSteps, timeSeries, overload, traces, callGraph, windowSentByWorker, coverage, List.of(), List.of(), List.of(),
                List.of(), List.of(), Map.of());
    }

    /** Evidence without per-worker window sums. */
    public ReportEvidence(List<StepPlan> startedSteps, TimeSeries timeSeries,
                          List<OverloadResponses> overload, TraceEvidence traces, CallGraph callGraph) {
        this(startedSteps, timeSeries, overload, traces, callGraph, Map.of());
    }

    /** Nothing beyond results, checks and verdicts. */
    public static final ReportEvidence NONE = new ReportEvidence(List.of(), TimeSeries.EMPTY, List.of(),
            TraceEvidence.notRead("not read"), CallGraph.notRead("not read"));

    public ReportEvidence {
        startedSteps = startedSteps == null ? List.of() : List.copyOf(startedSteps);
        timeSeries = timeSeries == null ? TimeSeries.EMPTY : timeSeries;
        overload = overload == null ? List.of() : List.copyOf(overload);
        traces = traces == null ? TraceEvidence.notRead("not read") : traces;
        callGraph = callGraph == null ? CallGraph.notRead("not read") : callGraph;
        windowSentByWorker = windowSentByWorker == null ? Map.of() : Map.copyOf(windowSentByWorker);
        coverage = coverage == null ? VanishedEdges.Coverage.NONE : coverage;
        saturation = saturation == null ? List.of() : List.copyOf(saturation);
        events = events == null ? List.of() : List.copyOf(events);
        businessMetrics = businessMetrics == null ? List.of() : List.copyOf(businessMetrics);
        middleware = middleware == null ? List.of() : List.copyOf(middleware);
        breakerCounts = breakerCounts == null ? List.of() : List.copyOf(breakerCounts);
        halves = halves == null ? Map.of() : Map.copyOf(halves);
    }

    /** The same evidence with each formal step's halves ({@link #halves()}). */
    public ReportEvidence withHalves(Map<String, StepHalves.Half[]> stepHalves) {
        return new ReportEvidence(startedSteps, timeSeries, overload, traces, callGraph, windowSentByWorker, coverage, saturation,
                events, businessMetrics, middleware, breakerCounts, stepHalves);
    }

    /** The same evidence with the decider's saturation signals. */
    public ReportEvidence withSaturation(List<SaturationSignal> signals) {
        return new ReportEvidence(startedSteps, timeSeries, overload, traces, callGraph, windowSentByWorker, coverage, signals,
                events, businessMetrics, middleware, breakerCounts, halves);
    }

    /** The same evidence with the run's events and business metrics. */
    public ReportEvidence withTeamEvidence(List<RunEvent> runEvents, List<BusinessMetricRound> metrics) {
        return new ReportEvidence(startedSteps, timeSeries, overload, traces, callGraph, windowSentByWorker, coverage, saturation,
                runEvents, metrics, middleware, breakerCounts, halves);
    }

    /** The same evidence with the middleware the run's traces show ({@link #middleware()}). */
    public ReportEvidence withMiddleware(List<MiddlewareUse> uses) {
        return new ReportEvidence(startedSteps, timeSeries, overload, traces, callGraph, windowSentByWorker, coverage, saturation,
                events, businessMetrics, uses, breakerCounts, halves);
    }

    /** The same evidence with the circuit breakers' not-permitted counters ({@link #breakerCounts()}). */
    public ReportEvidence withBreakerCounts(List<BreakerCount> counts) {
        return new ReportEvidence(startedSteps, timeSeries, overload, traces, callGraph, windowSentByWorker, coverage, saturation,
                events, businessMetrics, middleware, counts, halves);
    }
}
