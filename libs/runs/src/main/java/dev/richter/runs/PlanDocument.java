package dev.richter.runs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.model.Expectation;
import dev.richter.common.model.Plan;
import dev.richter.sizing.InFlightSizing;
import dev.richter.sizing.WorkerCapacity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * A plan as a document ({@code openapi.json#/components/schemas/PlanInput}, the body of {@code POST /plans}) and as
 * the {@link Plan} a run uses, both ways: {@link #toPlan} applies the defaults, {@link #fields} gives a plan's
 * document back (valid input again: {@code formal: {steps: [...]}}, absent fields absent rather than null).
 */
public final class PlanDocument {
    /**
     * A plan's {@code perWorkerQps} when it omits it and states no {@code expectedLatencyMs}, requests per second per
     * load-driver worker (one 1769 MB Lambda: one vCPU): what one worker measurably holds,
     * {@link WorkerCapacity#measured()}, read from the one file that keeps the bench's figure with its provenance
     * ({@code libs/sizing/src/main/resources/dev/richter/sizing/worker-capacity.properties}, measured by
     * {@code bench/load-driver.sh}; docs/production-size.md, "Workers sized by measurement"). A plan that states
     * {@code expectedLatencyMs} gets {@link InFlightSizing#defaultPerWorkerQps}: this, lowered to what a worker holds
     * in flight at that latency.
     */
    public static final double DEFAULT_PER_WORKER_QPS = WorkerCapacity.measured().perWorkerQps();
    /** A plan's {@code requestTimeoutMs} when it omits it, milliseconds. */
    public static final int DEFAULT_REQUEST_TIMEOUT_MS = 2000;

    private PlanDocument() {}

    /**
     * The plan a schema-valid {@code POST /plans} body describes, with a new id ({@code plan-<uuid>}), the caller's
     * team, the creation time and the defaults applied: scenario weight 1, {@link Plan.AbortSettings#DEFAULT},
     * {@code perWorkerQps} {@link InFlightSizing#defaultPerWorkerQps} of its {@code expectedLatencyMs} (the measured
     * {@link #DEFAULT_PER_WORKER_QPS} without one), {@code requestTimeoutMs} {@value #DEFAULT_REQUEST_TIMEOUT_MS}.
     * Tools reading plan files (bench/scale.sh) use it to apply the same defaults.
     *
     * @param doc    the body, already valid against {@code openapi.json#/components/schemas/PlanInput}
     * @param teamId the owning team
     */
    public static Plan toPlan(JsonNode doc, String teamId) {
        return toPlan(doc, teamId, "plan-" + UUID.randomUUID(), System.currentTimeMillis());
    }

    /**
     * {@link #toPlan(JsonNode, String)} with a given id and creation time (a replacement keeps both).
     *
     * @param createdAtMs epoch ms
     */
    public static Plan toPlan(JsonNode doc, String teamId, String planId, long createdAtMs) {
        List<Plan.ScenarioSpec> scenarios = new ArrayList<>();
        for (JsonNode s : doc.path("scenarios")) {
            List<Plan.RequestSpec> requests = new ArrayList<>();
            for (JsonNode r : s.path("requests")) {
                Map<String, String> headers = new TreeMap<>();
                r.path("headers").fields().forEachRemaining(e -> headers.put(e.getKey(), e.getValue().asText()));
                requests.add(new Plan.RequestSpec(r.path("method").asText(), r.path("path").asText(), headers,
                        r.hasNonNull("body") ? r.get("body").asText() : null,
                        r.hasNonNull("bodyBase64") ? r.get("bodyBase64").asText() : null, expectation(r.path("expect"))));
            }
            List<Plan.DataBinding> data = new ArrayList<>();
            s.path("data").forEach(b -> data.add(new Plan.DataBinding(b.path("dataSetId").asText(), b.path("mode").asText("unique"))));
            Map<String, String> slots = new TreeMap<>();
            s.path("slots").properties().forEach(e -> slots.put(e.getKey(), e.getValue().asText()));
            scenarios.add(new Plan.ScenarioSpec(s.path("name").asText(), s.path("service").asText(),
                    s.path("weight").asDouble(1.0), requests,
                    s.hasNonNull("trafficSetId") ? s.get("trafficSetId").asText() : null, data, slots,
                    expectation(s.path("expect"))));
        }
        List<Plan.StepSpec> formal = new ArrayList<>();
        doc.path("formal").path("steps").forEach(st -> formal.add(step(st)));
        JsonNode ap = doc.path("abortPolicy");
        Plan.AbortSettings d = Plan.AbortSettings.DEFAULT;
        Plan.AbortSettings policy = new Plan.AbortSettings(ap.path("abortOnDamagedCoreModule").asBoolean(d.abortOnDamagedCoreModule()),
                ap.path("maxErrorRatePct").asDouble(d.maxErrorRatePct()), ap.path("errorRateWindowS").asInt(d.errorRateWindowS()));
        List<String> core = new ArrayList<>();
        doc.path("coreModules").forEach(c -> core.add(c.asText()));
        Integer expectedLatencyMs = doc.hasNonNull("expectedLatencyMs") ? doc.get("expectedLatencyMs").asInt() : null;
        double perWorkerQps = doc.hasNonNull("perWorkerQps") ? doc.get("perWorkerQps").asDouble()
                : InFlightSizing.defaultPerWorkerQps(expectedLatencyMs == null || expectedLatencyMs < 1 ? null : expectedLatencyMs);
        return new Plan(planId, teamId, doc.path("name").asText(), scenarios, step(doc.path("preTest")),
                formal, policy, core, perWorkerQps,
                doc.path("requestTimeoutMs").asInt(DEFAULT_REQUEST_TIMEOUT_MS), createdAtMs, warmUp(doc.path("warmUp")),
                doc.path("preTest").hasNonNull("settleS") ? doc.path("preTest").get("settleS").asInt() : null,
                expectedLatencyMs);
    }

    /** The plan's {@code warmUp} ({@code qps} 0 when absent: the first formal step's), or null when it has none. */
    private static Plan.StepSpec warmUp(JsonNode w) {
        return w.isObject() ? new Plan.StepSpec(w.path("qps").asDouble(0), w.path("durationS").asInt()) : null;
    }

    /**
     * The {@link Expectation} an {@code expect} object states ({@code openapi.json#/components/schemas/Expect}, already
     * valid); {@link Expectation#NONE} for a missing node.
     */
    public static Expectation expectation(JsonNode expect) {
        if (!expect.isObject()) {
            return Expectation.NONE;
        }
        List<Integer> status = new ArrayList<>();
        expect.path("status").forEach(c -> status.add(c.asInt()));
        List<Expectation.JsonCheck> json = new ArrayList<>();
        for (JsonNode c : expect.path("json")) {
            String path = c.path("path").asText();
            if (c.has("equals")) {
                json.add(new Expectation.JsonCheck(path, Expectation.CheckKind.EQUALS, c.get("equals")));
            } else if (c.has("nonEmpty")) {
                json.add(new Expectation.JsonCheck(path, Expectation.CheckKind.NON_EMPTY, null));
            } else if (c.has("matches")) {
                json.add(new Expectation.JsonCheck(path, Expectation.CheckKind.MATCHES, c.get("matches")));
            } else if (c.has("absent")) {
                json.add(new Expectation.JsonCheck(path, c.get("absent").asBoolean()
                        ? Expectation.CheckKind.ABSENT : Expectation.CheckKind.PRESENT, null));
            }
        }
        Map<String, String> headers = new TreeMap<>();
        expect.path("headers").properties().forEach(e -> headers.put(e.getKey(), e.getValue().asText()));
        return new Expectation(status, json, headers, expect.path("maxBytes").asLong(0));
    }

    /** {@code e} as its {@code expect} object (the inverse of {@link #expectation}); absent fields left out. */
    static Map<String, Object> expectDoc(Expectation e) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (!e.status().isEmpty()) {
            m.put("status", e.status());
        }
        if (!e.json().isEmpty()) {
            m.put("json", e.json().stream().map(c -> {
                Map<String, Object> cm = new LinkedHashMap<>();
                cm.put("path", c.path());
                switch (c.kind()) {
                    case EQUALS -> cm.put("equals", c.value());
                    case NON_EMPTY -> cm.put("nonEmpty", true);
                    case MATCHES -> cm.put("matches", c.value().asText());
                    case ABSENT -> cm.put("absent", true);
                    case PRESENT -> cm.put("absent", false);
                }
                return cm;
            }).toList());
        }
        if (!e.headers().isEmpty()) {
            m.put("headers", new TreeMap<>(e.headers()));
        }
        if (e.maxBytes() > 0) {
            m.put("maxBytes", e.maxBytes());
        }
        return m;
    }

    private static Plan.StepSpec step(JsonNode st) {
        return new Plan.StepSpec(st.path("qps").asDouble(), st.path("durationS").asInt());
    }

    /**
     * The fields of {@code POST /plans} that describe {@code p}, defaults applied, in the schema's order: {@code name,
     * scenarios, preTest, warmUp (only when the plan states one), formal, abortPolicy, coreModules, perWorkerQps,
     * requestTimeoutMs, expectedLatencyMs (only when the plan states one)} (no server fields).
     *
     * @return a mutable map, to which a caller may add its own fields
     */
    public static Map<String, Object> fields(Plan p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", p.name());
        m.put("scenarios", p.scenarios().stream().map(PlanDocument::scenario).toList());
        Map<String, Object> preTest = step(p.preTest());
        if (p.preTestSettleS() != null) {
            preTest.put("settleS", p.preTestSettleS());
        }
        m.put("preTest", preTest);
        if (p.warmUp() != null) {
            Map<String, Object> w = new LinkedHashMap<>();
            if (p.warmUp().qps() > 0) {
                w.put("qps", p.warmUp().qps());
            }
            w.put("durationS", p.warmUp().durationS());
            m.put("warmUp", w);
        }
        m.put("formal", Map.of("steps", p.formal().stream().map(PlanDocument::step).toList()));
        Map<String, Object> ap = new LinkedHashMap<>();
        ap.put("abortOnDamagedCoreModule", p.abortPolicy().abortOnDamagedCoreModule());
        ap.put("maxErrorRatePct", p.abortPolicy().maxErrorRatePct());
        ap.put("errorRateWindowS", p.abortPolicy().errorRateWindowS());
        m.put("abortPolicy", ap);
        m.put("coreModules", p.coreModules());
        m.put("perWorkerQps", p.perWorkerQps());
        m.put("requestTimeoutMs", p.requestTimeoutMs());
        if (p.expectedLatencyMs() != null) {
            m.put("expectedLatencyMs", p.expectedLatencyMs());
        }
        return m;
    }

    private static Map<String, Object> scenario(Plan.ScenarioSpec s) {
        Map<String, Object> sm = new LinkedHashMap<>();
        sm.put("name", s.name());
        sm.put("service", s.service());
        sm.put("weight", s.weight());
        List<Map<String, Object>> requests = s.requests().stream().map(r -> {
            Map<String, Object> rm = new LinkedHashMap<>();
            rm.put("method", r.method());
            rm.put("path", r.path());
            if (!r.headers().isEmpty()) {
                rm.put("headers", r.headers());
            }
            if (r.body() != null) {
                rm.put("body", r.body());
            }
            if (r.bodyBase64() != null) {
                rm.put("bodyBase64", r.bodyBase64());
            }
            if (!r.expect().isNone()) {
                rm.put("expect", expectDoc(r.expect()));
            }
            return rm;
        }).toList();
        if (!requests.isEmpty() || s.trafficSetId() == null) {
            sm.put("requests", requests); // a traffic-set scenario has none
        }
        if (s.trafficSetId() != null) {
            sm.put("trafficSetId", s.trafficSetId());
        }
        if (!s.data().isEmpty()) {
            sm.put("data", s.data().stream().map(b -> Map.of("dataSetId", b.dataSetId(), "mode", b.mode())).toList());
        }
        if (!s.slots().isEmpty()) {
            sm.put("slots", s.slots());
        }
        if (!s.expect().isNone()) {
            sm.put("expect", expectDoc(s.expect()));
        }
        return sm;
    }

    private static Map<String, Object> step(Plan.StepSpec s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("qps", s.qps());
        m.put("durationS", s.durationS());
        return m;
    }
}
