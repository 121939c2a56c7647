package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Bad input through the real HTTP API: 400 with the JSON path and reason, 404 for unknown ids, nothing half-written. */
class ApiIT extends LocalStackTestSupport {

    @Test
    void planWithAMissingOrWrongFieldIsA400NamingThePath() throws Exception {
        ApiClient api = api("team-bad");
        register(api, "svc", "http://127.0.0.1:9");
        var missing = api.post("/plans", "{\"name\":\"x\",\"scenarios\":[{\"name\":\"s\",\"service\":\"svc\",\"requests\":[{\"method\":\"GET\",\"path\":\"/\"}]}],\"formal\":{\"steps\":[{\"qps\":1,\"durationS\":1}]}}");
        assertEquals(400, missing.status(), missing.body());
        assertEquals("ValidationFailed", missing.json().path("error").asText());
        assertTrue(missing.body().contains("preTest"), missing.body());

        var wrong = api.post("/plans", LocalStackTestSupport.plan("svc", -2, 1, List.<double[]>of(new double[] {1, 1})));
        assertEquals(400, wrong.status(), wrong.body());
        assertEquals("$.preTest.qps", wrong.json().path("errors").get(0).path("path").asText(), wrong.body());

        var unregistered = api.post("/plans", LocalStackTestSupport.plan("ghost", 1, 1, List.<double[]>of(new double[] {1, 1})));
        assertEquals(400, unregistered.status());
        assertEquals("$.scenarios[0].service", unregistered.json().path("errors").get(0).path("path").asText());

        var notJson = api.post("/plans", "{\"name\": ");
        assertEquals(400, notJson.status());
        assertEquals("InvalidJson", notJson.json().path("error").asText());

        var badService = api.post("/services", "{\"name\":\"a b\",\"baseUrl\":\"ftp://x\"}");
        assertEquals(400, badService.status());
        assertEquals(2, badService.json().path("errors").size(), badService.body());
    }

    @Test
    void unknownPlanOrRunIsA404AndAnotherTeamsPlanIsInvisible() throws Exception {
        ApiClient api = api("team-a");
        assertEquals(404, api.get("/plans/plan-nope").status());
        assertEquals(404, api.post("/plans/plan-nope/runs", "").status());
        assertEquals(404, api.get("/runs/run-nope").status());
        assertEquals(404, api.post("/runs/run-nope/abort", "").status());
        assertEquals(404, api.get("/runs/run-nope/report").status());

        register(api, "svc", "http://127.0.0.1:9");
        var created = api.post("/plans", LocalStackTestSupport.plan("svc", 1, 1, List.<double[]>of(new double[] {1, 1})));
        assertEquals(201, created.status(), created.body());
        String planId = created.json().path("planId").asText();
        assertEquals(200, api.get("/plans/" + planId).status());
        assertEquals(404, api("team-b").get("/plans/" + planId).status(), "team scope");
        assertEquals(404, api("team-b").post("/plans/" + planId + "/runs", "").status(), "team scope");
    }
}
