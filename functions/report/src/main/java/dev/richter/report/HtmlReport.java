package dev.richter.report;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.MissingEvidence;
import dev.richter.common.model.Verdict;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Renders a {@link Report} as one self-contained HTML page (inline CSS and SVG, no script, no
 * external resource), so it can be mailed or archived as a single file.
 */
public final class HtmlReport {
    private HtmlReport() {}

    /** The page for {@code r}. Every text from the run is HTML-escaped. */
    public static String render(Report r) {
        StringBuilder h = new StringBuilder(16_384);
        h.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Richter report ")
                .append(esc(r.runId())).append("</title><style>")
                .append("body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}h1{font-size:1.4em}")
                .append("table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}")
                .append("th{background:#f3f3f3}td.l,th.l{text-align:left}.PASS,.HEALTHY,.PASSED{color:#177b24}")
                .append(".WARN,.SUSPECT{color:#a66a00}.FAIL,.DAMAGED,.ABORTED,.ERROR,.PRE_TEST_FAILED,.STATIC_CHECKS_FAILED{color:#b3261e;font-weight:bold}")
                .append("</style></head><body>");
        h.append("<h1>Richter load-test report</h1><p>Run <b>").append(esc(r.runId())).append("</b> of plan <b>")
                .append(esc(r.planName())).append("</b> (").append(esc(r.planId())).append("), team ").append(esc(r.teamId()))
                .append(", generated ").append(Instant.ofEpochMilli(r.generatedAtMs())).append("</p>");
        h.append("<p>Outcome: <span class=\"").append(esc(r.outcome())).append("\">").append(esc(r.outcome()))
                .append("</span> — ").append(esc(r.outcomeReason())).append("</p>");
        h.append("<p>Capacity: <b>").append(fmt(r.capacity().maxSustainableQps())).append(" QPS</b> sustained; limited by: ")
                .append(esc(r.capacity().limitedBy())).append(" <small>(").append(esc(r.capacity().criteria())).append(")</small></p>");
        h.append("<p>Failure mode: <b>").append(esc(r.failureMode().kind())).append("</b> — ").append(esc(r.failureMode().evidence())).append("</p>");
        h.append("<p>Confidence: <b>").append(fmt(r.confidence().score())).append("</b></p><ul>");
        r.confidence().reasons().forEach(x -> h.append("<li>").append(esc(x)).append("</li>"));
        h.append("</ul>");

        List<StepFigures> steps = new ArrayList<>(r.preTest());
        steps.addAll(r.formal());
        h.append("<h2>Steps</h2>").append(chart(steps));
        h.append("<table><tr><th class=l>stage</th><th>step</th><th>target QPS</th><th>achieved QPS</th><th>workers</th>")
                .append("<th>sent</th><th>ok</th><th>errors</th><th>dropped</th><th>late</th><th>success %</th>")
                .append("<th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>max ms</th></tr>");
        for (StepFigures f : steps) {
            h.append("<tr><td class=l>").append(esc(f.stage())).append("</td><td>").append(f.stepIndex()).append("</td><td>")
                    .append(fmt(f.targetQps())).append("</td><td>").append(fmt(f.achievedQps())).append("</td><td>")
                    .append(f.workersReported()).append('/').append(f.workersExpected())
                    .append(f.legs() > 1 ? " (" + f.legs() + " legs)" : "").append("</td><td>")
                    .append(f.counters().sent()).append("</td><td>").append(f.counters().ok()).append("</td><td>")
                    .append(f.counters().errors()).append("</td><td>").append(f.counters().dropped()).append("</td><td>")
                    .append(f.counters().late()).append("</td><td>").append(fmt(f.successRatePct())).append("</td><td>")
                    .append(ms(f.latencyMs(), "p50")).append("</td><td>")
                    .append(ms(f.latencyMs(), "p90")).append("</td><td>")
                    .append(ms(f.latencyMs(), "p99")).append("</td><td>")
                    .append(ms(f.latencyMs(), "max")).append("</td></tr>");
        }
        h.append("</table><p><small>Latency is measured from each request's intended send time (coordinated omission corrected); ")
                .append("percentiles come from histograms merged across workers.</small></p>");
        List<String> lateness = new java.util.ArrayList<>();
        for (StepFigures f : steps) {
            f.lateWorkers().forEach(w -> lateness.add(w.worker() + ": ready " + w.startLagMs() + " ms after its first due time, "
                    + w.lateRequests() + " requests sent late"));
            if (f.unsentAtTimeLimit() > 0) {
                lateness.add(f.stage() + "/step " + (f.stepIndex() + 1) + ": " + f.unsentAtTimeLimit()
                        + " requests unsent when a worker's Lambda time ran out");
            }
        }
        if (!lateness.isEmpty()) {
            h.append("<h3>Late and cut-short workers</h3><ul>");
            lateness.forEach(line -> h.append("<li>").append(esc(line)).append("</li>"));
            h.append("</ul>");
        }
        if (!r.missingEvidence().isEmpty()) {
            h.append("<h2>Missing evidence</h2><p>Monitoring that could not be read. It did not count against the modules, ")
                    .append("and it lowers confidence.</p>")
                    .append("<table><tr><th class=l>module</th><th class=l>outcome</th><th class=l>defect</th><th>rounds</th>")
                    .append("<th class=l>first seen</th></tr>");
            for (MissingEvidence m : r.missingEvidence()) {
                h.append("<tr><td class=l>").append(esc(m.module())).append("</td><td class=\"l WARN\">WARN</td><td class=l>")
                        .append(esc(m.defect())).append("</td><td>").append(m.rounds()).append(" of ").append(m.ofRounds())
                        .append("</td><td class=l>").append(Instant.ofEpochMilli(m.firstAtMs())).append("</td></tr>");
            }
            h.append("</table>");
        }
        checks(h, "Static checks", r.staticChecks());
        checks(h, "Dynamic checks (pre-test)", r.dynamicChecks());
        h.append("<h2>Verdicts</h2>");
        if (r.verdicts().isEmpty()) {
            h.append("<p>No verdict changes recorded.</p>");
        } else {
            h.append("<table><tr><th class=l>time</th><th class=l>module</th><th class=l>verdict</th><th class=l>reason</th></tr>");
            for (Verdict v : r.verdicts()) {
                h.append("<tr><td class=l>").append(Instant.ofEpochMilli(v.atMs())).append("</td><td class=l>").append(esc(v.module()))
                        .append("</td><td class=\"l ").append(v.state()).append("\">").append(v.state()).append("</td><td class=l>")
                        .append(esc(v.reason())).append("</td></tr>");
            }
            h.append("</table>");
        }
        return h.append("</body></html>").toString();
    }

    private static void checks(StringBuilder h, String title, List<CheckResult> results) {
        h.append("<h2>").append(esc(title)).append("</h2>");
        if (results.isEmpty()) {
            h.append("<p>Not run.</p>");
            return;
        }
        h.append("<table><tr><th class=l>check</th><th class=l>subject</th><th class=l>outcome</th><th class=l>evidence</th></tr>");
        for (CheckResult c : results) {
            h.append("<tr><td class=l>").append(esc(c.name())).append("</td><td class=l>").append(esc(c.subject()))
                    .append("</td><td class=\"l ").append(c.outcome()).append("\">").append(c.outcome()).append("</td><td class=l>")
                    .append(esc(c.evidence())).append("</td></tr>");
        }
        h.append("</table>");
    }

    /** Bars of target (outline) vs achieved (filled) QPS per step, with p99 labels. */
    private static String chart(List<StepFigures> steps) {
        if (steps.isEmpty()) {
            return "<p>No step ran.</p>";
        }
        double max = steps.stream().mapToDouble(f -> Math.max(f.targetQps(), f.achievedQps())).max().orElse(1);
        int w = 90;
        int height = 160;
        StringBuilder s = new StringBuilder("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
                .append(steps.size() * w + 20).append("\" height=\"").append(height + 40).append("\" role=\"img\" aria-label=\"QPS per step\">");
        for (int i = 0; i < steps.size(); i++) {
            StepFigures f = steps.get(i);
            int x = 10 + i * w;
            int th = (int) Math.round(height * f.targetQps() / max);
            int ah = (int) Math.round(height * f.achievedQps() / max);
            s.append("<rect x=\"").append(x).append("\" y=\"").append(height - th).append("\" width=\"60\" height=\"").append(th)
                    .append("\" fill=\"none\" stroke=\"#555\"/>");
            s.append("<rect x=\"").append(x + 5).append("\" y=\"").append(height - ah).append("\" width=\"50\" height=\"").append(ah)
                    .append("\" fill=\"").append(ReportBuilder.sustained(f) ? "#4a8f5a" : "#c0504d").append("\"/>");
            s.append("<text x=\"").append(x).append("\" y=\"").append(height + 15).append("\" font-size=\"11\">")
                    .append(esc(f.stage().equals("pre-test") ? "pre" : "F" + f.stepIndex())).append(' ').append(fmt(f.achievedQps())).append("</text>");
            s.append("<text x=\"").append(x).append("\" y=\"").append(height + 30).append("\" font-size=\"11\">p99 ")
                    .append(ms(f.latencyMs(), "p99")).append("</text>");
        }
        return s.append("</svg>").toString();
    }

    /** A latency quantile in milliseconds, or an en dash when the step recorded no latency. */
    static String ms(java.util.Map<String, Double> latencyMs, String key) {
        Double v = latencyMs.get(key);
        return v == null ? "\u2013" : fmt(v);
    }

    static String fmt(double v) {
        return String.format(Locale.ROOT, v >= 100 ? "%.0f" : "%.2f", v);
    }

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
