package dev.richter.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import dev.richter.links.datastore.DiscoveredDatastore;
import dev.richter.links.middleware.MiddlewareUse;
import dev.richter.runs.PlanDocument;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The JSON documents the API answers with (shapes in {@code openapi.json}). A plan or a service read back is valid
 * input to the route that wrote it: the document is the input's shape ({@code formal: {steps: [...]}}, absent fields
 * absent rather than null) plus read-only server fields, which input ignores.
 */
final class Documents {
    private Documents() {}

    /**
     * A plan as the API shows it: {@code planId}, {@code teamId}, {@code version}, {@code createdAtMs},
     * {@code updatedAtMs} (read-only), then the fields of {@code POST /plans} with their defaults applied.
     */
    static Map<String, Object> plan(PlanStore.Versioned v) {
        Plan p = v.plan();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("planId", p.planId());
        m.put("teamId", p.teamId());
        m.put("version", v.version());
        m.put("createdAtMs", p.createdAtMs());
        m.put("updatedAtMs", v.updatedAtMs());
        m.putAll(PlanDocument.fields(p));
        return m;
    }

    /** A registered service: {@code teamId} (read-only), then the fields of {@code POST /services}; absent ones absent. */
    /** A discovered datastore as {@code GET /services/{name}} answers it ({@code DiscoveredDatastore} in openapi.json). */
    static Map<String, Object> discoveredDatastore(DiscoveredDatastore d) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kind", d.kind());
        m.put("name", d.name());
        m.put("system", d.system());
        if (!d.namespace().isEmpty()) {
            m.put("namespace", d.namespace());
        }
        m.put("writes", d.writes());
        m.put("lastSeenMs", d.lastSeenMs());
        return m;
    }

    /** A middleware use as {@code GET /services/{name}} answers it ({@code MiddlewareUse} in openapi.json). */
    static Map<String, Object> middlewareUse(MiddlewareUse u) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("library", u.library());
        if (!u.versions().isEmpty()) {
            m.put("versions", u.versions());
        }
        m.put("role", u.role());
        if (!u.scopeName().isEmpty()) {
            m.put("scopeName", u.scopeName());
        }
        if (!u.scopeVersion().isEmpty()) {
            m.put("scopeVersion", u.scopeVersion());
        }
        if (!u.system().isEmpty()) {
            m.put("system", u.system());
        }
        m.put("guarded", u.guarded());
        m.put("seenOnMarkedTraffic", u.seenMarked());
        m.put("calls", u.calls());
        m.put("markedCalls", u.markedCalls());
        m.put("markedCallsIsolated", u.markedCallsIsolated());
        m.put("lastSeenMs", u.lastSeenMs());
        return m;
    }

    static Map<String, Object> service(RegisteredService s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("teamId", s.teamId());
        m.put("name", s.name());
        m.put("baseUrl", s.baseUrl());
        if (s.healthPath() != null) {
            m.put("healthPath", s.healthPath());
        }
        if (s.prometheusPath() != null) {
            m.put("prometheusPath", s.prometheusPath());
        }
        m.put("datastores", s.datastores());
        if (s.caPem() != null) {
            m.put("caPem", s.caPem());
        }
        if (s.grpc() != null) {
            m.put("grpc", s.grpc());
        }
        return m;
    }

    /**
     * A run in a list: {@code runId, planId, planVersion, status, outcome, createdAtMs, abortRequested}, and once its
     * report measured it, {@code capacityQps} (requests per second) and {@code capacityReached} (false: at least that).
     */
    static Map<String, Object> runSummary(Map<String, AttributeValue> item) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("runId", text(item, "runId"));
        m.put("planId", text(item, "planId"));
        m.put("planVersion", number(item, "planVersion", 1));
        m.put("status", text(item, "status"));
        m.put("outcome", text(item, "outcome"));
        m.put("createdAtMs", number(item, "createdAtMs", 0));
        m.put("abortRequested", item.containsKey("abortRequested") && Boolean.TRUE.equals(item.get("abortRequested").bool()));
        if (item.containsKey("capacityQps")) {
            m.put("capacityQps", Double.parseDouble(item.get("capacityQps").n()));
            m.put("capacityReached", item.containsKey("capacityReached") && Boolean.TRUE.equals(item.get("capacityReached").bool()));
        }
        if (item.containsKey("startAtMs")) {
            m.put("startAt", java.time.Instant.ofEpochMilli(number(item, "startAtMs", 0)).toString());
        }
        return m;
    }

    /** An audit entry: {@code at} (ISO-8601), {@code action}, {@code caller}, {@code target}, {@code before}, {@code after}. */
    static Map<String, Object> auditEntry(Map<String, AttributeValue> item) {
        String sk = text(item, "sk");
        long atMs = Long.parseLong(sk.substring(0, sk.indexOf('#')));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("at", Instant.ofEpochMilli(atMs).toString());
        m.put("action", text(item, "action"));
        m.put("caller", text(item, "caller"));
        m.put("target", text(item, "target"));
        m.put("before", json(text(item, "before")));
        m.put("after", json(text(item, "after")));
        return m;
    }

    private static JsonNode json(String text) {
        return text.isEmpty() ? null : Json.read(text, JsonNode.class);
    }

    static String text(Map<String, AttributeValue> item, String name) {
        AttributeValue v = item.get(name);
        return v == null || v.s() == null ? "" : v.s();
    }

    static long number(Map<String, AttributeValue> item, String name, long fallback) {
        AttributeValue v = item.get(name);
        return v == null || v.n() == null ? fallback : Long.parseLong(v.n());
    }

    /** The services named in a run item's {@code leasedServices} (comma-separated). */
    static List<String> leasedServices(Map<String, AttributeValue> item) {
        String s = text(item, "leasedServices");
        return s.isEmpty() ? List.of() : List.of(s.split(","));
    }
}
