package dev.richter.probe;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads a health endpoint's body in the three Spring Boot Actuator shapes:
 * Boot 2.2+ / 3 ({@code {"status", "components": {name: {status, components?, details?}}}}),
 * Boot 2.0–2.1 ({@code {"status", "details": {name: {status, details?}}}}) and Boot 1 (flat:
 * {@code {"status", name: {status, ...}}}). A component is any object with a status. A status is a string, or an
 * object whose {@code code} is one: Spring Boot's {@code Status} as a custom JSON mapper (fastjson, a Gson adapter)
 * writes it, {@code {"code": "DOWN", "description": "..."}} (codecentric/spring-boot-admin#1076, corpus bug 37).
 *
 * <p>The body decides, not the status line (spring-boot#1264: a DOWN indicator answered 200).
 * Spring Boot's default status mapping: {@code DOWN} and {@code OUT_OF_SERVICE} are failures,
 * {@code UP} and {@code UNKNOWN} (and custom statuses) are not.
 */
public final class ActuatorHealth {
    /** Statuses that make the module unhealthy (Spring Boot maps them to HTTP 503). */
    public static final Set<String> FAILING_STATUSES = Set.of("DOWN", "OUT_OF_SERVICE");

    /**
     * What a health body says.
     *
     * @param status            the top-level status, upper case, e.g. {@code DOWN}
     * @param failingComponents every component whose status is not {@code UP}, as a slash-separated path
     *                          from the top, depth first, e.g. {@code ["sub-1", "sub-1/sub-1-2"]}
     */
    public record Body(String status, List<String> failingComponents) {
        public Body {
            failingComponents = List.copyOf(failingComponents);
        }

        /** True unless the status is one of {@link #FAILING_STATUSES}. */
        public boolean healthy() {
            return !FAILING_STATUSES.contains(status);
        }
    }

    private ActuatorHealth() {}

    /**
     * Parses a health body.
     *
     * @param body response body (JSON expected)
     * @return the status and non-UP components; empty when the body is not JSON or has no top-level status
     */
    public static Optional<Body> parse(String body) {
        JsonNode root;
        try {
            root = Json.MAPPER.readTree(body);
        } catch (Exception e) {
            return Optional.empty();
        }
        Optional<String> status = root == null || !root.isObject() ? Optional.empty() : statusOf(root);
        if (status.isEmpty()) {
            return Optional.empty();
        }
        List<String> failing = new ArrayList<>();
        collect(root, "", failing);
        return Optional.of(new Body(status.get().toUpperCase(Locale.ROOT), failing));
    }

    /** The status of a component: its {@code status} text, or the text {@code code} of a status object. */
    private static Optional<String> statusOf(JsonNode component) {
        JsonNode s = component.path("status");
        if (s.isTextual()) {
            return Optional.of(s.asText());
        }
        if (s.isObject() && s.path("code").isTextual()) {
            return Optional.of(s.get("code").asText());
        }
        return Optional.empty();
    }

    /** Walks the children of {@code node} (components, details, or flat fields) that are components. */
    private static void collect(JsonNode node, String path, List<String> failing) {
        for (String container : List.of("components", "details")) {
            JsonNode c = node.get(container);
            if (c != null && c.isObject()) {
                walkChildren(c, path, failing);
            }
        }
        walkChildren(node, path, failing); // Boot 1 flat shape
    }

    private static void walkChildren(JsonNode obj, String path, List<String> failing) {
        Iterator<Map.Entry<String, JsonNode>> it = obj.fields();
        while (it.hasNext()) {
            var e = it.next();
            JsonNode child = e.getValue();
            if (e.getKey().equals("components") || e.getKey().equals("details") || e.getKey().equals("status")) continue;
            Optional<String> status = child.isObject() ? statusOf(child) : Optional.empty();
            if (status.isEmpty()) continue;
            String childPath = path.isEmpty() ? e.getKey() : path + "/" + e.getKey();
            if (!"UP".equalsIgnoreCase(status.get())) {
                failing.add(childPath);
            }
            collect(child, childPath, failing);
        }
    }
}
