package dev.richter.checks;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.checks.safety.MiddlewareRule;
import dev.richter.checks.safety.MockDefinition;
import dev.richter.checks.safety.QueueShadowConfig;
import dev.richter.checks.safety.ShadowRegistry;
import dev.richter.links.source.TraceSourceSpec;
import dev.richter.common.Json;
import dev.richter.common.model.TargetAddress;
import dev.richter.common.Repositories;
import dev.richter.links.Exit;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A team's safety configuration: registry item {@value #ITEM_KEY}, written by {@code PUT /safety}
 * (schema {@code SafetyConfig} in {@code libs/runs/src/main/resources/openapi.json}), read by the
 * static and dynamic gates and the nightly check.
 *
 * <p>Document: {@code {"traceSource": {"kind": "directory", "path": "..."}, "exits": [{"service":
 * "payment", "node": "payment POST /charge", "from": "inventory"}], "mocks": [{"exit": "payment POST
 * /charge", "status": 200, "body": "...", "latencyMs": 50}], "shadowTargets": [...], "queues": [...],
 * "middlewareRules": [...], "sboms": {"<service>": {CycloneDX JSON}}}}; every field optional.
 *
 * @param traceSource where the dynamic checks read spans; {@link #hasTraceSource()} false when not configured
 * @param exits the exits annotated mock required (mocks must exist for them; marked traffic must never reach them)
 * @param mocks the exit mocks, in the {@code dev.richter.sdk.ExitMocks} document format ({@code GET /safety/mocks} serves them)
 * @param shadowTargets known storage targets with schema versions; the shadow-storage check runs when non-empty
 * @param queues per-topic shadow switches; the message-queue check runs when non-empty
 * @param middlewareRules version rules; the middleware-version check runs when non-empty
 * @param sbomsByService CycloneDX JSON SBOM bytes per service (for the middleware rules)
 * @param exitAddresses  {@code host:port} of each exit service declared with a {@code baseUrl}, by service name
 *                       ({@link TargetAddress#authority}): the agent extension names the mocks it serves by it
 */
public record SafetyConfig(TraceSourceSpec traceSource, List<Exit> exits, List<MockDefinition> mocks,
                           ShadowRegistry shadowTargets, List<QueueShadowConfig> queues,
                           List<MiddlewareRule> middlewareRules, Map<String, byte[]> sbomsByService,
                           Map<String, String> exitAddresses) {
    /** Registry item key of the configuration (one per team). */
    public static final String ITEM_KEY = Repositories.SAFETY_CONFIG_KEY;
    /** {@link Exit#annotatedBy()} of exits declared in the configuration. */
    public static final String ANNOTATED_BY = "safety-config";
    /** No configuration: no trace source, no exits, no mocks, no optional checks. */
    public static final SafetyConfig NONE = new SafetyConfig(new TraceSourceSpec("", "", "", ""), List.of(), List.of(),
            new ShadowRegistry(List.of()), List.of(), List.of(), Map.of(), Map.of());

    public SafetyConfig {
        exits = List.copyOf(exits);
        mocks = List.copyOf(mocks);
        queues = List.copyOf(queues);
        middlewareRules = List.copyOf(middlewareRules);
        sbomsByService = Map.copyOf(sbomsByService);
        exitAddresses = Map.copyOf(exitAddresses);
    }

    /** True when a trace source is configured. */
    public boolean hasTraceSource() {
        return !traceSource.kind().isEmpty();
    }

    /**
     * Reads the stored document.
     *
     * @throws IllegalArgumentException naming the field when the document is malformed (the API validated it,
     *     so this means a hand-edited item)
     */
    public static SafetyConfig parse(String json) {
        JsonNode d = Json.read(json, JsonNode.class);
        JsonNode ts = d.path("traceSource");
        TraceSourceSpec source = new TraceSourceSpec(ts.path("kind").asText(""), ts.path("path").asText(""),
                ts.path("bucket").asText(""), ts.path("prefix").asText(""));
        List<Exit> exits = new ArrayList<>();
        Map<String, String> addresses = new java.util.LinkedHashMap<>();
        for (JsonNode e : d.path("exits")) {
            String service = e.path("service").asText("").trim();
            if (service.isEmpty()) {
                throw new IllegalArgumentException("exits[" + exits.size() + "].service: required");
            }
            String node = e.path("node").asText(service).trim();
            String from = e.path("from").asText("").trim();
            exits.add(new Exit(from, from, service, node.isEmpty() ? service : node, 0, 0, true, false, ANNOTATED_BY));
            if (e.path("baseUrl").isTextual()) {
                try {
                    addresses.putIfAbsent(service, TargetAddress.of(e.path("baseUrl").asText()).authority());
                } catch (IllegalArgumentException malformed) {
                    throw new IllegalArgumentException("exits[" + (exits.size() - 1) + "].baseUrl: " + malformed.getMessage());
                }
            }
        }
        List<MockDefinition> mocks = d.has("mocks")
                ? MockDefinition.parseDocument(Json.write(Map.of("mocks", d.get("mocks"))).getBytes(StandardCharsets.UTF_8))
                : List.of();
        List<ShadowRegistry.StorageTarget> targets = new ArrayList<>();
        for (JsonNode t : d.path("shadowTargets")) {
            targets.add(new ShadowRegistry.StorageTarget(t.path("kind").asText(""), t.path("name").asText(""),
                    t.path("schemaVersion").asText("")));
        }
        List<QueueShadowConfig> queues = new ArrayList<>();
        for (JsonNode q : d.path("queues")) {
            queues.add(new QueueShadowConfig(q.path("service").asText(""), q.path("topic").asText(""),
                    q.path("shadowSwitchOn").asBoolean(false), q.path("shadowTopic").asText("")));
        }
        List<MiddlewareRule> rules = new ArrayList<>();
        for (JsonNode r : d.path("middlewareRules")) {
            rules.add(new MiddlewareRule(r.path("component").asText(""), r.path("range").asText(""), r.path("note").asText("")));
        }
        Map<String, byte[]> sboms = new LinkedHashMap<>();
        d.path("sboms").properties().forEach(e -> sboms.put(e.getKey(), Json.write(e.getValue()).getBytes(StandardCharsets.UTF_8)));
        return new SafetyConfig(source, exits, mocks, new ShadowRegistry(targets), queues, rules, sboms, addresses);
    }
}
