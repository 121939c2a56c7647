package dev.richter.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * A run's events from its stored decision rounds (verdicts table items {@code verdict#<atMs>#<module>}, in time order):
 * an alert is {@code alert-fired} at the first round whose {@code evidence.teamEvidence.alerts} names it and
 * {@code alert-resolved} at the first later round of that module that does not; a round whose {@code verdict} differs
 * from its {@code previous} is {@code verdict-changed}; the abort flag's time and reason close it ({@code abort}).
 */
public final class RunEvents {
    private RunEvents() {}

    /**
     * The events of these verdict items.
     *
     * @param items       verdict items in sort-key (time) order, as DynamoDB returns them
     * @param abortAtMs   when the run's abort flag was set, if it was
     * @param abortReason its reason (ignored without {@code abortAtMs})
     * @return the events in time order (stable: a round's alert events before its verdict change)
     */
    public static List<RunEvent> of(List<Map<String, AttributeValue>> items, OptionalLong abortAtMs, String abortReason) {
        List<RunEvent> out = new ArrayList<>();
        Map<String, Map<String, Long>> firing = new HashMap<>();
        for (Map<String, AttributeValue> item : items) {
            String module = item.get("module").s();
            long atMs = Long.parseLong(item.get("atMs").n());
            String step = item.containsKey("step") ? item.get("step").s() : "";
            Map<String, Long> now = new TreeMap<>();
            if (item.containsKey("evidence")) {
                for (JsonNode a : Json.read(item.get("evidence").s(), JsonNode.class).path("teamEvidence").path("alerts")) {
                    now.put(a.path("name").asText(), a.path("sinceMs").asLong());
                }
            }
            Map<String, Long> before = firing.getOrDefault(module, Map.of());
            now.forEach((name, since) -> {
                if (!before.containsKey(name)) {
                    out.add(new RunEvent(atMs, RunEvent.ALERT_FIRED, module, step, name,
                            since > 0 ? "since " + Instant.ofEpochMilli(since) : ""));
                }
            });
            before.forEach((name, since) -> {
                if (!now.containsKey(name)) out.add(new RunEvent(atMs, RunEvent.ALERT_RESOLVED, module, step, name, ""));
            });
            firing.put(module, now);
            String verdict = item.get("verdict").s();
            String previous = item.containsKey("previous") ? item.get("previous").s() : verdict;
            if (!verdict.equals(previous)) {
                out.add(new RunEvent(atMs, RunEvent.VERDICT_CHANGED, module, step, previous + "→" + verdict,
                        item.containsKey("reason") ? item.get("reason").s() : ""));
            }
        }
        if (abortAtMs.isPresent()) {
            out.add(new RunEvent(abortAtMs.getAsLong(), RunEvent.ABORT, "", "", RunEvent.ABORT, abortReason));
        }
        out.sort(Comparator.comparingLong(RunEvent::atMs));
        return out;
    }
}
