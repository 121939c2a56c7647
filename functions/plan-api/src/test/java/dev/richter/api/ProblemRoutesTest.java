package dev.richter.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.report.ProblemStore;
import dev.richter.report.TrackedProblem;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /problems} and {@code PATCH /problems/{problemId}} through the Lambda handler, on problems the report
 * function would have written ({@link ProblemStore}); every answer conforms to its schema in openapi.json.
 */
class ProblemRoutesTest {
    private final RegistryApiHarness api = new RegistryApiHarness();
    private final ProblemStore store = new ProblemStore(api.dynamoDb(), "registry");

    private TrackedProblem seed(String team, String plan, String key, String status) {
        TrackedProblem p = new TrackedProblem(TrackedProblem.idOf(team, plan, key), team, plan, key, "resilience",
                key.substring(key.indexOf(':') + 1), "WARN", status, "", "", "run-1", "run-2", 10, 20, 2, 0, "weak: 40 fast 503s",
                20, 0);
        return store.put(p).orElseThrow();
    }

    private JsonNode list(String team, Map<String, String> query, int status) {
        var r = api.call("GET /problems", team, Map.of(), query, null);
        assertEquals(status, r.get("statusCode"), String.valueOf(r.get("body")));
        return RegistryApiHarness.body(r);
    }

    private Map<String, Object> patch(String team, String id, String body) {
        return api.call("PATCH /problems/{problemId}", team, Map.of("problemId", id), Map.of(),
                body.getBytes(StandardCharsets.UTF_8));
    }

    private static List<String> keys(JsonNode page) {
        List<String> out = new ArrayList<>();
        page.path("items").forEach(p -> out.add(p.path("key").asText()));
        return out;
    }

    @Test
    void theTeamsProblemsAreListedByPlanAndStatusAndOnlyTheTeams() {
        TrackedProblem shedding = seed("t1", "plan-a", "resilience:shedding", "open");
        TrackedProblem deadlines = seed("t1", "plan-a", "resilience:deadlines", "resolved");
        seed("t1", "plan-b", "module:order", "open");
        seed("t2", "plan-c", "module:order", "open");
        List<String> planA = shedding.id().compareTo(deadlines.id()) < 0
                ? List.of("resilience:shedding", "resilience:deadlines") : List.of("resilience:deadlines", "resilience:shedding");
        JsonNode all = list("t1", Map.of(), 200);
        api.assertConforms("ProblemPage", all);
        List<String> expected = new ArrayList<>(planA);
        expected.add("module:order");
        assertEquals(expected, keys(all), "by plan, then id");
        assertEquals(planA, keys(list("t1", Map.of("planId", "plan-a"), 200)));
        assertEquals(List.of("resilience:shedding", "module:order"), keys(list("t1", Map.of("status", "open"), 200)));
        assertEquals(List.of("module:order"), keys(list("t2", Map.of(), 200)));
        JsonNode bad = list("t1", Map.of("status", "fixed"), 400);
        assertEquals("query.status", bad.path("errors").get(0).path("path").asText());
    }

    @Test
    void aPatchSetsTheTeamsFieldsIsAuditedAndRefusesBadBodies() {
        TrackedProblem p = seed("t1", "plan-a", "resilience:shedding", "open");
        var r = patch("t1", p.id(), "{\"status\": \"acknowledged\", \"owner\": \" ana \", \"note\": \"ticket 12\"}");
        assertEquals(200, r.get("statusCode"), String.valueOf(r.get("body")));
        JsonNode after = RegistryApiHarness.body(r);
        api.assertConforms("Problem", after);
        assertEquals("acknowledged", after.path("status").asText());
        assertEquals("ana", after.path("owner").asText());
        assertEquals("ticket 12", after.path("note").asText());
        assertEquals("run-1", after.path("firstRunId").asText(), "the report's fields stay");
        assertEquals(2, after.path("version").asInt());
        assertEquals("acknowledged", store.find("t1", p.id()).orElseThrow().status());

        var audit = RegistryApiHarness.body(api.call("GET /audit", "t1", Map.of(), Map.of(), null)).path("items");
        assertEquals("UpdateProblem", audit.get(0).path("action").asText(), audit.toString());
        assertEquals(p.id(), audit.get(0).path("target").asText());
        assertTrue(audit.get(0).path("before").toString().contains("open"), audit.toString());

        for (String body : List.of("{\"status\": \"fixed\"}", "{}", "{\"stauts\": \"resolved\"}", "{\"note\": 3}")) {
            var refused = patch("t1", p.id(), body);
            assertEquals(400, refused.get("statusCode"), body + " -> " + refused.get("body"));
            assertEquals("ValidationFailed", RegistryApiHarness.body(refused).path("error").asText(), body);
        }
        assertEquals(404, patch("t2", p.id(), "{\"status\": \"resolved\"}").get("statusCode"), "another team's is not found");
        assertEquals(404, patch("t1", "prb-0000000000000000", "{\"status\": \"resolved\"}").get("statusCode"));
    }

    @Test
    void aReportsWriteBetweenTheReadAndTheWriteIsAConflictNotAnOverwrite() {
        TrackedProblem p = seed("t1", "plan-a", "resilience:shedding", "open");
        assertTrue(store.put(p.withTeamFields("open", "", "", 30)).isPresent(), "the first writer of version 1 wins");
        assertTrue(store.put(p.withTeamFields("resolved", "", "", 40)).isEmpty(), "a write of the version it read loses");
    }
}
