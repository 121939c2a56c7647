package dev.richter.probe;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads an Alertmanager API v2 alert list ({@code GET /api/v2/alerts}: a JSON array of {@code gettableAlert}, schema in
 * prometheus/alertmanager {@code api/v2/openapi.yaml}): each alert's {@code labels}, {@code startsAt}, {@code endsAt}
 * (RFC 3339) and {@code status.state} ({@code active}, {@code suppressed}, {@code unprocessed}).
 */
public final class AlertmanagerAlerts {
    private AlertmanagerAlerts() {}

    /**
     * One alert as Alertmanager holds it.
     *
     * @param name       its {@code alertname} label ({@code ?} when absent)
     * @param labels     every label
     * @param state      {@code status.state}
     * @param startsAtMs epoch ms it started firing
     * @param endsAtMs   epoch ms it ends (resolves) unless refreshed; 0 when absent
     */
    public record Alert(String name, Map<String, String> labels, String state, long startsAtMs, long endsAtMs) {
        /** Firing at {@code nowMs}: {@code active} and not yet past its {@code endsAt}. */
        public boolean firingAt(long nowMs) {
            return state.equals("active") && (endsAtMs == 0 || endsAtMs > nowMs);
        }
    }

    /**
     * What one answer held: the alerts read, in its order, and each alert that could not be read, as
     * {@code $[i].field ...} (its position and the field, e.g. {@code $[1].status.state is missing}).
     */
    public record AlertList(List<Alert> alerts, List<String> unreadable) {
        public AlertList {
            alerts = List.copyOf(alerts);
            unreadable = List.copyOf(unreadable);
        }
    }

    /**
     * The alerts of an answer, in its order; an alert without {@code labels}, {@code status.state} or a readable
     * {@code startsAt} (or with an {@code endsAt} that is not RFC 3339) is listed in {@link AlertList#unreadable()} and
     * the others are read.
     *
     * @throws EvidenceAnswerException when there is nothing to read alerts from: not JSON, or not a list
     */
    public static AlertList read(String body) {
        JsonNode root;
        try {
            root = Json.MAPPER.readTree(body);
        } catch (Exception e) {
            throw new EvidenceAnswerException("answer is not JSON: " + String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
        }
        if (root == null || !root.isArray()) {
            throw new EvidenceAnswerException("answer is not a list of alerts");
        }
        List<Alert> out = new ArrayList<>();
        List<String> unreadable = new ArrayList<>();
        for (int i = 0; i < root.size(); i++) {
            try {
                out.add(alert(root.get(i), "$[" + i + "]"));
            } catch (EvidenceAnswerException e) {
                unreadable.add(e.getMessage());
            }
        }
        return new AlertList(out, unreadable);
    }

    /** One alert of the list, at {@code at}; throws {@link EvidenceAnswerException} naming the field it lacks. */
    private static Alert alert(JsonNode a, String at) {
        JsonNode labels = a.path("labels");
        if (!labels.isObject()) {
            throw new EvidenceAnswerException(at + ".labels is missing");
        }
        Map<String, String> l = new TreeMap<>();
        labels.fields().forEachRemaining(e -> l.put(e.getKey(), e.getValue().asText()));
        String state = a.path("status").path("state").asText("");
        if (state.isEmpty()) {
            throw new EvidenceAnswerException(at + ".status.state is missing");
        }
        return new Alert(l.getOrDefault("alertname", "?"), l, state, time(a.path("startsAt"), at + ".startsAt", true),
                time(a.path("endsAt"), at + ".endsAt", false));
    }

    private static long time(JsonNode v, String path, boolean required) {
        if (!v.isTextual() || v.asText().isEmpty()) {
            if (required) throw new EvidenceAnswerException(path + " is missing");
            return 0;
        }
        try {
            return Instant.parse(v.asText()).toEpochMilli();
        } catch (DateTimeParseException e) {
            throw new EvidenceAnswerException(path + ": '" + v.asText() + "' is not an RFC 3339 time");
        }
    }
}
