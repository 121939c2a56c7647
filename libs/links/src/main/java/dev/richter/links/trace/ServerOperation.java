package dev.richter.links.trace;

import java.util.Map;

/**
 * The operation of an OTLP SERVER span as an entry names it, {@code METHOD /path}, where the span's own name says
 * less. The HTTP semantic conventions name a server span {@code {method} {target}}, where the target is {@code
 * http.route} when one is known; gateways fill {@code http.route} with their route's id (Spring Cloud Gateway: {@code
 * POST orders} for the route {@code orders}), which no plan entry ({@code gateway POST /orders}) can match. Such a name
 * is read as {@code METHOD} and the request's path instead: {@code http.route} when it is a path, else {@code url.path}
 * (stable semconv), else {@code http.target} without its query (old semconv).
 *
 * <p>Names already of the form {@code METHOD /...}, non-HTTP server spans (no path attribute), and spans of every
 * other kind keep their names.
 */
public final class ServerOperation {
    private ServerOperation() {}

    /**
     * @param kind       the span's kind
     * @param name       the span's name, e.g. {@code POST orders}
     * @param attributes its attributes as strings
     * @return the operation, e.g. {@code POST /orders}; {@code name} when it already names a path or no path is known
     */
    public static String of(SpanKind kind, String name, Map<String, String> attributes) {
        if (kind != SpanKind.SERVER) {
            return name;
        }
        int space = name.indexOf(' ');
        if (space <= 0 || space == name.length() - 1 || name.charAt(space + 1) == '/' || name.indexOf(' ', space + 1) >= 0) {
            return name;
        }
        String method = name.substring(0, space);
        if (!method.chars().allMatch(c -> c >= 'A' && c <= 'Z')) {
            return name;
        }
        String route = attributes.getOrDefault("http.route", "");
        String path = route.startsWith("/") ? route : attributes.getOrDefault("url.path", "");
        if (!path.startsWith("/")) {
            String target = attributes.getOrDefault("http.target", "");
            int query = target.indexOf('?');
            path = query < 0 ? target : target.substring(0, query);
        }
        return path.startsWith("/") ? method + " " + path : name;
    }
}
