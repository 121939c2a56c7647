package dev.richter.report;

import static dev.richter.report.HtmlReport.esc;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Draws a {@link CallGraph} as inline SVG, layered left to right: one column per depth below the entries (the closure
 * table's shortest depth), nodes in a column ordered by the mean row of their callers (one barycentre pass), edges as
 * curves labelled with their calls just before the node they call. Lost-marker edges are red and dashed, real exits orange and thick, mocked exits grey
 * and dashed; back edges (cycles) arc below. Every node and edge has a {@code <title>} with its full text.
 */
public final class CallGraphSvg {
    static final int COLUMN_W = 360;
    static final int NODE_W = 210;
    static final int NODE_H = 38;
    static final int ROW_H = 58;
    static final int MARGIN = 16;
    static final int LABEL_CHARS = 32;

    private CallGraphSvg() {}

    /** The SVG element, or an empty string when the graph has no node. */
    public static String render(CallGraph g) {
        if (g.nodes().isEmpty()) {
            return "";
        }
        Map<Integer, List<CallGraph.Node>> columns = new TreeMap<>();
        g.nodes().forEach(n -> columns.computeIfAbsent(n.depth(), k -> new ArrayList<>()).add(n));
        Map<String, double[]> pos = new HashMap<>();
        Map<String, List<String>> callers = new HashMap<>();
        for (CallGraph.CallEdge e : g.edges()) {
            if (!e.backEdge()) {
                callers.computeIfAbsent(e.to(), k -> new ArrayList<>()).add(e.from());
            }
        }
        int rows = 0;
        for (Map.Entry<Integer, List<CallGraph.Node>> col : columns.entrySet()) {
            List<CallGraph.Node> nodes = new ArrayList<>(col.getValue());
            nodes.sort(Comparator.comparingDouble((CallGraph.Node n) -> callers.getOrDefault(n.id(), List.of()).stream()
                    .filter(pos::containsKey).mapToDouble(c -> pos.get(c)[2]).average().orElse(0)).thenComparing(CallGraph.Node::id));
            for (int i = 0; i < nodes.size(); i++) {
                pos.put(nodes.get(i).id(), new double[] {MARGIN + col.getKey() * COLUMN_W, MARGIN + 14 + i * ROW_H, i});
            }
            rows = Math.max(rows, nodes.size());
        }
        int width = MARGIN * 2 + (columns.keySet().stream().mapToInt(Integer::intValue).max().orElse(0)) * COLUMN_W + NODE_W;
        boolean back = g.edges().stream().anyMatch(CallGraph.CallEdge::backEdge);
        int height = MARGIN * 2 + 14 + rows * ROW_H - (ROW_H - NODE_H) + (back ? ROW_H : 0);
        StringBuilder s = new StringBuilder(8_192);
        s.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"callgraph\" role=\"img\" aria-label=\"call graph\" width=\"")
                .append(width).append("\" height=\"").append(height).append("\" viewBox=\"0 0 ").append(width).append(' ')
                .append(height).append("\">")
                .append("<defs>");
        for (String[] m : new String[][] {{"a-ok", "#6b7280"}, {"a-lost", "#c62828"}, {"a-real", "#e65100"}, {"a-mock", "#9ca3af"}}) {
            s.append("<marker id=\"").append(m[0]).append("\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerUnits=\"userSpaceOnUse\"")
                    .append(" markerWidth=\"9\" markerHeight=\"9\" orient=\"auto-start-reverse\"><path d=\"M0,0L10,5L0,10z\" fill=\"")
                    .append(m[1]).append("\"/></marker>");
        }
        s.append("</defs>");
        columns.keySet().forEach(d -> s.append("<text class=\"cg-col\" x=\"").append(MARGIN + d * COLUMN_W).append("\" y=\"")
                .append(MARGIN + 4).append("\">").append(d == 0 ? "entry" : "depth " + d).append("</text>"));
        for (CallGraph.CallEdge e : g.edges()) {
            double[] a = pos.get(e.from());
            double[] b = pos.get(e.to());
            if (a == null || b == null) {
                continue;
            }
            String cls = e.marker() == CallGraph.MarkerStatus.LOST ? "lost" : e.exit() && e.mock() == CallGraph.MockStatus.REAL
                    ? "real" : e.mock() == CallGraph.MockStatus.MOCKED ? "mock" : "ok";
            String path;
            double lx;
            double ly;
            if (e.backEdge()) {
                double x1 = a[0] + NODE_W / 2.0;
                double y1 = a[1] + NODE_H;
                double x2 = b[0] + NODE_W / 2.0 + 12;
                double y2 = b[1] + NODE_H;
                double dip = Math.max(y1, y2) + ROW_H * 0.55;
                path = String.format(Locale.ROOT, "M%.0f,%.0f C%.0f,%.0f %.0f,%.0f %.0f,%.0f", x1, y1, x1, dip, x2, dip, x2, y2);
                lx = (x1 + x2) / 2;
                ly = dip - 6;
            } else {
                double x1 = a[0] + NODE_W;
                double y1 = a[1] + NODE_H / 2.0;
                double x2 = b[0];
                double y2 = b[1] + NODE_H / 2.0;
                double mx = (x1 + x2) / 2;
                path = String.format(Locale.ROOT, "M%.0f,%.0f C%.0f,%.0f %.0f,%.0f %.0f,%.0f", x1, y1, mx, y1, mx, y2, x2, y2);
                lx = x2 - 10;
                ly = y2 - 5;
            }
            String tag = switch (cls) {
                case "lost" -> " \u00b7 marker lost";
                case "real" -> " \u00b7 real exit";
                case "mock" -> " \u00b7 mocked";
                default -> "";
            };
            s.append("<g class=\"cg-edge e-").append(cls).append("\"><title>").append(esc(e.from())).append(" \u2192 ")
                    .append(esc(e.to())).append(": ").append(e.calls()).append(" calls; marker ")
                    .append(e.marker().name().toLowerCase(Locale.ROOT).replace('_', ' ')).append("; ")
                    .append(e.exit() ? "exit, " + e.mock().name().toLowerCase(Locale.ROOT) : "in scope")
                    .append(e.backEdge() ? "; back edge (cycle)" : "").append("</title><path d=\"").append(path)
                    .append("\" marker-end=\"url(#a-").append(cls).append(")\"/><text x=\"")
                    .append(String.format(Locale.ROOT, "%.0f", lx)).append("\" y=\"").append(String.format(Locale.ROOT, "%.0f", ly))
                    .append("\" text-anchor=\"").append(e.backEdge() ? "middle" : "end").append("\">").append(e.calls()).append(" calls").append(tag).append("</text></g>");
        }
        for (CallGraph.Node n : g.nodes()) {
            double[] p = pos.get(n.id());
            String cls = n.entry() ? "n-entry" : n.inScope() ? "n-scope" : "n-exit";
            String sub = n.entry() ? "entry \u00b7 " + n.service() : n.inScope() ? n.service() : n.service() + " \u00b7 out of scope";
            if (n.hiddenBelow() > 0) {
                sub = "+" + n.hiddenBelow() + " below" + (n.hiddenNote().isEmpty() ? "" : " (" + n.hiddenNote() + ")");
            }
            s.append("<g class=\"cg-node ").append(cls).append("\"><title>").append(esc(n.id()))
                    .append(n.hiddenBelow() > 0 ? "; " + n.hiddenBelow() + " nodes collapsed below" : "")
                    .append("</title><rect x=\"").append((int) p[0]).append("\" y=\"").append((int) p[1]).append("\" width=\"")
                    .append(NODE_W).append("\" height=\"").append(NODE_H).append("\" rx=\"6\"/><text x=\"").append((int) p[0] + 8)
                    .append("\" y=\"").append((int) p[1] + 15).append("\" class=\"cg-label\">").append(esc(shorten(operation(n), LABEL_CHARS)))
                    .append("</text><text x=\"").append((int) p[0] + 8).append("\" y=\"").append((int) p[1] + 30)
                    .append("\" class=\"cg-sub\">").append(esc(shorten(sub, LABEL_CHARS + 4))).append("</text></g>");
        }
        return s.append("</svg>").toString();
    }

    /** The node's operation (its id without the service, which the second line names), or the id. */
    private static String operation(CallGraph.Node n) {
        return n.id().startsWith(n.service() + " ") ? n.id().substring(n.service().length() + 1) : n.id();
    }

    static String shorten(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max - 1) + "\u2026";
    }

    /** CSS of the graph's classes, for the page's style sheet. */
    static String css() {
        return ".callgraph{font:12px system-ui,sans-serif;max-width:100%;height:auto}"
                + ".cg-col{fill:#6b7280;font-size:11px;text-transform:uppercase;letter-spacing:.05em}"
                + ".cg-node rect{fill:#fff;stroke:#9ca3af}.n-entry rect{fill:#e8f0fe;stroke:#1a56db;stroke-width:1.5}"
                + ".n-exit rect{fill:#fff7ed;stroke:#d97706}.cg-label{font-weight:600;fill:#111827}.cg-sub{fill:#6b7280;font-size:11px}"
                + ".cg-edge path{fill:none;stroke:#6b7280;stroke-width:1.5}.cg-edge text{font-size:11px;fill:#374151;"
                + "paint-order:stroke;stroke:#fff;stroke-width:3px}"
                + ".e-lost path{stroke:#c62828;stroke-width:2.5;stroke-dasharray:6 4}.e-lost text{fill:#c62828;font-weight:600}"
                + ".e-real path{stroke:#e65100;stroke-width:3}.e-real text{fill:#e65100;font-weight:600}"
                + ".e-mock path{stroke:#9ca3af;stroke-dasharray:3 3}";
    }
}
