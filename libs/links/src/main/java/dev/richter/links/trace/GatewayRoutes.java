package dev.richter.links.trace;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Route templates for server spans that only know their request's raw path: a gateway that proxies
 * {@code /api/customer/owners/1} knows no route of its own (Spring Cloud Gateway's {@code http.route} is the route's
 * id, {@link ServerOperation}), so every owner would be an entry of its own. The service it proxies to does: its server
 * span has {@code http.route} {@code /owners/{ownerId}}. Such a span takes the template of the first server span below
 * it (breadth first, same trace) whose {@code http.route} is a path of the same method and matches the end of its own
 * path, segment by segment (a {@code {name}}, {@code :name} or {@code *} segment matching any one): the gateway's entry
 * becomes {@code GET /api/customer/owners/{ownerId}}, its own prefix kept. A span with no such descendant keeps its raw
 * path, as does one whose own {@code http.route} is a path. The raw path stays in the span's {@code url.path} (or
 * {@code http.target}) attribute: the entry's samples.
 */
public final class GatewayRoutes {
    private GatewayRoutes() {}

    /**
     * @param spans normalized spans of one batch (several traces)
     * @return the same spans in the same order, those of gateways' raw paths with the templated operation
     */
    public static List<Span> templated(List<Span> spans) {
        Map<String, List<Integer>> children = new HashMap<>();
        for (int i = 0; i < spans.size(); i++) {
            Span s = spans.get(i);
            if (s.hasParent()) {
                children.computeIfAbsent(s.traceId() + "/" + s.parentSpanId(), k -> new ArrayList<>()).add(i);
            }
        }
        List<Span> out = new ArrayList<>(spans);
        for (int i = 0; i < spans.size(); i++) {
            Span s = spans.get(i);
            if (s.kind() != SpanKind.SERVER || routeIsPath(s)) {
                continue;
            }
            String[] op = s.operation().split(" ", 2);
            if (op.length != 2 || !op[1].startsWith("/")) {
                continue;
            }
            String templated = templateFromBelow(spans, children, s, op[0], op[1]);
            if (templated != null && !templated.equals(op[1])) {
                out.set(i, new Span(s.traceId(), s.spanId(), s.parentSpanId(), s.links(), s.service(),
                        op[0] + " " + templated, s.kind(), s.peerService(), s.attributes(), s.startEpochNanos(),
                        s.durationNanos(), s.scope()));
            }
        }
        return out;
    }

    private static boolean routeIsPath(Span s) {
        return s.attributes().getOrDefault("http.route", "").startsWith("/");
    }

    private static String templateFromBelow(List<Span> spans, Map<String, List<Integer>> children, Span top,
                                            String method, String path) {
        Deque<Integer> queue = new ArrayDeque<>(children.getOrDefault(top.traceId() + "/" + top.spanId(), List.of()));
        int visited = 0;
        while (!queue.isEmpty() && visited++ < 10_000) {
            Span d = spans.get(queue.poll());
            if (d.kind() == SpanKind.SERVER && routeIsPath(d) && d.operation().startsWith(method + " ")) {
                String templated = withSuffix(path, d.attributes().get("http.route"));
                if (templated != null) {
                    return templated;
                }
            }
            queue.addAll(children.getOrDefault(d.traceId() + "/" + d.spanId(), List.of()));
        }
        return null;
    }

    /** {@code path} with its last segments replaced by {@code route}'s when they match it; null when they do not. */
    static String withSuffix(String path, String route) {
        String[] p = path.replaceAll("/+$", "").split("/", -1);
        String[] r = route.replaceAll("/+$", "").split("/", -1);
        if (r.length > p.length) {
            return null;
        }
        int offset = p.length - r.length;
        for (int i = 1; i < r.length; i++) {
            boolean template = r[i].startsWith("{") && r[i].endsWith("}") || r[i].startsWith(":") || r[i].equals("*");
            if (!template && !r[i].equals(p[offset + i])) {
                return null;
            }
        }
        StringBuilder b = new StringBuilder();
        for (int i = 1; i <= offset; i++) {
            b.append('/').append(p[i]);
        }
        for (int i = 1; i < r.length; i++) {
            b.append('/').append(r[i]);
        }
        return b.length() == 0 ? "/" : b.toString();
    }
}
