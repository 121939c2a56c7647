package dev.richter.links.middleware;

import dev.richter.common.model.Marker;
import dev.richter.common.model.MarkerAttributes;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.SpanKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The clients, stores and servers each service really uses, read from its spans: the instrumentation scope that
 * recorded each span, its kind, and {@code db.system}, {@code messaging.system}, {@code rpc.system}, classified by
 * {@link GuardedMiddleware}.
 *
 * <p>Marked traffic is every span of a trace that holds a span carrying the marker ({@link MarkerAttributes}), as the
 * {@code isolation-enforced} check reads it. A marked call of an HTTP or RPC client counts as isolated when a SERVER
 * span whose parent is the call's span belongs to a service {@code inScope} accepts and carries {@value
 * #ISOLATION_ACTIVE}{@code =true}, the extension's proof that its isolation runs in that JVM (agent/README.md).
 */
public final class MiddlewareInventory {
    /** The extension's proof on a span that its isolation runs in the span's JVM ({@code true}). */
    public static final String ISOLATION_ACTIVE = "richter.isolation.active";

    private MiddlewareInventory() {}

    /**
     * @param spans normalized spans of one batch (a trace file, a pre-test window)
     * @param marker the team's marker
     * @param inScope which services count as in scope for a callee's proof (the test scope; at ingest, before any
     *     scope is known, every service)
     * @return one entry per service, library and scope, in order of first sighting
     */
    public static List<MiddlewareUse> of(List<Span> spans, Marker marker, Predicate<String> inScope) {
        Set<String> markedTraces = new HashSet<>();
        Map<String, List<Span>> children = new HashMap<>();
        for (Span s : spans) {
            if (MarkerAttributes.carries(s.attributes(), marker)) {
                markedTraces.add(s.traceId());
            }
            if (s.hasParent()) {
                children.computeIfAbsent(s.traceId() + '/' + s.parentSpanId(), k -> new ArrayList<>()).add(s);
            }
        }
        Map<String, MiddlewareUse> out = new LinkedHashMap<>();
        for (Span s : spans) {
            Optional<GuardedMiddleware.Library> found = GuardedMiddleware.classify(s);
            if (found.isEmpty()) {
                continue;
            }
            GuardedMiddleware.Library lib = found.get();
            boolean marked = markedTraces.contains(s.traceId());
            boolean isolated = marked && lib.role().callsAService()
                    && children.getOrDefault(s.traceId() + '/' + s.spanId(), List.of()).stream()
                            .anyMatch(c -> c.kind() == SpanKind.SERVER && inScope.test(c.service())
                                    && "true".equals(c.attributes().getOrDefault(ISOLATION_ACTIVE, "").strip()));
            MiddlewareUse use = new MiddlewareUse(s.service(), lib.library(), lib.versions(), lib.role().text(),
                    s.scope().name(), s.scope().version(), GuardedMiddleware.system(s), lib.guarded(), 1, marked ? 1 : 0,
                    isolated ? 1 : 0, s.startEpochNanos() / 1_000_000L);
            out.merge(use.key(), use, MiddlewareUse::merge);
        }
        return new ArrayList<>(out.values());
    }
}
