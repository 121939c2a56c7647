package dev.richter.checks.safety;

import dev.richter.common.model.RegisteredService;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.SpanKind;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A service producing to or consuming from a topic or queue.
 *
 * @param service service name
 * @param topic production topic / queue name
 * @param direction produce or consume
 */
public record QueueUsage(String service, String topic, Direction direction) {
    /** Which side of the topic the service is on. */
    public enum Direction { PRODUCE, CONSUME }

    /** Span attributes naming the destination, current semantic conventions first. */
    static final List<String> DESTINATION_ATTRIBUTES = List.of("messaging.destination.name", "messaging.destination");

    /**
     * Usages declared in the registry: every datastore of kind {@code topic} or {@code queue} is a
     * topic the service produces to (datastores are what a service writes).
     */
    public static List<QueueUsage> fromRegistry(List<RegisteredService> services) {
        Set<QueueUsage> out = new LinkedHashSet<>();
        for (RegisteredService s : services) {
            for (RegisteredService.Datastore d : s.datastores()) {
                String kind = d.kind() == null ? "" : d.kind().toLowerCase(Locale.ROOT);
                if ((kind.equals("topic") || kind.equals("queue")) && d.production() != null && !d.production().isBlank()) {
                    out.add(new QueueUsage(s.name(), d.production().trim(), Direction.PRODUCE));
                }
            }
        }
        return new ArrayList<>(out);
    }

    /**
     * Usages observed in traces: PRODUCER spans produce, CONSUMER spans consume, for scope services,
     * with the destination from {@code messaging.destination.name} (or the older {@code messaging.destination}).
     */
    public static List<QueueUsage> fromSpans(List<Span> spans, Set<String> scopeServices) {
        Set<QueueUsage> out = new LinkedHashSet<>();
        for (Span s : spans) {
            if (!scopeServices.contains(s.service())
                    || (s.kind() != SpanKind.PRODUCER && s.kind() != SpanKind.CONSUMER)) {
                continue;
            }
            for (String a : DESTINATION_ATTRIBUTES) {
                String topic = s.attributes().getOrDefault(a, "").trim();
                if (!topic.isEmpty()) {
                    out.add(new QueueUsage(s.service(), topic,
                            s.kind() == SpanKind.PRODUCER ? Direction.PRODUCE : Direction.CONSUME));
                    break;
                }
            }
        }
        return new ArrayList<>(out);
    }
}
