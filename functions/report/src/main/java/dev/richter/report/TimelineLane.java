package dev.richter.report;

import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * The report's timeline lane, under the over-time charts on the same time span: one row of step boundaries, one of
 * the team's alerts (a bar from fired to resolved, or to the end), one of verdict changes, and the abort; drawn as
 * inline SVG on the server (no script needed), with a list of the same events below it for reading and searching.
 */
final class TimelineLane {
    private static final int WIDTH = 1100;
    private static final int LEFT = 90;
    private static final int ROW = 26;

    private TimelineLane() {}

    /** Appends the lane's section; nothing when the run has neither a step nor an event. */
    static void render(StringBuilder h, Report r) {
        List<StepFigures> steps = r.allSteps().stream().filter(f -> f.startedAtMs() > 0 && f.startedAtMs() != Long.MAX_VALUE).toList();
        if (steps.isEmpty() && r.events().isEmpty()) {
            return;
        }
        long from = Long.MAX_VALUE;
        long to = Long.MIN_VALUE;
        for (StepFigures f : steps) {
            from = Math.min(from, f.startedAtMs());
            to = Math.max(to, Math.max(f.startedAtMs(), f.endedAtMs()));
        }
        for (RunEvent e : r.events()) {
            from = Math.min(from, e.atMs());
            to = Math.max(to, e.atMs());
        }
        if (!r.timeSeries().isEmpty()) {
            from = Math.min(from, r.timeSeries().epochS().getFirst() * 1000);
            to = Math.max(to, r.timeSeries().epochS().getLast() * 1000 + 1000);
        }
        long span = Math.max(1, to - from);
        h.append("<section id=timeline><h2>Timeline</h2><p class=legend>Step boundaries, the team's own alerts (purple: from")
                .append(" firing to resolved), verdict changes and the abort, on the time of the charts above.</p>")
                .append("<svg class=lane viewBox=\"0 0 ").append(WIDTH).append(' ').append(4 * ROW + 20)
                .append("\" role=img aria-label=\"run timeline\">");
        String[] rows = {"steps", "alerts", "verdicts", "abort"};
        for (int i = 0; i < rows.length; i++) {
            h.append("<text x=4 y=").append(i * ROW + 17).append(" class=lane-row>").append(rows[i]).append("</text>")
                    .append("<line x1=").append(LEFT).append(" x2=").append(WIDTH).append(" y1=").append(i * ROW + ROW)
                    .append(" y2=").append(i * ROW + ROW).append(" class=lane-rule />");
        }
        for (StepFigures f : steps) {
            double x = x(f.startedAtMs(), from, span);
            h.append("<line x1=").append(fmt(x)).append(" x2=").append(fmt(x)).append(" y1=2 y2=").append(4 * ROW)
                    .append(" class=lane-step /><text x=").append(fmt(x + 3)).append(" y=16 class=lane-label>")
                    .append(HtmlReport.esc(StepLabels.label(f))).append("</text>");
        }
        List<RunEvent> events = r.events();
        for (int i = 0; i < events.size(); i++) {
            RunEvent e = events.get(i);
            double x = x(e.atMs(), from, span);
            String title = "<title>" + HtmlReport.esc(Instant.ofEpochMilli(e.atMs()) + " " + e.kind() + " " + e.module() + " "
                    + e.name() + (e.detail().isEmpty() ? "" : ": " + e.detail())) + "</title>";
            switch (e.kind()) {
                case RunEvent.ALERT_FIRED -> {
                    long end = to;
                    for (int j = i + 1; j < events.size(); j++) {
                        RunEvent later = events.get(j);
                        if (later.kind().equals(RunEvent.ALERT_RESOLVED) && later.module().equals(e.module())
                                && later.name().equals(e.name())) {
                            end = later.atMs();
                            break;
                        }
                    }
                    double w = Math.max(3, x(end, from, span) - x);
                    h.append("<rect x=").append(fmt(x)).append(" y=").append(ROW + 5).append(" width=").append(fmt(w))
                            .append(" height=16 class=lane-alert>").append(title).append("</rect><text x=").append(fmt(x + 3))
                            .append(" y=").append(ROW + 17).append(" class=lane-alert-label>")
                            .append(HtmlReport.esc(e.name() + " · " + e.module())).append("</text>");
                }
                case RunEvent.VERDICT_CHANGED -> {
                    String to2 = e.name().substring(e.name().indexOf('→') + 1);
                    h.append("<circle cx=").append(fmt(x)).append(" cy=").append(2 * ROW + 13).append(" r=6 class=\"lane-verdict ")
                            .append(HtmlReport.esc(to2)).append("\">").append(title).append("</circle>");
                }
                case RunEvent.ABORT -> h.append("<line x1=").append(fmt(x)).append(" x2=").append(fmt(x)).append(" y1=2 y2=")
                        .append(4 * ROW).append(" class=lane-abort>").append(title).append("</line><text x=").append(fmt(x + 3))
                        .append(" y=").append(3 * ROW + 17).append(" class=lane-label>abort</text>");
                default -> { }
            }
        }
        h.append("</svg>");
        if (!events.isEmpty()) {
            h.append("<table class=events><tr><th class=l>time</th><th class=l>step</th><th class=l>event</th><th class=l>module</th>")
                    .append("<th class=l>what</th></tr>");
            for (RunEvent e : events) {
                h.append("<tr><td class=l>").append(Instant.ofEpochMilli(e.atMs())).append("</td><td class=l>")
                        .append(HtmlReport.esc(ResilienceVerdict.stepAt(r.allSteps(), e.atMs()).map(StepLabels::name).orElse("\u2013")))
                        .append("</td><td class=l>").append(HtmlReport.esc(e.kind())).append("</td><td class=l>")
                        .append(HtmlReport.esc(e.module())).append("</td><td class=l>").append(HtmlReport.esc(e.name()))
                        .append(e.detail().isEmpty() ? "" : ": " + HtmlReport.esc(e.detail())).append("</td></tr>");
            }
            h.append("</table>");
        }
        h.append("</section>");
    }

    /** CSS of the lane. */
    static String css() {
        return ".lane{width:100%;height:auto;font:11px system-ui,sans-serif}.lane-row{fill:#374151;font-weight:600}"
                + ".lane-rule{stroke:#e5e7eb}.lane-step{stroke:#6b7280;stroke-dasharray:5 4}.lane-label{fill:#374151}"
                + ".lane-alert{fill:#7c3aed;opacity:.75}.lane-alert-label{fill:#fff}.lane-abort{stroke:#111827;stroke-width:2}"
                + ".lane-verdict.DAMAGED{fill:#c62828}.lane-verdict.SUSPECT{fill:#d97706}.lane-verdict.HEALTHY{fill:#15803d}";
    }

    private static double x(long atMs, long from, long span) {
        return LEFT + (WIDTH - LEFT - 10) * (double) (atMs - from) / span;
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }
}
