package dev.richter.report;

import dev.richter.common.Json;
import dev.richter.common.model.CheckResult;
import dev.richter.common.model.MissingEvidence;
import dev.richter.common.model.Verdict;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Renders a {@link Report} as one self-contained HTML page: inline CSS, the call graph as inline SVG, and the charts
 * drawn by the run charts' script ({@link RunCharts}, which the console serves too) with uPlot ({@link UPlot}: one
 * versioned library, inlined from its WebJar) from the report's own figures embedded as JSON. No external resource is loaded, so the page can be mailed, archived and read offline; without script the
 * tables still carry every figure.
 *
 * <p>Top to bottom: the one-screen answer (outcome, capacity, failure mode, confidence), the problems to follow, the
 * problems followed across the plan's runs and the comparison with its last run ({@link HistoryHtml}), the
 * resilience verdict, the run over time (throughput, latency, errors, with step and verdict marks), the latency
 * distribution per step, the steps table, the call graph, then confidence reasons, checks, missing evidence and the
 * verdict timeline. Steps are numbered from 1. Every text from the run is HTML-escaped.
 */
public final class HtmlReport {
    private HtmlReport() {}

    /** Most rows of the verdict timeline shown; the rest are counted. */
    static final int MAX_VERDICT_ROWS = 200;

    /** The page for {@code r}. */
    public static String render(Report r) {
        StringBuilder h = new StringBuilder(96_000);
        h.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
                .append("<link rel=\"icon\" href=\"data:,\"><title>Richter report ").append(esc(r.runId())).append("</title><style>")
                .append(UPlot.css()).append(css()).append(CallGraphSvg.css()).append(TimelineLane.css()).append("</style></head><body><main id=\"report\">");
        header(h, r);
        summary(h, r);
        problems(h, r);
        HistoryHtml.render(h, r);
        resilience(h, r);
        timeSeries(h, r);
        TimelineLane.render(h, r);
        businessMetrics(h, r);
        latencyCurves(h, r);
        steps(h, r);
        callGraph(h, r);
        h.append("<section><h2>Confidence</h2><p>Score <b>").append(fmt(r.confidence().score())).append("</b> of 1.</p><ul>");
        r.confidence().reasons().forEach(x -> h.append("<li>").append(esc(x)).append("</li>"));
        h.append("</ul></section>");
        if (!r.missingEvidence().isEmpty()) {
            h.append("<section><h2>Missing evidence</h2><p>Monitoring that could not be read. It did not count against the modules, ")
                    .append("and it lowers confidence.</p>")
                    .append("<table><tr><th class=l>module</th><th class=l>outcome</th><th class=l>defect</th><th>rounds</th>")
                    .append("<th class=l>first seen</th></tr>");
            for (MissingEvidence m : r.missingEvidence()) {
                h.append("<tr><td class=l>").append(esc(m.module())).append("</td><td class=\"l WARN\">WARN</td><td class=l>")
                        .append(esc(m.defect())).append("</td><td>").append(m.rounds()).append(" of ").append(m.ofRounds())
                        .append("</td><td class=l>").append(Instant.ofEpochMilli(m.firstAtMs())).append("</td></tr>");
            }
            h.append("</table></section>");
        }
        checks(h, "Static checks", r.staticChecks());
        checks(h, "Dynamic checks (pre-test)", r.dynamicChecks());
        middleware(h, r.middleware());
        verdicts(h, r);
        h.append("<footer><p>Steps are numbered from 1 here; in the report's JSON <code>stepIndex</code> is 0-based (")
                .append(esc(r.indexing())).append("). Latency is measured from each request's intended send time (coordinated")
                .append(" omission corrected); percentiles come from histograms merged across workers. Charts: uPlot ")
                .append(esc(UPlot.version())).append(", inlined.</p></footer></main>");
        h.append("<script type=\"application/json\" id=\"richter-data\">").append(chartData(r)).append("</script>");
        h.append("<script>").append(UPlot.js()).append("</script><script>").append(RunCharts.js()).append(GLUE).append("</script>");
        return h.append("</body></html>").toString();
    }

    private static void header(StringBuilder h, Report r) {
        h.append("<header><h1>Load-test report: ").append(esc(r.planName())).append("</h1><p class=meta>Run <b>")
                .append(esc(r.runId())).append("</b> of plan ").append(esc(r.planId())).append(", team ").append(esc(r.teamId()))
                .append(", generated ").append(Instant.ofEpochMilli(r.generatedAtMs())).append("</p></header>");
    }

    private static void summary(StringBuilder h, Report r) {
        h.append("<section class=cards>");
        h.append("<div class=card><div class=k>Outcome</div><div class=\"v ").append(esc(r.outcome())).append("\">")
                .append(esc(r.outcome())).append("</div><div class=d>").append(esc(r.outcomeReason())).append("</div></div>");
        h.append("<div class=card><div class=k>Capacity</div><div class=v>").append(esc(capacityWithInterval(r)))
                .append("</div><div class=d>").append(esc(r.capacity().limitedBy())).append("<br><small>criteria: ")
                .append(esc(r.capacity().criteria())).append("</small></div></div>");
        h.append("<div class=card><div class=k>Failure mode</div><div class=\"v fm-")
                .append(esc(r.failureMode().kind().replace(' ', '-'))).append("\">").append(esc(r.failureMode().kind()))
                .append("</div><div class=d>").append(esc(r.failureMode().evidence())).append("</div></div>");
        h.append("<div class=card><div class=k>Confidence</div><div class=v>").append(fmt(r.confidence().score()))
                .append("</div><div class=d>");
        List<String> reasons = r.confidence().reasons();
        reasons.stream().limit(3).forEach(x -> h.append(esc(CallGraphSvg.shorten(x, 90))).append("<br>"));
        if (reasons.size() > 3) {
            h.append("<small>and ").append(reasons.size() - 3).append(" more (see Confidence)</small>");
        }
        h.append("</div></div>");
        h.append("</section>");
    }

    /**
     * The capacity as people read it with its interval, e.g. {@code 40 QPS (between 40 and 60 QPS; unconfirmed)};
     * {@link #capacityFigure} alone when there is no interval.
     */
    static String capacityWithInterval(Report r) {
        String text = r.capacity().interval().text();
        return text.isEmpty() ? capacityFigure(r) : capacityFigure(r) + " (" + text + ")";
    }

    /** The capacity as people read it: {@code 80 QPS}, {@code ≥ 80 QPS}, {@code < 20 QPS} or {@code not measured}. */
    static String capacityFigure(Report r) {
        Report.Capacity c = r.capacity();
        if (!c.measured()) {
            return "not measured";
        }
        if (c.maxSustainableQps() == 0 && !r.formal().isEmpty() && c.reached()) {
            return "< " + StepLabels.qps(r.formal().get(0).targetQps()) + " QPS";
        }
        return (c.reached() ? "" : "\u2265 ") + StepLabels.qps(c.maxSustainableQps()) + " QPS";
    }

    private static void problems(StringBuilder h, Report r) {
        h.append("<section id=problems><h2>Problems to follow</h2>");
        if (r.problems().isEmpty()) {
            h.append("<p class=ok>Nothing to follow up.</p></section>");
            return;
        }
        h.append("<table class=problems><tr><th class=l></th><th class=l>what</th><th class=l>problem</th><th class=l>what to do next</th></tr>");
        for (Report.Problem p : r.problems()) {
            h.append("<tr><td class=\"l ").append(p.severity()).append("\">").append(p.severity()).append("</td><td class=l><b>")
                    .append(esc(p.subject())).append("</b><br><small>").append(esc(p.kind())).append("</small></td><td class=l>")
                    .append(esc(p.problem())).append("</td><td class=l>").append(esc(p.next())).append("</td></tr>");
        }
        h.append("</table></section>");
    }

    private static void resilience(StringBuilder h, Report r) {
        h.append("<section id=resilience><h2>Resilience verdict</h2><table class=resilience>");
        for (Report.Finding f : r.resilience().findings()) {
            h.append("<tr><th class=l>").append(esc(f.defence())).append("</th><td class=l><span class=\"badge s-")
                    .append(f.status()).append("\">").append(ResilienceVerdict.words(f.status())).append("</span></td><td class=l>")
                    .append(esc(f.line())).append("</td></tr>");
        }
        h.append("</table></section>");
    }

    private static void timeSeries(StringBuilder h, Report r) {
        h.append("<section id=charts><h2>Over time</h2>");
        TimeSeries ts = r.timeSeries();
        if (ts.isEmpty()) {
            h.append("<p>No per-second window was stored for this run").append(r.allSteps().isEmpty()
                    ? " (no step ran)." : ".").append("</p></section>");
            return;
        }
        h.append("<p class=legend>Dashed grey lines mark each step's start; coloured lines mark verdict changes")
                .append(" (orange SUSPECT, red DAMAGED, green HEALTHY), purple lines the team's alerts, black the abort.</p>")
                .append("<div class=chart id=chart-qps></div><div class=chart id=chart-latency></div><div class=chart id=chart-errors></div>");
        if (!ts.note().isEmpty()) {
            h.append("<p class=note>").append(esc(ts.note())).append(".</p>");
        }
        h.append("<noscript><p>The charts need JavaScript; the steps table below has every step's figures.</p></noscript></section>");
    }

    /** Each business metric per step against its baseline; nothing when the team registered none. */
    private static void businessMetrics(StringBuilder h, Report r) {
        if (r.businessMetrics().isEmpty()) {
            return;
        }
        h.append("<section id=business-metrics><h2>Business metrics</h2><p class=legend>The team's own metrics per step: the")
                .append(" mean of each round's value against its baseline (the pre-test's, scaled by the step's rate when the")
                .append(" metric is load-proportional).</p><table><tr><th class=l>step</th><th class=l>module</th>")
                .append("<th class=l>metric</th><th>rounds</th><th>mean</th><th>baseline</th><th>ratio</th><th>past expectation</th></tr>");
        for (BusinessMetricTable.BusinessMetricStep row : r.businessMetrics()) {
            h.append("<tr><td class=l>").append(esc(row.step())).append("</td><td class=l>").append(esc(row.module()))
                    .append("</td><td class=l>").append(esc(row.name())).append("</td><td>").append(row.rounds())
                    .append("</td><td>").append(fmt(row.meanValue())).append("</td><td>")
                    .append(Double.isFinite(row.baseline()) ? fmt(row.baseline()) : "\u2013").append("</td><td>")
                    .append(Double.isFinite(row.ratio()) ? fmt(row.ratio()) : "\u2013").append("</td><td class=\"")
                    .append(row.breachRounds() > 0 ? "FAIL" : "").append("\">").append(row.breachRounds()).append(" of ")
                    .append(row.rounds()).append("</td></tr>");
        }
        h.append("</table></section>");
    }

    private static void latencyCurves(StringBuilder h, Report r) {
        h.append("<section><h2>Latency distribution per step</h2>");
        if (r.latencyCurves().curves().isEmpty()) {
            h.append("<p>No step recorded a latency.</p></section>");
            return;
        }
        h.append("<p class=legend>HDR percentile curves from each step's merged histogram: latency (from the intended send")
                .append(" time) against percentile, on a log scale that spreads the tail. A curve stops where its samples run out.</p>")
                .append("<div class=chart id=chart-hdr></div></section>");
    }

    private static void steps(StringBuilder h, Report r) {
        List<StepFigures> steps = r.allSteps();
        h.append("<section><h2>Steps</h2>");
        if (steps.isEmpty()) {
            h.append("<p>No step ran.</p></section>");
            return;
        }
        if (r.warmUpEnd() != null) {
            h.append("<p class=warmup>Warm-up: ").append(esc(r.warmUpEnd())).append("</p>");
        }
        h.append("<table class=steps><tr><th class=l>step</th><th>target QPS</th><th>achieved QPS</th><th>workers</th>")
                .append("<th>sent</th><th>ok</th><th>errors</th><th class=l>errors by kind</th><th>dropped</th><th>late</th>")
                .append("<th>in flight peak/cap</th>")
                .append("<th>success %</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>max ms</th>")
                .append("<th class=l>bottleneck</th></tr>");
        for (StepFigures f : steps) {
            h.append("<tr><td class=l>").append(esc(StepLabels.name(f))).append(f.aborted() ? " <small>(aborted)</small>" : "")
                    .append("</td><td>").append(fmt(f.targetQps())).append("</td><td>").append(fmt(f.achievedQps())).append("</td><td")
                    .append(f.missingWorkers().isEmpty() ? "" : " class=FAIL").append('>')
                    .append(f.workersReported()).append('/').append(f.workersExpected())
                    .append(f.legs() > 1 ? " (" + f.legs() + " legs)" : "").append("</td><td>")
                    .append(f.counters().sent()).append("</td><td>").append(f.counters().ok()).append("</td><td>")
                    .append(f.counters().errors()).append("</td><td class=l>").append(esc(errorKinds(f))).append("</td><td>")
                    .append(f.counters().dropped()).append("</td><td>").append(f.counters().late()).append("</td><td")
                    .append(f.inFlightCapBound() ? " class=WARN" : "").append('>').append(inFlight(f)).append("</td><td>")
                    .append(f.counters().sent() == 0 ? "\u2013" : fmt(f.successRatePct())).append("</td><td>")
                    .append(ms(f.latencyMs(), "p50")).append("</td><td>")
                    .append(ms(f.latencyMs(), "p90")).append("</td><td>")
                    .append(ms(f.latencyMs(), "p99")).append("</td><td>")
                    .append(ms(f.latencyMs(), "max")).append("</td><td class=l>").append(esc(bottleneck(r, f))).append("</td></tr>");
        }
        h.append("</table><p class=legend>Bottleneck: the service whose own time in the marked traces (span time not")
                .append(" spent in its children), per request, grew most since the previous step, with the saturation signals")
                .append(" the decider saw for it during the step.</p>");
        List<String> lateness = new ArrayList<>();
        for (StepFigures f : steps) {
            f.lateWorkers().forEach(w -> lateness.add(w.worker() + ": ready " + w.startLagMs() + " ms after its first due time, "
                    + w.lateRequests() + " requests sent late"));
            if (f.unsentAtTimeLimit() > 0) {
                lateness.add(StepLabels.name(f) + ": " + f.unsentAtTimeLimit() + " requests unsent when a worker's Lambda time ran out");
            }
        }
        if (!lateness.isEmpty()) {
            h.append("<h3>Late and cut-short workers</h3><ul>");
            lateness.forEach(line -> h.append("<li>").append(esc(line)).append("</li>"));
            h.append("</ul>");
        }
        h.append("</section>");
    }

    /**
     * A step's in-flight figures, {@code <peak>/<cap>} per worker ({@link StepFigures#peakInFlight},
     * {@link StepFigures#inFlightCap}), with {@code (cap bound)} when a worker's peak reached its cap; an en dash when
     * its results predate them.
     */
    static String inFlight(StepFigures f) {
        if (f.inFlightCap() <= 0) {
            return "\u2013";
        }
        return f.peakInFlight() + "/" + f.inFlightCap() + (f.inFlightCapBound() ? " (cap bound)" : "");
    }

    /** The step's bottleneck text ({@link Bottlenecks.Bottleneck#text()}), or an en dash (pre-test, or none). */
    static String bottleneck(Report r, StepFigures f) {
        return r.bottlenecks().stream().filter(b -> b.stage().equals(f.stage()) && b.stepIndex() == f.stepIndex())
                .map(Bottlenecks.Bottleneck::text).findFirst().orElse("\u2013");
    }

    /** First check-failure reasons a step's row shows, most frequent first. */
    static final int SHOWN_CHECK_REASONS = 5;

    /**
     * {@code 503: 12, timeouts: 3, check-failed: 40 (status 200, expected 201: 30; ...)}, or an en dash when the step had
     * no error. Check failures show their {@value #SHOWN_CHECK_REASONS} most frequent reasons (each worker keeps its
     * first {@link dev.richter.common.model.Counters#MAX_CHECK_REASONS}), and how many failed for reasons not kept.
     */
    static String errorKinds(StepFigures f) {
        List<String> parts = new ArrayList<>();
        f.counters().httpErrors().forEach((status, n) -> parts.add(status + ": " + n));
        if (f.counters().timeouts() > 0) {
            parts.add("timeouts: " + f.counters().timeouts());
        }
        if (f.counters().checkFailed() > 0) {
            List<String> reasons = new ArrayList<>();
            Map<String, Long> top = f.counters().topCheckFailures(SHOWN_CHECK_REASONS);
            top.forEach((reason, n) -> reasons.add(reason + ": " + n));
            long shown = top.values().stream().mapToLong(Long::longValue).sum();
            if (f.counters().checkFailed() > shown) {
                reasons.add("other reasons: " + (f.counters().checkFailed() - shown));
            }
            parts.add("check-failed: " + f.counters().checkFailed() + " (" + String.join("; ", reasons) + ")");
        }
        if (f.counters().connectErrors() > 0) {
            parts.add("connect: " + f.counters().connectErrors());
        }
        return parts.isEmpty() ? "\u2013" : String.join(", ", parts);
    }

    private static void callGraph(StringBuilder h, Report r) {
        CallGraph g = r.callGraph();
        h.append("<section id=callgraph><h2>Call graph</h2>");
        if (!g.read()) {
            h.append("<p>Not available: ").append(esc(g.note())).append(".</p></section>");
            return;
        }
        if (!g.note().isEmpty()) {
            h.append("<p class=note>").append(esc(g.note())).append(".</p>");
        }
        if (!g.nodes().isEmpty()) {
            h.append("<p class=legend>Below the plan's entries, from the closure table (depth = shortest distance). Edge labels")
                    .append(" are calls observed. <span class=k-lost>Red dashed: marker lost</span>; <span class=k-real>orange:")
                    .append(" real call out of the scope</span>; <span class=k-mock>grey dashed: mocked exit</span>.")
                    .append(g.collapsedBelowDepth() >= 0 ? " Collapsed below depth " + g.collapsedBelowDepth() + " (" + g.hiddenNodes()
                            + " nodes hidden; each branch's last node counts them)." : "").append("</p>")
                    .append("<div class=graph>").append(CallGraphSvg.render(g)).append("</div>");
            long lost = g.edges().stream().filter(e -> e.marker() == CallGraph.MarkerStatus.LOST).count();
            long real = g.edges().stream().filter(e -> e.exit() && e.mock() == CallGraph.MockStatus.REAL).count();
            long unverified = g.edges().stream().filter(e -> e.marker() == CallGraph.MarkerStatus.NOT_VERIFIED).count();
            long mocked = g.edges().stream().filter(e -> e.mock() == CallGraph.MockStatus.MOCKED).count();
            h.append("<p>").append(g.edges().size()).append(g.edges().size() == 1 ? " edge: " : " edges: ").append(lost)
                    .append(" with the marker lost, ").append(real).append(real == 1 ? " real exit, " : " real exits, ").append(mocked)
                    .append(mocked == 1 ? " mocked exit" : " mocked exits").append(unverified > 0 ? ", " + unverified + " whose marker"
                            + " was not verified (no marker-propagation check on marked traces)" : "").append(".</p>");
        }
        if (!g.entriesWithoutTraces().isEmpty()) {
            h.append("<p class=WARN>Entries of the plan without traces: ").append(esc(String.join(", ", g.entriesWithoutTraces())))
                    .append("</p>");
        }
        h.append("</section>");
    }

    private static void verdicts(StringBuilder h, Report r) {
        h.append("<section><h2>Verdicts</h2>");
        if (r.verdicts().isEmpty()) {
            h.append("<p>No verdict changes recorded.</p></section>");
            return;
        }
        h.append("<table><tr><th class=l>time</th><th class=l>step</th><th class=l>module</th><th class=l>verdict</th><th class=l>reason</th></tr>");
        List<StepFigures> steps = r.allSteps();
        int shown = 0;
        for (Verdict v : r.verdicts()) {
            if (shown++ == MAX_VERDICT_ROWS) {
                break;
            }
            h.append("<tr><td class=l>").append(Instant.ofEpochMilli(v.atMs())).append("</td><td class=l>")
                    .append(esc(ResilienceVerdict.stepAt(steps, v.atMs()).map(StepLabels::name).orElse("\u2013")))
                    .append("</td><td class=l>").append(esc(v.module()))
                    .append("</td><td class=\"l ").append(v.state()).append("\">").append(v.state()).append("</td><td class=l>")
                    .append(esc(v.reason())).append("</td></tr>");
        }
        h.append("</table>");
        if (r.verdicts().size() > MAX_VERDICT_ROWS) {
            h.append("<p>").append(r.verdicts().size() - MAX_VERDICT_ROWS).append(" more changes are in the report's JSON.</p>");
        }
        h.append("</section>");
    }

    /**
     * "Middleware per service": each scope service's clients, stores and servers in the run's traces, guarded by
     * Richter's agent extension or not, seen on marked traffic or not; an unguarded one on marked traffic is marked FAIL
     * (as the {@code guarded-middleware} check judges it), a server without the 503 gate WARN. Absent when no trace was
     * read.
     */
    private static void middleware(StringBuilder h, List<Report.ServiceMiddleware> rows) {
        if (rows.isEmpty()) {
            return;
        }
        h.append("<section><h2>Middleware per service</h2><p>The clients, stores and servers each service's traces show")
                .append(" (instrumentation scope, <code>db.system</code>, <code>messaging.system</code>,")
                .append(" <code>rpc.system</code>), and whether Richter's agent extension guards them.</p>")
                .append("<table><tr><th class=l>service</th><th class=l>library</th><th class=l>versions</th>")
                .append("<th class=l>role</th><th class=l>instrumentation</th><th class=l>system</th><th class=l>guarded</th>")
                .append("<th>calls</th><th>marked</th><th class=l>verdict</th></tr>");
        for (Report.ServiceMiddleware m : rows) {
            String outcome = m.verdict().equals("unguarded on marked traffic") ? "FAIL"
                    : m.verdict().equals("server not gated") ? "WARN" : "PASS";
            h.append("<tr><td class=l>").append(esc(m.service())).append("</td><td class=l>").append(esc(m.library()))
                    .append("</td><td class=l>").append(esc(m.versions())).append("</td><td class=l>").append(esc(m.role()))
                    .append("</td><td class=l>").append(esc(m.scope())).append("</td><td class=l>").append(esc(m.system()))
                    .append("</td><td class=l>").append(m.guarded() ? "yes" : "no").append("</td><td>").append(m.calls())
                    .append("</td><td>").append(m.markedCalls()).append("</td><td class=\"l ").append(outcome).append("\">")
                    .append(esc(m.verdict())).append("</td></tr>");
        }
        h.append("</table></section>");
    }

    private static void checks(StringBuilder h, String title, List<CheckResult> results) {
        h.append("<section><h2>").append(esc(title)).append("</h2>");
        if (results.isEmpty()) {
            h.append("<p>Not run.</p></section>");
            return;
        }
        h.append("<table><tr><th class=l>check</th><th class=l>subject</th><th class=l>outcome</th><th class=l>evidence</th></tr>");
        for (CheckResult c : results) {
            h.append("<tr><td class=l>").append(esc(c.name())).append("</td><td class=l>").append(esc(c.subject()))
                    .append("</td><td class=\"l ").append(c.outcome()).append("\">").append(c.outcome()).append("</td><td class=l>")
                    .append(esc(c.evidence())).append("</td></tr>");
        }
        h.append("</table></section>");
    }

    /**
     * The charts' data: {@code {timeSeries, latencyCurves}} as the report's JSON document holds them
     * ({@link RunCharts}' {@code fromReport} reads that shape, as the console does from {@code GET /runs/{id}/report});
     * JSON safe inside a script element.
     */
    static String chartData(Report r) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("timeSeries", r.timeSeries());
        d.put("latencyCurves", r.latencyCurves());
        return Json.write(d).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026");
    }

    /** The page's own styles. */
    private static String css() {
        return "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1f2937;background:#f8fafc}"
                + "main{max-width:1200px;margin:0 auto;padding:20px 24px 40px}h1{font-size:1.5em;margin:.2em 0}"
                + "h2{font-size:1.15em;margin:1.6em 0 .5em;padding-bottom:.2em;border-bottom:1px solid #e5e7eb}"
                + "section{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:4px 16px 12px;margin:14px 0}"
                + "section.cards{display:grid;grid-template-columns:repeat(4,1fr);gap:12px;background:none;border:0;padding:0}"
                + ".card{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:12px 14px}"
                + ".card .k{font-size:12px;text-transform:uppercase;letter-spacing:.05em;color:#6b7280}"
                + ".card .v{font-size:1.6em;font-weight:700;margin:2px 0 4px}.card .d{font-size:12.5px;color:#374151}"
                + ".meta{color:#4b5563;margin:0}table{border-collapse:collapse;margin:.5em 0 1em;width:100%}"
                + "td,th{border:1px solid #e5e7eb;padding:4px 8px;text-align:right;vertical-align:top}th{background:#f3f4f6;font-weight:600}"
                + "td.l,th.l{text-align:left}.PASS,.HEALTHY,.PASSED{color:#15803d}.WARN,.SUSPECT{color:#b45309}"
                + ".FAIL,.DAMAGED,.ABORTED,.ERROR,.PRE_TEST_FAILED,.STATIC_CHECKS_FAILED{color:#b91c1c;font-weight:bold}"
                + ".fm-graceful-shedding{color:#15803d}.fm-progressive-collapse{color:#b91c1c}.fm-fast-errors,.fm-refused-connections,.fm-slowdown{color:#b45309}.fm-none-observed,.fm-not-measured{color:#4b5563}"
                + ".badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;white-space:nowrap}"
                + ".s-HOLDS{background:#dcfce7;color:#166534}.s-WEAK{background:#fef3c7;color:#92400e}"
                + ".s-FAILS{background:#fee2e2;color:#991b1b}.s-NOT_OBSERVED{background:#f3f4f6;color:#4b5563}"
                + "table.resilience th{width:160px;background:none}table.resilience td:nth-child(2){width:110px}"
                + "table.problems td:first-child{width:44px}table.steps td:first-child{white-space:nowrap}.chart{margin:6px 0 10px}.legend,.note{color:#4b5563;font-size:13px}"
                + ".ok{color:#15803d}.graph{overflow-x:auto}.k-lost{color:#c62828}.k-real{color:#e65100}.k-mock{color:#6b7280}"
                + "footer{color:#6b7280;font-size:12px;margin-top:20px}"
                + "@media (max-width:900px){section.cards{grid-template-columns:repeat(2,1fr)}}";
    }

    /** The glue between the embedded data and the run charts ({@link RunCharts}, drawn by uPlot). */
    static final String GLUE = """
            document.body.setAttribute('data-charts', String(RichterCharts.draw(RichterCharts.fromReport(
                JSON.parse(document.getElementById('richter-data').textContent)), document.getElementById('report'))));
            """;

    /** A latency quantile in milliseconds, or an en dash when the step recorded no latency. */
    static String ms(Map<String, Double> latencyMs, String key) {
        Double v = latencyMs.get(key);
        return v == null ? "\u2013" : fmt(v);
    }

    /** {@code 123} at or above 100, else two decimals ({@code 12.34}), in the root locale. */
    static String fmt(double v) {
        return String.format(Locale.ROOT, v >= 100 ? "%.0f" : "%.2f", v);
    }

    /** HTML-escapes text for element content and quoted attributes; null gives {@code ""}. */
    static String esc(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
