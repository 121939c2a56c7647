package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Bad input through the real HTTP API: 400 with the JSON path and reason, 404 for unknown ids, nothing half-written. */
class ApiIT extends LocalAwsStackTestSupport {

    /**
     * Issue 41, targets a team owns: a team cannot register an address (host and port) another team registered, under
     * any path or spelling of it; the address is free again once its owner's last service there is deleted or moved.
     * Counted on DynamoDB's own conditional writes (dynalite), through the real API.
     */
    @Test
    void anAddressBelongsToTheFirstTeamThatRegisteredItUntilItsLastServiceThereIsGone() throws Exception {
        ApiClient owner = api("team-owner");
        ApiClient other = api("team-intruder");
        register(owner, "orders", "http://127.0.0.4:9");
        for (String url : List.of("http://127.0.0.4:9", "http://127.0.0.4:9/v2", "HTTP://127.0.0.4:9/")) {
            var taken = other.post("/services", Json.write(Map.of("name", "orders", "baseUrl", url)));
            assertEquals(409, taken.status(), url + ": " + taken.body());
            assertEquals("AddressOwned", taken.json().path("error").asText(), taken.body());
            assertTrue(taken.body().contains("127.0.0.4:9") && !taken.body().contains("team-owner"),
                    "names the address, not the team that owns it: " + taken.body());
        }
        assertEquals(0, other.get("/services").json().path("items").size(), "nothing of the refused registrations stored");
        register(owner, "orders-v2", "http://127.0.0.4:9/v2");
        assertEquals(204, owner.delete("/services/orders").status());
        assertEquals(409, other.post("/services", Json.write(Map.of("name", "orders", "baseUrl", "http://127.0.0.4:9"))).status(),
                "orders-v2 still loads the address");
        var moved = owner.post("/services", Json.write(Map.of("name", "orders-v2", "baseUrl", "http://127.0.0.5:9")));
        assertEquals(200, moved.status(), moved.body());
        var free = other.post("/services", Json.write(Map.of("name", "orders", "baseUrl", "http://127.0.0.4:9")));
        assertEquals(201, free.status(), "the owner's last service there moved away: " + free.body());
        assertEquals(409, owner.post("/services", Json.write(Map.of("name", "back", "baseUrl", "http://127.0.0.4:9"))).status(),
                "and now it is the other team's");
    }

    @Test
    void planWithAMissingOrWrongFieldIsA400NamingThePath() throws Exception {
        ApiClient api = api("team-bad");
        register(api, "svc", "http://127.0.0.1:9");
        var missing = api.post("/plans", "{\"name\":\"x\",\"scenarios\":[{\"name\":\"s\",\"service\":\"svc\",\"requests\":[{\"method\":\"GET\",\"path\":\"/\"}]}],\"formal\":{\"steps\":[{\"qps\":1,\"durationS\":1}]}}");
        assertEquals(400, missing.status(), missing.body());
        assertEquals("ValidationFailed", missing.json().path("error").asText());
        assertTrue(missing.body().contains("preTest"), missing.body());

        var wrong = api.post("/plans", LocalAwsStackTestSupport.plan("svc", -2, 1, List.<double[]>of(new double[] {1, 1})));
        assertEquals(400, wrong.status(), wrong.body());
        assertEquals("$.preTest.qps", wrong.json().path("errors").get(0).path("path").asText(), wrong.body());

        var unregistered = api.post("/plans", LocalAwsStackTestSupport.plan("ghost", 1, 1, List.<double[]>of(new double[] {1, 1})));
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
    void safetyConfigurationIsValidatedScopedToTheTeamAndItsMocksServedToTheSdk() throws Exception {
        ApiClient api = api("team-safety");
        var bad = api.put("/safety", "{\"traceSource\":{\"kind\":\"directory\"},\"mocks\":[{\"exit\":\"payment\",\"status\":999}]}");
        assertEquals(400, bad.status(), bad.body());
        assertEquals(List.of("$.mocks[0].status", "$.traceSource"), java.util.stream.StreamSupport
                .stream(bad.json().path("errors").spliterator(), false).map(e -> e.path("path").asText()).sorted().toList(), bad.body());
        assertEquals(404, api.get("/safety").status(), "nothing was stored");

        java.nio.file.Files.createDirectories(Path.of("/tmp/spans"));   // PUT /safety checks the trace directory exists
        String config = "{\"traceSource\":{\"kind\":\"directory\",\"path\":\"/tmp/spans\"},"
                + "\"mocks\":[{\"exit\":\"payment POST /charge\",\"status\":200,\"body\":\"{}\",\"latencyMs\":5}]}";
        assertEquals(201, api.put("/safety", config).status());
        assertEquals(200, api.put("/safety", config).status(), "replaced");
        assertEquals("/tmp/spans", api.get("/safety").json().path("traceSource").path("path").asText());
        assertEquals(404, api("team-other").get("/safety").status(), "another team's configuration is invisible");
        assertEquals(0, api("team-other").get("/safety/mocks").json().path("mocks").size());

        // the SDK authenticates like any client: a token of the team, no query or header can name another team
        var sdk = new ApiClient(LocalAwsStack.apiBaseUrl(), token("team-safety")).get("/safety/mocks?team=team-other");
        assertEquals(200, sdk.status(), sdk.body());
        assertEquals("payment POST /charge", sdk.json().path("mocks").get(0).path("exit").asText());
        assertEquals(401, new ApiClient(LocalAwsStack.apiBaseUrl(), null).get("/safety/mocks?team=team-safety").status());
    }

    @Test
    void trafficImportsAreStoredScrubbedAndTeamScopedAndBadFilesAre400sNamingThePosition() throws Exception {
        Path corpus = Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"));
        ApiClient api = api("team-traffic");
        var har = api.post("/traffic-sets?format=har&file=31.har", Files.readString(corpus.resolve("bugs/31-har-postdata-params-only.har")));
        assertEquals(201, har.status(), har.body());
        String setId = har.json().path("setId").asText();
        assertEquals("/traffic-sets/" + setId, har.header("location"));
        var set = api.get("/traffic-sets/" + setId);
        assertEquals(200, set.status(), set.body());
        assertEquals("user=alice&next=%2Fcart%3Fid%3D7",
                set.json().path("endpoints").get(0).path("samples").get(0).path("body").asText());

        String log = "10.0.0.1 - - [30/Nov/2026:10:00:00 +0000] \"GET /users/12?access_token=tok-secret-1 HTTP/1.1\" 200 5 \"-\" \"curl/8\"\n"
                + "not a log line\n"
                + "10.0.0.2 - - [30/Nov/2026:10:00:01 +0000] \"GET /users/13 HTTP/1.1\" 200 5 \"-\" \"curl/8\"\n";
        var nginx = api.send("POST", "/traffic-sets?format=nginx&file=access.log", log, Map.of("content-type", "text/plain"));
        assertEquals(201, nginx.status(), nginx.body());
        assertEquals("/users/{id}", nginx.json().path("endpoints").get(0).path("pathTemplate").asText());
        assertEquals(2, nginx.json().path("endpoints").get(0).path("count").asInt());
        assertEquals("access.log:2", nginx.json().path("problems").get(0).path("position").asText());
        var full = api.get("/traffic-sets/" + nginx.json().path("setId").asText());
        assertTrue(!full.body().contains("tok-secret-1") && full.body().contains("{{slot:query.access_token}}"), full.body());

        var bad = api.post("/traffic-sets?format=har&file=cut.har", "{\"log\": {\"entries\": [\n{]}}");
        assertEquals(400, bad.status(), bad.body());
        assertEquals("InvalidTrafficFile", bad.json().path("error").asText());
        assertEquals("cut.har:line 2, column 2", bad.json().path("errors").get(0).path("path").asText());
        var badLines = api.send("POST", "/traffic-sets?format=apache&file=x.log", "nope\nnope either\n", Map.of("content-type", "text/plain"));
        assertEquals(400, badLines.status(), badLines.body());
        assertEquals("x.log:2", badLines.json().path("errors").get(1).path("path").asText());

        assertEquals(2, api.get("/traffic-sets").json().path("items").size(), "the bad files stored nothing");
        assertEquals(404, api("team-other").get("/traffic-sets/" + setId).status(), "team scope");
        assertEquals(0, api("team-other").get("/traffic-sets").json().path("items").size());
    }

    @Test
    void unknownPlanOrRunIsA404AndAnotherTeamsPlanIsInvisible() throws Exception {
        ApiClient api = api("team-a");
        assertEquals(404, api.get("/plans/plan-nope").status());
        assertEquals(404, api.post("/plans/plan-nope/runs", "").status());
        assertEquals(404, api.get("/runs/run-nope").status());
        assertEquals(404, api.post("/runs/run-nope/abort", "").status());
        assertEquals(404, api.get("/runs/run-nope/report").status());

        register(api, "svc", "http://127.0.0.2:9");
        var created = api.post("/plans", LocalAwsStackTestSupport.plan("svc", 1, 1, List.<double[]>of(new double[] {1, 1})));
        assertEquals(201, created.status(), created.body());
        String planId = created.json().path("planId").asText();
        assertEquals(200, api.get("/plans/" + planId).status());
        assertEquals(404, api("team-b").get("/plans/" + planId).status(), "team scope");
        assertEquals(404, api("team-b").post("/plans/" + planId + "/runs", "").status(), "team scope");
    }

    @Test
    void aRequestWithoutTokenIsA401AndACoreModuleTypoIsA400() throws Exception {
        var noToken = new ApiClient(LocalAwsStack.apiBaseUrl(), null).post("/services", "{\"name\":\"x\",\"baseUrl\":\"http://127.0.0.1:9\"}");
        assertEquals(401, noToken.status(), noToken.body());
        assertEquals("Unauthorized", noToken.json().path("error").asText(), noToken.body());
        // a team named in a header is ignored without --insecure-dev-auth: the team comes from the token
        var header = new ApiClient(LocalAwsStack.apiBaseUrl(), null).send("GET", "/services", null, java.util.Map.of("x-richter-team", "team-core"));
        assertEquals(401, header.status(), header.body());

        ApiClient api = api("team-core");
        register(api, "svc", "http://127.0.0.3:9");
        String plan = LocalAwsStackTestSupport.plan("svc", 1, 1, List.<double[]>of(new double[] {1, 1})).replace("\"coreModules\":[\"svc\"]",
                "\"coreModules\":[\"svc\",\"sevice\"]");
        var typo = api.post("/plans", plan);
        assertEquals(400, typo.status(), typo.body());
        assertEquals("$.coreModules[1]", typo.json().path("errors").get(0).path("path").asText(), typo.body());
    }
}
