package dev.richter.report;

import dev.richter.common.AccessDenied;
import dev.richter.common.model.CheckResult;
import dev.richter.common.model.Marker;
import dev.richter.common.model.OverloadResponses;
import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.Run;
import dev.richter.common.model.Stages;
import dev.richter.common.model.StepPlan;
import dev.richter.common.model.WorkerKey;
import dev.richter.common.model.WorkerResult;
import dev.richter.links.graph.ClosurePair;
import dev.richter.links.graph.Dimension;
import dev.richter.links.graph.EdgeExtractor;
import dev.richter.links.graph.ExtractedLinks;
import dev.richter.links.source.TraceRead;
import dev.richter.links.source.TraceSource;
import dev.richter.links.source.TraceSourceSpec;
import dev.richter.links.store.LinkRepository;
import dev.richter.links.store.StoredEdge;
import dev.richter.links.middleware.MiddlewareInventory;
import dev.richter.links.middleware.MiddlewareUse;
import dev.richter.links.trace.Span;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Reads the optional evidence of a report ({@link ReportEvidence}): started steps, the per-second windows, the
 * load driver's 429/503 records, the marked traces (from the team's trace source, over the run's steps) and the call
 * graph (from the links table). Each part is read on its own: a part that fails (a missing permission, an unreadable
 * source) is logged and shown on the page as not read, and never stops the report.
 */
public final class EvidenceLoader {
    private static final Logger LOG = LogManager.getLogger(EvidenceLoader.class);
    /** Slack around each step's window when reading traces, milliseconds (exports lag behind the spans' start). */
    static final long TRACE_SLACK_MS = 1_000;
    /**
     * Traces read per step, milliseconds from the middle of the step: a sample bounds what a long run costs to read
     * (an X-Ray source pages through every trace of the window) and is plenty for calls per request and p99s.
     */
    static final long TRACE_SAMPLE_MS = 30_000;

    private final RunEvidenceRepository evidence;
    private final LinkRepository links;
    private final Function<String, List<RegisteredService>> services;
    private final Function<TraceSourceSpec, TraceSource> openSource;

    /**
     * @param evidence   run-metrics and registry reads
     * @param links      the links table
     * @param services   a team's registered services (the scope of the call graph)
     * @param openSource opens a configured trace source ({@link TraceSourceSpec#open()} in production)
     */
    public EvidenceLoader(RunEvidenceRepository evidence, LinkRepository links, Function<String, List<RegisteredService>> services,
                          Function<TraceSourceSpec, TraceSource> openSource) {
        this.evidence = evidence;
        this.links = links;
        this.services = services;
        this.openSource = openSource;
    }

    /**
     * @param run           the run
     * @param plan          its plan
     * @param results       its worker results (the steps' time windows)
     * @param dynamicChecks the pre-test's dynamic checks (marker and mock status of the edges)
     * @param deadlineMs    epoch ms by which reading must stop (the Lambda's remaining time less what rendering needs)
     */
    public ReportEvidence load(Run run, Plan plan, List<WorkerResult> results, List<CheckResult> dynamicChecks, long deadlineMs) {
        List<StepPlan> started = attempt("started steps", () -> evidence.startedSteps(run.runId()), List.of());
        Map<WorkerKey, Long> sentByWorker = new ConcurrentHashMap<>();
        StepHalves halves = new StepHalves(started);
        TimeSeries series = attempt("windows", () -> timeSeries(run.runId(), plan, results, deadlineMs, sentByWorker, halves),
                TimeSeries.EMPTY);
        var overload = attempt("429/503 records", () -> evidence.overload(run.runId()), List.<OverloadResponses>of());
        RunEvidenceRepository.Safety safety = attempt("safety configuration", () -> evidence.safety(plan.teamId()), null);
        Traced traced = safety == null ? new Traced(TraceEvidence.notRead("the team's safety configuration could not be read"), List.of(),
                List.of())
                : attempt("traces", () -> traces(plan.teamId(), safety.traceSource(), results), null);
        if (traced == null) {
            traced = new Traced(TraceEvidence.notRead("the trace source could not be read (see the report function's log)"), List.of(),
                    List.of());
        }
        TraceEvidence traces = traced.evidence();
        List<Span> spans = traced.spans();
        List<CallGraph.RequiredExit> exits = safety == null ? List.of() : safety.requiredExits();
        CallGraph graph = attempt("links", () -> callGraph(plan, exits, dynamicChecks, spans), null);
        if (graph == null) {
            graph = CallGraph.notRead("the links table could not be read (see the report function's log)");
        }
        VanishedEdges.Coverage coverage = VanishedEdges.Coverage.NONE;
        if (traces.read() && graph.read()) {
            CallGraph g = graph;
            Traced t = traced;
            coverage = attempt("marked traces' coverage", () -> VanishedEdges.of(t.spans(), t.windows(), Marker.DEFAULT, g),
                    VanishedEdges.Coverage.NONE);
            graph = graph.withCrossings(coverage.crossed());
        }
        List<MiddlewareUse> middleware = List.of();
        if (traces.read()) {
            middleware = attempt("middleware", () -> middleware(plan, spans), List.of());
        }
        return new ReportEvidence(started, series, overload, traces, graph, sentByWorker, coverage).withMiddleware(middleware)
                .withHalves(series.isEmpty() ? Map.of() : halves.halves());
    }

    /**
     * The clients, stores and servers each scope service (the team's registered services) used in the run's traces,
     * judged against that scope ({@link MiddlewareInventory}), by service name, each service's in order of first sighting.
     */
    List<MiddlewareUse> middleware(Plan plan, List<Span> spans) {
        Set<String> scope = new HashSet<>();
        services.apply(plan.teamId()).forEach(s -> scope.add(s.name()));
        List<MiddlewareUse> out = new ArrayList<>(MiddlewareInventory.of(spans, Marker.DEFAULT, scope::contains).stream()
                .filter(u -> scope.contains(u.service())).toList());
        out.sort(java.util.Comparator.comparing(MiddlewareUse::service));
        return out;
    }

    /**
     * The series of the run's windows, one bucket per {@link TimeSeries#bucketSFor} seconds of the run, adding each
     * worker's window sends to {@code sentByWorker} and each window to {@code halves}.
     */
    TimeSeries timeSeries(String runId, Plan plan, List<WorkerResult> results, long deadlineMs, Map<WorkerKey, Long> sentByWorker,
                          StepHalves halves) {
        long from = results.stream().mapToLong(WorkerResult::startedAtMs).filter(t -> t > 0).min().orElse(0);
        long to = results.stream().mapToLong(WorkerResult::endedAtMs).max().orElse(from);
        Map<String, Double> targets = new LinkedHashMap<>();
        List<Plan.StepSpec> rungs = plan.warmUpSteps();
        for (int i = 0; i < rungs.size(); i++) {
            targets.put(Stages.WARM_UP + "#" + i, rungs.get(i).qps());
        }
        targets.put(Stages.PRE_TEST + "#0", plan.preTest().qps());
        for (int i = 0; i < plan.formal().size(); i++) {
            targets.put(Stages.FORMAL + "#" + i, plan.formal().get(i).qps());
        }
        TimeSeries.Builder b = new TimeSeries.Builder(TimeSeries.bucketSFor(Math.max(1, (to - from) / 1000)), targets);
        boolean complete = evidence.windows(runId, deadlineMs, w -> {
            b.add(w);
            halves.add(w);
        }, (worker, sent) -> sentByWorker.merge(worker, sent, Long::sum));
        TimeSeries ts = b.build();
        if (!complete) {
            halves.cutShort();
        }
        if (!complete && !ts.isEmpty()) {
            ts = new TimeSeries(ts.bucketS(), ts.epochS(), ts.targetQps(), ts.achievedQps(), ts.p50Ms(), ts.p90Ms(), ts.p99Ms(),
                    ts.errorsPerS(), ts.errorsByKindPerS(), ts.achievedCounts(), ts.marks(),
                    (ts.note().isEmpty() ? "" : ts.note() + "; ") + "cut short: the report function ran out of time reading windows");
        }
        return ts;
    }

    /**
     * What was read from the trace source.
     *
     * @param evidence the per-step figures
     * @param spans    the spans read (for a call graph when the links table has none of the plan's entries yet)
     * @param windows  the sampled step windows the spans were read for
     */
    record Traced(TraceEvidence evidence, List<Span> spans, List<TraceEvidence.StepWindow> windows) {}

    /** The marked traces of every step that has results (a sample of each), from the team's trace source. */
    Traced traces(String teamId, TraceSourceSpec spec, List<WorkerResult> results) {
        if (spec.kind().isEmpty()) {
            return new Traced(TraceEvidence.notRead("no trace source configured for team " + teamId + " (PUT /safety traceSource)"),
                    List.of(), List.of());
        }
        Map<String, long[]> byStep = new LinkedHashMap<>();
        for (WorkerResult r : results) {
            long[] w = byStep.computeIfAbsent(r.stage() + "#" + r.stepIndex(), k -> new long[] {Long.MAX_VALUE, 0});
            w[0] = Math.min(w[0], r.startedAtMs());
            w[1] = Math.max(w[1], r.endedAtMs());
        }
        if (byStep.isEmpty()) {
            return new Traced(TraceEvidence.notRead("no step ran"), List.of(), List.of());
        }
        List<TraceEvidence.StepWindow> windows = new ArrayList<>();
        byStep.forEach((k, w) -> windows.add(new TraceEvidence.StepWindow(k.substring(0, k.lastIndexOf('#')),
                Integer.parseInt(k.substring(k.lastIndexOf('#') + 1)), w[0] - TRACE_SLACK_MS, w[1] + TRACE_SLACK_MS)));
        TraceSource source = openSource.apply(spec);
        List<Span> spans = new ArrayList<>();
        List<String> unreadable = new ArrayList<>();
        List<TraceEvidence.StepWindow> sampled = new ArrayList<>();
        for (TraceEvidence.StepWindow w : windows) {
            long mid = w.fromMs() + (w.toMs() - w.fromMs()) / 2;
            long from = Math.max(w.fromMs(), mid - TRACE_SAMPLE_MS / 2);
            long to = Math.min(w.toMs(), mid + TRACE_SAMPLE_MS / 2);
            sampled.add(new TraceEvidence.StepWindow(w.stage(), w.stepIndex(), from, to));
            TraceRead read = source.read(teamId, from, to);
            spans.addAll(read.spans());
            read.unreadable().stream().filter(u -> !unreadable.contains(u)).forEach(unreadable::add);
        }
        TraceEvidence evidence = TraceEvidence.of(source.describe(), spans, sampled, Marker.DEFAULT);
        if (!unreadable.isEmpty()) {
            evidence = new TraceEvidence(evidence.read(), evidence.source(), "the figures leave out what the source could"
                    + " not read: " + String.join("; ", TraceRead.capped(unreadable)), evidence.steps());
        }
        return new Traced(evidence, spans, sampled);
    }

    /**
     * The graph below the plan's entries (interface dimension), from the links table; when the table has none of them
     * yet (traces not ingested) but the run's traces were read, from the links those traces imply (the link builder's
     * own extraction), and the graph says so.
     */
    CallGraph callGraph(Plan plan, List<CallGraph.RequiredExit> exits, List<CheckResult> dynamicChecks,
                        List<Span> spans) {
        Map<Boolean, List<String>> entries = CallGraph.planEntries(plan, links.entries(plan.teamId(), Dimension.INTERFACE));
        Set<String> scope = new HashSet<>();
        services.apply(plan.teamId()).forEach(s -> scope.add(s.name()));
        if (entries.get(true).isEmpty() && !spans.isEmpty()) {
            ExtractedLinks extracted = EdgeExtractor.extract(spans, List.of());
            Map<Boolean, List<String>> traced = CallGraph.planEntries(plan, List.copyOf(extracted.interfaceEntries()));
            if (!traced.get(true).isEmpty()) {
                List<StoredEdge> edges = new ArrayList<>();
                extracted.interfaceEdges().forEach((e, st) -> edges.add(new StoredEdge(e.from(), e.to(), st.fromService(),
                        st.toService(), st.calls(), 0)));
                CallGraph g = CallGraph.build(traced.get(true), traced.get(false), CallGraph.closure(traced.get(true), edges), edges,
                        links.annotations(plan.teamId()), exits, scope, dynamicChecks);
                return g.withNote("drawn from the run's sampled traces (calls counted in those samples): the links table has none"
                        + " of the plan's entries yet; ingest traces (POST /traces or the link builder's rebuild) to keep them");
            }
        }
        Map<String, List<ClosurePair>> descendants = new LinkedHashMap<>();
        for (String e : entries.get(true)) {
            descendants.put(e, links.descendants(plan.teamId(), Dimension.INTERFACE, e, Integer.MAX_VALUE));
        }
        return CallGraph.build(entries.get(true), entries.get(false), descendants,
                entries.get(true).isEmpty() ? List.of() : links.edges(plan.teamId(), Dimension.INTERFACE),
                links.annotations(plan.teamId()), exits, scope, dynamicChecks);
    }

    private static <T> T attempt(String what, Supplier<T> read, T fallback) {
        try {
            return read.get();
        } catch (RuntimeException e) {
            AccessDenied.rethrowIfDenied(e);   // a missing permission is a defect, not missing evidence
            LOG.warn("report: {} not read: {}", what, e.toString());
            return fallback;
        }
    }
}
