package dev.richter.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.AuditLog;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.runs.InputProblem;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.TargetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code /safety}: the team's safety configuration ({@code SafetyConfig} in openapi.json: shadow storage, exit mocks,
 * ...), which the checks function reads, its exit mocks for {@code dev.richter.sdk.ExitMocks}, and the isolation the
 * agent extension enforces ({@link #isolation}).
 */
final class SafetyResource {
    /** Registry item of a team's safety configuration (the checks function's {@code SafetyConfig.ITEM_KEY}). */
    static final String SAFETY_ITEM_KEY = Repositories.SAFETY_CONFIG_KEY;

    private final Repositories repositories;
    private final AuditLog audit;
    private final InputValidator validator;

    SafetyResource(Repositories repositories, AuditLog audit, InputValidator validator) {
        this.repositories = repositories;
        this.audit = audit;
        this.validator = validator;
    }

    /**
     * {@code PUT /safety}: stores the team's safety configuration, replacing the previous one: 201 when new, 200 when
     * replaced; audited with before and after.
     *
     * @throws ApiException 400 {@code ValidationFailed}: the schema's problems, {@code $.mocks[i].exit} naming the
     *                      exit of an earlier mock, or a trace source the checks could not read
     *                      ({@link #traceSourceProblem})
     */
    ApiResponse put(ApiRequest req) {
        JsonNode doc = validator.parse("SafetyConfig", req.body());
        List<InputProblem> problems = new ArrayList<>();
        JsonNode mocks = doc.path("mocks");
        for (int i = 0; i < mocks.size(); i++) {
            for (int j = 0; j < i; j++) {
                if (mocks.get(i).path("exit").asText().trim().equals(mocks.get(j).path("exit").asText().trim())) {
                    problems.add(new InputProblem("$.mocks[" + i + "].exit", "duplicate of $.mocks[" + j + "].exit"));
                }
            }
        }
        JsonNode exits = doc.path("exits");
        for (int i = 0; i < exits.size(); i++) {
            JsonNode baseUrl = exits.get(i).path("baseUrl");
            if (baseUrl.isTextual()) {
                try {
                    TargetAddress.of(baseUrl.asText());
                } catch (IllegalArgumentException e) {
                    problems.add(new InputProblem("$.exits[" + i + "].baseUrl", e.getMessage()));
                }
            }
        }
        traceSourceProblem(doc.path("traceSource")).ifPresent(problems::add);
        if (!problems.isEmpty()) {
            throw ApiException.validationFailed(problems);
        }
        JsonNode before = config(req.teamId());
        repositories.putRegistryDoc(req.teamId(), SAFETY_ITEM_KEY, doc);
        audit.record(req.teamId(), req.caller(), "PutSafetyConfig", SAFETY_ITEM_KEY, before, doc);
        return ApiResponse.json(before == null ? 201 : 200, doc);
    }

    /**
     * Why the checks could not read {@code traceSource}, found when it is given rather than at the run's pre-test: a
     * {@code directory} that does not exist, is not a directory, or cannot be read on Richter's file system (the API
     * and the checks function see the same one: the local stack's, or the same EFS mount on AWS), at
     * {@code $.traceSource.path}; kind {@code s3}, not implemented, at {@code $.traceSource.kind}. An {@code xray}
     * source is read with the checks function's own role, so it is tried when the checks first read it, and a failure
     * is that check's FAIL with the reason.
     */
    static java.util.Optional<InputProblem> traceSourceProblem(JsonNode source) {
        String kind = source.path("kind").asText("");
        if (kind.equals("s3")) {
            return java.util.Optional.of(new InputProblem("$.traceSource.kind",
                    "kind s3 is not implemented yet: use directory or xray"));
        }
        if (!kind.equals("directory") || !source.path("path").isTextual()) {
            return java.util.Optional.empty();
        }
        String path = source.path("path").asText().trim();
        java.nio.file.Path dir;
        try {
            dir = java.nio.file.Path.of(path);
        } catch (java.nio.file.InvalidPathException e) {
            return java.util.Optional.of(new InputProblem("$.traceSource.path", "is not a path: " + e.getReason()));
        }
        if (!java.nio.file.Files.exists(dir)) {
            return java.util.Optional.of(new InputProblem("$.traceSource.path", path + " does not exist on Richter's"
                    + " file system, so the checks could read no span from it"));
        }
        if (!java.nio.file.Files.isDirectory(dir)) {
            return java.util.Optional.of(new InputProblem("$.traceSource.path", path + " is not a directory"));
        }
        if (!java.nio.file.Files.isReadable(dir)) {
            return java.util.Optional.of(new InputProblem("$.traceSource.path", path + " cannot be read by Richter"));
        }
        return java.util.Optional.empty();
    }

    /** {@code GET /safety}: 200 with the team's configuration; 404 when it has none. */
    ApiResponse get(ApiRequest req) {
        JsonNode doc = config(req.teamId());
        if (doc == null) {
            throw new ApiException(404, "NotFound", "team " + req.teamId() + " has no safety configuration (PUT /safety)");
        }
        return ApiResponse.json(200, doc);
    }

    /** {@code GET /safety/mocks}: the team's exit mocks, {@code {"mocks":[...]}}, empty when none are configured. */
    ApiResponse mocks(ApiRequest req) {
        JsonNode doc = config(req.teamId());
        Object mocks = doc == null || !doc.path("mocks").isArray() ? List.of() : doc.get("mocks");
        return ApiResponse.json(200, Map.of("mocks", mocks));
    }

    /** How often the agent extension fetches its configuration again when the team sets none, seconds. */
    static final int DEFAULT_ISOLATION_REFRESH_S = 30;

    /**
     * {@code GET /safety/isolation[?service=<name>]}: what the Richter extension of the OpenTelemetry Java agent
     * enforces in a service's JVM ({@code Isolation} in openapi.json), from the team's registry and safety
     * configuration:
     * <ul>
     *   <li>{@code mode}: {@code isolation.mode}, {@code enforce} unless the team chose {@code report};</li>
     *   <li>{@code refreshS}: {@code isolation.refreshS}, else {@value #DEFAULT_ISOLATION_REFRESH_S};</li>
     *   <li>{@code scope}: the {@code host:port} of every service the team registered ({@link TargetAddress}), in
     *       order, each once: the only places marked calls may reach;</li>
     *   <li>{@code mocks}: the exit mocks of {@code PUT /safety}; a mock whose exit id starts with the service of an
     *       exit declared with a {@code baseUrl} (e.g. {@code payment POST /charge}, exit {@code {"service":
     *       "payment", "baseUrl": "http://10.0.3.7:8083"}}) is served under the address the clients call ({@code
     *       10.0.3.7:8083 POST /charge}), the form the extension matches ({@link #addressed});</li>
     *   <li>{@code shadows}: {@code {kind, production, shadow, service}} of the registered datastores, of the named
     *       service or of every service of the team;</li>
     *   <li>{@code marker}: {@code {team, keys}}, the team's marker keys ({@code Repositories.ensureMarkerKeys},
     *       created on first use), newest first: the extension counts a marker only with a proof one of them signed.
     *       The document is read with the team's JWT or its isolation token, as its keys are the team's.</li>
     * </ul>
     * A read naming a {@code service} is recorded as that service's evidence that the team runs it
     * ({@code Repositories.recordIsolationLoad}; the {@code target-owned} check).
     *
     * @throws ApiException 404 when {@code service} names no service of the team
     */
    ApiResponse isolation(ApiRequest req) {
        String only = req.query().get("service");
        List<RegisteredService> services = repositories.listServices(req.teamId());
        if (only != null && services.stream().noneMatch(s -> s.name().equals(only))) {
            throw ApiException.notFound("service", only);
        }
        if (only != null) {
            // evidence that the team runs this service: its own extension, holding the team's token, loaded this
            // (the target-owned check reads it before a formal step)
            repositories.recordIsolationLoad(req.teamId(), only, System.currentTimeMillis());
        }
        JsonNode doc = config(req.teamId());
        JsonNode settings = doc == null ? Json.MAPPER.createObjectNode() : doc.path("isolation");
        Set<String> scope = new TreeSet<>();
        List<Map<String, String>> shadows = new ArrayList<>();
        for (RegisteredService s : services) {
            try {
                scope.add(TargetAddress.of(s.baseUrl()).authority());
            } catch (IllegalArgumentException unloadable) {
                // registered before URLs were checked: no run can load it (PlanValidator), so it is no scope either
            }
            if (only != null && !s.name().equals(only)) {
                continue;
            }
            for (RegisteredService.Datastore d : s.datastores()) {
                shadows.add(Map.of("kind", d.kind(), "production", d.production(), "shadow", d.shadow(), "service", s.name()));
            }
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("mode", settings.path("mode").asText("enforce"));
        body.put("refreshS", settings.path("refreshS").asInt(DEFAULT_ISOLATION_REFRESH_S));
        body.put("scope", List.copyOf(scope));
        body.put("mocks", doc == null || !doc.path("mocks").isArray() ? List.of() : addressed(doc.get("mocks"), doc.path("exits")));
        body.put("shadows", shadows);
        body.put("marker", Map.of("team", req.teamId(), "keys", repositories.ensureMarkerKeys(req.teamId())));
        return ApiResponse.json(200, body);
    }

    /**
     * {@code mocks} with each exit id that names a service of {@code exits} by name (its first word, or the part
     * before its first {@code /}) rewritten to that exit's {@code baseUrl} address ({@link TargetAddress#authority}):
     * {@code payment POST /charge} → {@code 10.0.3.7:8083 POST /charge}, {@code payment/v1/charges} → {@code
     * 10.0.3.7:8083/v1/charges}, {@code payment} → {@code 10.0.3.7:8083}. Other ids are kept as they are.
     */
    static JsonNode addressed(JsonNode mocks, JsonNode exits) {
        Map<String, String> addressOf = new LinkedHashMap<>();
        for (JsonNode e : exits) {
            if (e.path("baseUrl").isTextual()) {
                try {
                    addressOf.putIfAbsent(e.path("service").asText(), TargetAddress.of(e.path("baseUrl").asText()).authority());
                } catch (IllegalArgumentException stale) {
                    // stored before baseUrl was checked: its mocks keep their ids
                }
            }
        }
        var out = Json.MAPPER.createArrayNode();
        for (JsonNode m : mocks) {
            String id = m.path("exit").asText().trim();
            int end = 0;
            while (end < id.length() && !Character.isWhitespace(id.charAt(end)) && id.charAt(end) != '/') {
                end++;
            }
            String address = addressOf.get(id.substring(0, end));
            if (address == null || !m.isObject()) {
                out.add(m);
            } else {
                out.add(((com.fasterxml.jackson.databind.node.ObjectNode) m.deepCopy()).put("exit", address + id.substring(end)));
            }
        }
        return out;
    }

    /** The stored safety configuration of the team, or null when it has none. */
    private JsonNode config(String teamId) {
        List<String> docs = repositories.latestRegistryDocs(teamId, SAFETY_ITEM_KEY, 1);
        return docs.isEmpty() ? null : Json.read(docs.get(0), JsonNode.class);
    }
}
