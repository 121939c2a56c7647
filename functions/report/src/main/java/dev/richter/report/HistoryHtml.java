package dev.richter.report;

import static dev.richter.report.HtmlReport.esc;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The report page's two sections about the plan's earlier runs, below the problems to follow: "Problems followed"
 * (each tracked problem of the plan and what this run changed, {@link Report#followUp()}) and "Since the last run"
 * (this run beside the previous one, {@link Report#sinceLastRun()}). Every text from the runs is HTML-escaped.
 */
final class HistoryHtml {
    private HistoryHtml() {}

    /** Appends both sections to {@code h}. */
    static void render(StringBuilder h, Report r) {
        followUp(h, r.followUp());
        since(h, r.sinceLastRun());
    }

    private static void followUp(StringBuilder h, List<Report.FollowedProblem> followed) {
        h.append("<section id=followup><h2>Problems followed</h2>");
        if (followed.isEmpty()) {
            h.append("<p>No problem of this plan is followed.</p></section>");
            return;
        }
        h.append("<table><tr><th class=l>problem</th><th class=l>this run</th><th class=l>status</th><th>runs seen</th>")
                .append("<th class=l>since</th><th class=l>owner</th><th class=l>note</th></tr>");
        for (Report.FollowedProblem f : followed) {
            String css = switch (f.change()) {
                case "reopened", "new" -> "FAIL";
                case "observed again" -> "WARN";
                default -> "PASS";
            };
            h.append("<tr><td class=l><b>").append(esc(f.subject())).append("</b><br><small>").append(esc(f.id()))
                    .append("</small></td><td class=\"l ").append(css).append("\">").append(esc(f.change()))
                    .append("</td><td class=l>").append(esc(f.status())).append("</td><td>").append(f.runsSeen())
                    .append("</td><td class=l>").append(esc(f.firstRunId())).append("</td><td class=l>").append(esc(f.owner()))
                    .append("</td><td class=l>").append(esc(f.note())).append("</td></tr>");
        }
        h.append("</table></section>");
    }

    private static void since(StringBuilder h, Report.SinceLastRun since) {
        h.append("<section id=since><h2>Since the last run</h2>");
        RunComparison c = since.comparison();
        if (c == null) {
            h.append("<p>Not compared: ").append(esc(since.note())).append(".</p></section>");
            return;
        }
        h.append("<p>Compared with <b>").append(esc(c.baselineRunId())).append("</b>. ");
        if (c.regressed()) {
            h.append("<span class=FAIL>Regression</span>:</p><ul>");
            c.regressions().forEach(x -> h.append("<li>").append(esc(x)).append("</li>"));
            h.append("</ul>");
        } else {
            h.append("No regression beyond the thresholds.</p>");
        }
        RunComparison.RegressionThresholds t = c.thresholds();
        h.append("<p class=note>A regression: capacity falls by more than ").append(RunComparison.num(t.capacityDropPct()))
                .append(" %; a step's p99 rises by more than ").append(RunComparison.num(t.p99RisePct())).append(" % and ")
                .append(RunComparison.num(t.p99RiseMs())).append(" ms; its error rate by more than ")
                .append(RunComparison.num(t.errorRateRisePoints())).append(" points.</p>");
        RunComparison.Whole w = c.whole();
        h.append("<table><tr><th class=l></th><th class=l>this run</th><th class=l>last run</th></tr>");
        row(h, "outcome", w.outcome(), Objects::toString);
        row(h, "capacity", w.capacity(), Objects::toString);
        row(h, "failure mode", w.failureMode(), Objects::toString);
        row(h, "confidence", w.confidence(), v -> HtmlReport.fmt(v));
        w.resilience().run().forEach((defence, status) -> h.append("<tr><td class=l>").append(esc(defence))
                .append("</td><td class=l>").append(esc(status)).append("</td><td class=l>")
                .append(esc(w.resilience().baseline().getOrDefault(defence, "-"))).append("</td></tr>"));
        h.append("</table>");
        if (!c.steps().isEmpty()) {
            h.append("<table class=steps><tr><th class=l>step</th><th>achieved QPS</th><th>p50 ms</th><th>p99 ms</th>")
                    .append("<th>error rate %</th><th class=l>verdicts</th></tr>");
            for (RunComparison.StepComparison s : c.steps()) {
                h.append("<tr><td class=l>").append(esc(s.stage())).append(" step ").append(s.stepIndex() + 1).append(" at ")
                        .append(RunComparison.num(s.targetQps())).append(" QPS</td>");
                cell(h, s.achievedQps());
                cell(h, s.p50Ms());
                cell(h, s.p99Ms());
                cell(h, s.errorRatePct());
                h.append("<td class=l>").append(esc(verdicts(s.verdicts().run()))).append(" ← ")
                        .append(esc(verdicts(s.verdicts().baseline()))).append("</td></tr>");
            }
            h.append("</table>");
        }
        if (!c.unmatched().isEmpty()) {
            h.append("<p class=note>Steps of a rate only one run had: ").append(esc(String.join("; ", c.unmatched())))
                    .append(".</p>");
        }
        h.append("</section>");
    }

    private static <T> void row(StringBuilder h, String name, RunComparison.Pair<T> p, Function<T, String> text) {
        h.append("<tr><td class=l>").append(name).append("</td><td class=l>")
                .append(esc(p.run() == null ? "-" : text.apply(p.run()))).append("</td><td class=l>")
                .append(esc(p.baseline() == null ? "-" : text.apply(p.baseline()))).append("</td></tr>");
    }

    /** {@code this ← last}: the figure of this run beside the previous one's. */
    private static void cell(StringBuilder h, RunComparison.Pair<Double> p) {
        h.append("<td>").append(p.run() == null ? "-" : RunComparison.num(p.run())).append(" ← ")
                .append(p.baseline() == null ? "-" : RunComparison.num(p.baseline())).append("</td>");
    }

    private static String verdicts(Map<String, String> byModule) {
        return byModule.isEmpty() ? "-" : byModule.entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .reduce((a, b) -> a + ", " + b).orElse("-");
    }
}
