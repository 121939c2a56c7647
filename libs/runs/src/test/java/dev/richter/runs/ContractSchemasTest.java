package dev.richter.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.richter.common.Json;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** {@link ContractSchemas}: the problems of a document, each at the path of the field it is about. */
class ContractSchemasTest {
    private final ContractSchemas schemas = new ContractSchemas();

    private static final String PLAN = """
            {"name": "p", "scenarios": [{"name": "s", "service": "svc", "requests": [{"method": "GET", "path": "/"}]}],
             "preTest": {"qqps": 2, "durationS": 10}, "formal": {"steps": [{"qps": 1, "durationS": 1}]}}
            """;

    @Test
    void aMisspelledFieldIsReportedAtItsOwnPathWithTheFieldsItCouldHaveMeant() {
        List<InputProblem> problems = schemas.problems("PlanInput", Json.read(PLAN, JsonNode.class));

        assertEquals(List.of(new InputProblem("$.preTest", "required property 'qps' not found"),
                new InputProblem("$.preTest.qqps", "unknown field; the fields here are qps, durationS, settleS")), problems);
    }

    @Test
    void serverFieldsAreNotOfferedAsTheFieldsOfAnInput() {
        List<InputProblem> problems = schemas.problems("PlanInput",
                Json.read(PLAN.replace("\"qqps\"", "\"qps\"").replace("{\"name\": \"p\",", "{\"name\": \"p\", \"colour\": 1,"),
                        JsonNode.class));

        assertEquals(1, problems.size(), problems.toString());
        assertEquals("$.colour", problems.get(0).path());
        assertEquals("unknown field; the fields here are name, scenarios, preTest, warmUp, formal, abortPolicy, coreModules, "
                + "perWorkerQps, requestTimeoutMs, expectedLatencyMs", problems.get(0).reason(), "readOnly server fields are not offered");
    }

    /**
     * Every object with fixed fields in every request body schema of {@code openapi.json}: an unknown field there is
     * reported at its own path ({@code <object's path>.zzUnknown}), never at the object's.
     */
    @Test
    void anUnknownFieldOfEveryObjectOfEveryRequestSchemaIsReportedAtItsOwnPath() throws IOException {
        JsonNode doc;
        try (InputStream in = ContractSchemas.class.getResourceAsStream("/openapi.json")) {
            doc = Json.MAPPER.readTree(in);
        }
        Set<String> requestSchemas = new TreeSet<>();
        doc.path("paths").forEach(ops -> ops.forEach(op -> {
            JsonNode ref = op.path("requestBody").path("content").path("application/json").path("schema").path("$ref");
            if (ref.isTextual()) {
                requestSchemas.add(ref.asText().substring(ref.asText().lastIndexOf('/') + 1));
            }
        }));
        assertEquals(Set.of("AbortRequest", "EvidenceSources", "ExitMockMark", "FlowInput", "FlowRunRequest", "NotificationConfig",
                "PlanInput", "ProblemPatch", "SafetyConfig", "ServiceInput", "StartRunRequest"),
                requestSchemas);
        int objects = 0;
        for (String name : requestSchemas) {
            List<List<Object>> paths = new ArrayList<>();
            closedObjects(doc, doc.path("components").path("schemas").path(name), new ArrayList<>(), new HashSet<>(), paths);
            for (List<Object> at : paths) {
                JsonNode instance = instanceWithUnknownFieldAt(at);
                String expected = pathOf(at) + ".zzUnknown";
                List<InputProblem> problems = schemas.problems(name, instance);
                assertTrue(problems.stream().anyMatch(p -> p.path().equals(expected) && p.reason().startsWith("unknown field")),
                        name + " " + instance + ": " + problems);
                assertTrue(problems.stream().noneMatch(p -> p.reason().contains("zzUnknown")),
                        "the path names the field, the reason does not repeat it: " + problems);
                objects++;
            }
        }
        assertTrue(objects >= 20, "walked " + objects + " objects");
    }

    /** The paths (field names and array indexes 0) of every object schema with {@code additionalProperties: false}. */
    private static void closedObjects(JsonNode doc, JsonNode schema, List<Object> at, Set<String> refs, List<List<Object>> out) {
        if (schema.has("$ref")) {
            String ref = schema.get("$ref").asText();
            if (refs.add(ref + at)) {
                closedObjects(doc, doc.at(ref.substring(1)), at, refs, out);
            }
            return;
        }
        if (schema.path("additionalProperties").isBoolean() && !schema.get("additionalProperties").asBoolean()) {
            out.add(at);
        }
        schema.path("properties").properties().forEach(p -> {
            List<Object> next = new ArrayList<>(at);
            next.add(p.getKey());
            closedObjects(doc, p.getValue(), next, refs, out);
        });
        if (schema.has("items")) {
            List<Object> next = new ArrayList<>(at);
            next.add(0);
            closedObjects(doc, schema.get("items"), next, refs, out);
        }
    }

    private static JsonNode instanceWithUnknownFieldAt(List<Object> at) {
        JsonNode leaf = Json.MAPPER.createObjectNode().put("zzUnknown", true);
        for (int i = at.size() - 1; i >= 0; i--) {
            if (at.get(i) instanceof Integer) {
                ArrayNode a = Json.MAPPER.createArrayNode();
                a.add(leaf);
                leaf = a;
            } else {
                ObjectNode o = Json.MAPPER.createObjectNode();
                o.set((String) at.get(i), leaf);
                leaf = o;
            }
        }
        return leaf;
    }

    private static String pathOf(List<Object> at) {
        StringBuilder b = new StringBuilder("$");
        for (Object step : at) {
            b.append(step instanceof Integer i ? "[" + i + "]" : "." + step);
        }
        return b.toString();
    }
}
