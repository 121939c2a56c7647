package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jwt.JWTClaimsSet;
import dev.richter.common.Json;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Authentication on the local HTTP API: its JWT authorizer (the template's, with the local identity provider's keys)
 * refuses every bad token with a 401 in the API's error shape, a valid token's team scopes every resource, and the
 * audit log and abort reasons record the token's caller.
 */
class AuthIT extends LocalAwsStackTestSupport {
    static final Instant NOW = Instant.now();

    private static ApiClient with(String token) {
        return new ApiClient(LocalAwsStack.apiBaseUrl(), token);
    }

    private static String b64(String json) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void everyBadTokenIsA401AndAValidRs256OrEs256TokenIsServed() throws Exception {
        LocalIdentityProvider idp = stack.identity();
        LocalIdentityProvider stranger = LocalIdentityProvider.loadOrCreate(root.resolve("local/target/it-stranger-idp"));
        String good = token("team-auth");
        Map<String, String> bad = new LinkedHashMap<>();
        bad.put("no token", null);
        bad.put("expired", idp.sign(LocalIdentityProvider.claims("team-auth", "u", NOW.minusSeconds(7200), NOW.minusSeconds(600)).build(),
                JWSAlgorithm.RS256));
        bad.put("wrong audience", idp.sign(new JWTClaimsSet.Builder(LocalIdentityProvider.claims("team-auth", "u", NOW, NOW.plusSeconds(600))
                .build()).audience("another-api").build(), JWSAlgorithm.RS256));
        bad.put("wrong issuer", idp.sign(new JWTClaimsSet.Builder(LocalIdentityProvider.claims("team-auth", "u", NOW, NOW.plusSeconds(600))
                .build()).issuer("https://evil.example").build(), JWSAlgorithm.RS256));
        bad.put("bad signature", stranger.token("team-auth", "u", Duration.ofMinutes(10), JWSAlgorithm.RS256));
        bad.put("alg none", b64("{\"alg\":\"none\",\"typ\":\"JWT\"}") + "." + good.split("\\.")[1] + ".");
        for (var e : bad.entrySet()) {
            var r = with(e.getValue()).get("/services");
            System.out.println("token " + e.getKey() + " -> " + r.status() + " " + r.body());
            assertEquals(401, r.status(), e.getKey() + ": " + r.body());
            assertEquals("Unauthorized", r.json().path("error").asText(), e.getKey());
            assertTrue(r.header("www-authenticate").startsWith("Bearer error=\"invalid_token\""), e.getKey());
        }
        assertEquals(200, with(good).get("/services").status(), "RS256");
        assertEquals(200, with(idp.token("team-auth", "u", Duration.ofMinutes(5), JWSAlgorithm.ES256)).get("/services").status(), "ES256");
        var noTeam = with(idp.sign(new JWTClaimsSet.Builder(LocalIdentityProvider.claims("x", "u", NOW, NOW.plusSeconds(600)).build())
                .claim("team", null).build(), JWSAlgorithm.RS256)).get("/services");
        assertEquals(403, noTeam.status(), noTeam.body());
        assertEquals("NoTeam", noTeam.json().path("error").asText());
        // the header that once named the team is ignored: no token, no team
        var header = with(null).send("GET", "/plans", null, Map.of("x-richter-team", "team-auth"));
        assertEquals(401, header.status());
        // the OpenAPI document is public
        var doc = with(null).get("/openapi.json");
        assertEquals(200, doc.status());
        assertEquals("3.1.0", doc.json().path("openapi").asText());
    }

    @Test
    void aValidTokenOfTeamAGetsA404ForEveryResourceOfTeamBAndTheAuditNamesTheCaller() throws Exception {
        // a healthy target: a refusing one would be DAMAGED at the first probe round and the fault decider's abort
        // would win the race with team-b's own abort below
        try (FakeTarget target = new FakeTarget()) {
            crossTeamRequestsAre404AndTheCallerIsRecorded(target);
        }
    }

    private void crossTeamRequestsAre404AndTheCallerIsRecorded(FakeTarget target) throws Exception {
        ApiClient b = api("team-b");
        register(b, "svc-b", target.baseUrl());
        var created = b.post("/plans", plan("svc-b", 1, 2, List.<double[]>of(new double[] {1, 1})));
        assertEquals(201, created.status(), created.body());
        String planId = created.json().path("planId").asText();
        String runId = start(b, planId);

        ApiClient a = api("team-a");
        Map<String, ApiClient.Response> answers = new LinkedHashMap<>();
        String planJson = Json.write(created.json());
        answers.put("GET service", a.get("/services/svc-b"));
        answers.put("DELETE service", a.delete("/services/svc-b"));
        answers.put("GET plan", a.get("/plans/" + planId));
        answers.put("PUT plan", a.put("/plans/" + planId, planJson));
        answers.put("DELETE plan", a.delete("/plans/" + planId));
        answers.put("GET estimate", a.get("/plans/" + planId + "/estimate"));
        answers.put("POST runs", a.post("/plans/" + planId + "/runs", ""));
        answers.put("GET runs", a.get("/plans/" + planId + "/runs"));
        answers.put("GET run", a.get("/runs/" + runId));
        answers.put("POST abort", a.post("/runs/" + runId + "/abort", "{\"reason\":\"not mine\"}"));
        answers.put("GET report", a.get("/runs/" + runId + "/report"));
        answers.forEach((what, r) -> {
            System.out.println("team-a " + what + " of team-b -> " + r.status() + " " + r.body());
            assertEquals(404, r.status(), what + ": " + r.body());
            assertEquals("NotFound", r.json().path("error").asText(), what);
        });
        assertEquals(0, a.get("/services").json().path("items").size(), "team-b's service is not in team-a's list");
        assertEquals(0, a.get("/plans").json().path("items").size());
        assertEquals(0, a.get("/runs").json().path("items").size(), "team-b's run is not in team-a's runs");
        JsonNode own = b.get("/runs").json().path("items");
        assertEquals(runId, own.get(0).path("runId").asText(), "GET /runs: team-b's runs across its plans, newest first: " + own);
        assertEquals(planId, own.get(0).path("planId").asText());
        assertTrue(a.get("/audit").json().path("items").toString().indexOf("svc-b") < 0, "nor in its audit log");
        assertEquals(0, a.get("/safety/mocks").json().path("mocks").size());

        // team-b aborts its own run: the reason and the audit log name the token's caller (sub), not "anonymous"
        var abort = b.post("/runs/" + runId + "/abort", "{\"reason\":\"auth test\"}");
        assertTrue(abort.status() == 202 || abort.status() == 409, abort.body());
        if (abort.status() == 202) {
            assertEquals("requested by it@team-b: auth test", b.get("/runs/" + runId).json().path("run").path("abortReason").asText());
        }
        JsonNode audit = b.get("/audit?limit=100").json().path("items");
        boolean sawStart = false;
        for (JsonNode e : audit) {
            assertEquals("it@team-b", e.path("caller").asText(), e.toString());
            sawStart |= e.path("action").asText().equals("StartRun") && e.path("target").asText().equals(runId);
        }
        assertTrue(sawStart, audit.toString());
        awaitReport(b, runId, 120_000);
    }
}
