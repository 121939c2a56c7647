package dev.richter.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.AuditLog;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.net.AllowedNetworks;
import dev.richter.common.model.EvidenceSources;
import dev.richter.common.model.TargetAddress;
import dev.richter.runs.InputProblem;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code /evidence-sources}: where the team's own alerts and business metrics live ({@code EvidenceSources} in
 * openapi.json, {@link EvidenceSources}); every step of the team's runs reads them. A write replaces the whole set and
 * is audited with before and after.
 */
final class EvidenceSourceResource {
    private final Repositories repositories;
    private final AuditLog audit;
    private final InputValidator validator;
    private final AllowedNetworks networks;

    EvidenceSourceResource(Repositories repositories, AuditLog audit, InputValidator validator, AllowedNetworks networks) {
        this.networks = networks;
        this.repositories = repositories;
        this.audit = audit;
        this.validator = validator;
    }

    /**
     * {@code PUT /evidence-sources}: stores the team's sources: 201 when it had none, 200 when replaced.
     *
     * @throws ApiException 400 {@code ValidationFailed}: the schema's problems; a {@code url} that cannot be loaded
     *                      ({@link TargetAddress#of}) or whose host the deployment's networks refuse ({@link
     *                      AllowedNetworks#registrationRefusal}); a source {@code name} used twice ({@code $.alertmanager[1].name});
     *                      a query {@code name} used twice for one module ({@code $.prometheus[0].queries[2].name})
     */
    ApiResponse put(ApiRequest req) {
        JsonNode doc = validator.parse("EvidenceSources", req.body(), this::problems);
        EvidenceSources in = Json.MAPPER.convertValue(doc, EvidenceSources.class);
        EvidenceSources sources = new EvidenceSources(req.teamId(), in.prometheus(), in.alertmanager(), in.cloudwatch());
        EvidenceSources before = repositories.evidenceSources(req.teamId());
        boolean had = !before.prometheus().isEmpty() || !before.alertmanager().isEmpty() || before.cloudwatch() != null;
        repositories.putEvidenceSources(sources);
        audit.record(req.teamId(), req.caller(), "PutEvidenceSources", Repositories.EVIDENCE_SOURCES_KEY,
                had ? document(before) : null, document(sources));
        return ApiResponse.json(had ? 200 : 201, document(sources));
    }

    /** {@code GET /evidence-sources}: 200 with the team's sources; 404 when it registered none. */
    ApiResponse get(ApiRequest req) {
        EvidenceSources s = repositories.evidenceSources(req.teamId());
        if (s.prometheus().isEmpty() && s.alertmanager().isEmpty() && s.cloudwatch() == null) {
            throw new ApiException(404, "NotFound", "team " + req.teamId() + " has no evidence sources (PUT /evidence-sources)");
        }
        return ApiResponse.json(200, document(s));
    }

    /** The API's form: the stored sources without {@code teamId} and without absent (null) fields. */
    private static JsonNode document(EvidenceSources s) {
        var node = Json.MAPPER.valueToTree(s);
        ((com.fasterxml.jackson.databind.node.ObjectNode) node).remove("teamId");
        stripNulls(node);
        return node;
    }

    private static void stripNulls(JsonNode n) {
        if (n instanceof com.fasterxml.jackson.databind.node.ObjectNode o) {
            List<String> gone = new ArrayList<>();
            o.fields().forEachRemaining(e -> {
                if (e.getValue().isNull()) gone.add(e.getKey());
                else stripNulls(e.getValue());
            });
            o.remove(gone);
        } else if (n.isArray()) {
            n.forEach(EvidenceSourceResource::stripNulls);
        }
    }

    /** URLs that cannot be loaded and names used twice, each at its path. */
    private List<InputProblem> problems(JsonNode doc) {
        List<InputProblem> out = new ArrayList<>();
        Map<String, String> sourceNames = new HashMap<>();
        for (String kind : List.of("prometheus", "alertmanager")) {
            JsonNode list = doc.path(kind);
            for (int i = 0; i < list.size(); i++) {
                String at = "$." + kind + "[" + i + "]";
                JsonNode url = list.get(i).path("url");
                if (url.isTextual()) {
                    try {
                        networks.registrationRefusal(TargetAddress.of(url.asText()).host())
                                .ifPresent(r -> out.add(new InputProblem(at + ".url", r)));
                    } catch (IllegalArgumentException e) {
                        out.add(new InputProblem(at + ".url", e.getMessage()));
                    }
                }
                String name = list.get(i).path("name").asText("");
                String first = sourceNames.putIfAbsent(name, at + ".name");
                if (first != null && !name.isEmpty()) out.add(new InputProblem(at + ".name", "duplicate of " + first));
                JsonNode queries = list.get(i).path("queries");
                Map<String, String> queryNames = new HashMap<>();
                for (int j = 0; j < queries.size(); j++) {
                    String key = queries.get(j).path("module").asText("") + "/" + queries.get(j).path("name").asText("");
                    String q = at + ".queries[" + j + "].name";
                    String earlier = queryNames.putIfAbsent(key, q);
                    if (earlier != null) out.add(new InputProblem(q, "duplicate of " + earlier + " for the same module"));
                }
            }
        }
        return out;
    }
}
