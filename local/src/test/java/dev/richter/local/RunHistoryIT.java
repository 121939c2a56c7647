package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A team's routine on the local stack (issue 26 items 3 to 5): problems followed across three runs of a plan (new,
 * observed again, not observed, resolved by the team, reopened); a second run of a plan made slower on purpose (the
 * target's delay) flagged as a regression by {@code GET /runs/{runId}/compare} and the report's "since the last run";
 * and {@code ./richter run}'s exit statuses 0, 2 and 1 with its JUnit file checked against its schema. Every exchange
 * is checked against openapi.json.
 */
class RunHistoryIT extends LocalAwsStackTestSupport {
    /** What the slower run's target adds to each answer, milliseconds: well over the 20 ms and 20 % of a regression. */
    /**
     * What the second run's target adds to every answer, ms: far above the tail noise of 16 requests on a shared
     * 2-core machine (a first run's p99 read 123 ms there, its p50 10 ms), so the rise cannot hide in it.
     */
    static final long SLOWER_MS = 400;

    /** {@code key} is the whole key, or its start when it ends with {@code :} (a check whose subject the test leaves open). */
    private static boolean matches(String actual, String key) {
        return key.endsWith(":") ? actual.startsWith(key) : actual.equals(key);
    }

    private static JsonNode problem(JsonNode followUp, String key) {
        for (JsonNode f : followUp) {
            if (matches(f.path("key").asText(), key)) {
                return f;
            }
        }
        throw new AssertionError("no followed problem " + key + " in " + followUp);
    }

    private static JsonNode tracked(ApiClient api, String planId, String key) throws Exception {
        var page = api.get("/problems?planId=" + planId + "&limit=100");
        assertEquals(200, page.status(), page.body());
        for (JsonNode p : page.json().path("items")) {
            if (matches(p.path("key").asText(), key)) {
                return p;
            }
        }
        throw new AssertionError("no tracked problem " + key + " in " + page.body());
    }

    @Test
    void aProblemIsCarriedOverTwoRunsResolvedAndReopenedOnAThird() throws Exception {
        try (FakeTarget target = new FakeTarget()) {
            ApiClient api = api("team-problems");
            register(api, "problem-svc", target.baseUrl());
            var p = api.post("/plans", plan("problem-svc", 2, 3, List.<double[]>of(new double[] {2, 2})));
            assertEquals(201, p.status(), p.body());
            String planId = p.json().path("planId").asText();
            String data = "data:traffic set"; // one distinct request: every run of this plan lists it
            String preTest = "check:pre-test-success-rate:";

            target.orderStatus.set(500);
            String run1 = start(api, planId);
            JsonNode r1 = awaitReport(api, run1, 180_000);
            assertEquals("PRE_TEST_FAILED", r1.path("outcome").asText(), r1.path("outcomeReason").asText());
            assertEquals("new", problem(r1.path("followUp"), data).path("change").asText());
            assertEquals("new", problem(r1.path("followUp"), preTest).path("change").asText(), r1.path("problems").toString());
            JsonNode t1 = tracked(api, planId, data);
            assertEquals("open", t1.path("status").asText());
            assertEquals(run1, t1.path("firstRunId").asText());
            assertEquals(1, t1.path("runsSeen").asInt());

            target.orderStatus.set(201);
            String run2 = start(api, planId);
            JsonNode r2 = awaitReport(api, run2, 180_000);
            assertEquals("PASSED", r2.path("outcome").asText(), r2.path("outcomeReason").asText());
            JsonNode again = problem(r2.path("followUp"), data);
            assertEquals("observed again", again.path("change").asText());
            assertEquals(2, again.path("runsSeen").asInt());
            assertEquals(run1, again.path("firstRunId").asText());
            assertEquals("not observed", problem(r2.path("followUp"), preTest).path("change").asText());
            JsonNode t2 = tracked(api, planId, data);
            assertEquals(run2, t2.path("lastRunId").asText());
            assertEquals(t1.path("id").asText(), t2.path("id").asText(), "the same problem keeps its id");
            assertEquals("open", tracked(api, planId, preTest).path("status").asText(), "only the team resolves a problem");

            String id = t2.path("id").asText();
            var bad = api.send("PATCH", "/problems/" + id, "{\"status\": \"fixed\"}", Map.of());
            assertEquals(400, bad.status(), bad.body());
            assertEquals("$.status", bad.json().path("errors").get(0).path("path").asText(), bad.body());
            assertEquals(404, api("team-other").send("PATCH", "/problems/" + id, "{\"status\": \"resolved\"}", Map.of()).status(),
                    "another team's problem is not found");
            assertEquals(0, api("team-other").get("/problems").json().path("items").size());
            var resolved = api.send("PATCH", "/problems/" + id,
                    "{\"status\": \"resolved\", \"owner\": \"ana\", \"note\": \"imported a HAR of 300 requests\"}", Map.of());
            assertEquals(200, resolved.status(), resolved.body());
            assertEquals("resolved", resolved.json().path("status").asText());
            assertEquals("ana", resolved.json().path("owner").asText());
            assertEquals(1, api.get("/problems?status=resolved&planId=" + planId).json().path("items").size());
            JsonNode audit = api.get("/audit?limit=100").json().path("items");
            assertTrue(audit.toString().contains("UpdateProblem"), audit.toString());

            String run3 = start(api, planId);
            JsonNode r3 = awaitReport(api, run3, 180_000);
            JsonNode reopened = problem(r3.path("followUp"), data);
            assertEquals("reopened", reopened.path("change").asText());
            assertEquals("open", reopened.path("status").asText());
            assertEquals("ana", reopened.path("owner").asText(), "the team's owner and note stay");
            JsonNode t3 = tracked(api, planId, data);
            assertEquals("open", t3.path("status").asText());
            assertEquals(1, t3.path("reopenedCount").asInt());
            assertEquals(3, t3.path("runsSeen").asInt());
            assertEquals("imported a HAR of 300 requests", t3.path("note").asText());
        }
    }

    @Test
    void aSlowerSecondRunOfTheSamePlanIsFlaggedAsARegression() throws Exception {
        try (FakeTarget target = new FakeTarget()) {
            ApiClient api = api("team-compare");
            register(api, "compare-svc", target.baseUrl());
            var p = api.post("/plans", plan("compare-svc", 2, 3, List.<double[]>of(new double[] {4, 4})));
            assertEquals(201, p.status(), p.body());
            String planId = p.json().path("planId").asText();
            String first = start(api, planId);
            JsonNode r1 = awaitReport(api, first, 180_000);
            assertEquals("PASSED", r1.path("outcome").asText(), r1.path("outcomeReason").asText());
            assertTrue(r1.path("sinceLastRun").path("comparison").isNull(), r1.path("sinceLastRun").toString());
            var none = api.get("/runs/" + first + "/compare?with=previous");
            assertEquals(404, none.status(), none.body());
            assertEquals("NoPreviousRun", none.json().path("error").asText());

            target.delayMs = SLOWER_MS;
            String second = start(api, planId);
            JsonNode r2 = awaitReport(api, second, 180_000);
            assertEquals("PASSED", r2.path("outcome").asText(), r2.path("outcomeReason").asText());
            var c = api.get("/runs/" + second + "/compare?with=previous");
            assertEquals(200, c.status(), c.body());
            JsonNode cmp = c.json();
            System.out.println("comparison: " + cmp.path("regressions"));
            assertEquals(first, cmp.path("baselineRunId").asText());
            assertTrue(cmp.path("regressed").asBoolean(), c.body());
            JsonNode formal = null;
            for (JsonNode s : cmp.path("steps")) {
                if (s.path("stage").asText().equals("formal")) {
                    formal = s;
                }
            }
            assertTrue(formal != null, c.body());
            // every answer of the second run took the delay at least, so its p99 does; the first run's is noise
            assertTrue(formal.path("p99Ms").path("run").asDouble() >= SLOWER_MS, "p99 at least the target's delay: " + formal);
            assertTrue(formal.path("p99Ms").path("run").asDouble() > formal.path("p99Ms").path("baseline").asDouble() * 1.2,
                    "and over the first run's by more than the regression threshold: " + formal);
            assertTrue(formal.path("regressions").get(0).asText().startsWith("formal step 1 at 4 QPS: p99 rose from"),
                    formal.toString());
            assertEquals(cmp.path("regressions"), api.get("/runs/" + second + "/compare?with=" + first).json().path("regressions"),
                    "previous is the first run");
            JsonNode since = r2.path("sinceLastRun").path("comparison");
            assertEquals(first, since.path("baselineRunId").asText());
            assertTrue(since.path("regressed").asBoolean(), since.toString());
            assertTrue(api.get("/runs/" + second + "/report?format=html").body().contains("<section id=since><h2>Since the last run</h2>"));
            var back = api.get("/runs/" + first + "/compare?with=" + second);
            assertEquals(second, back.json().path("baselineRunId").asText(), back.body());
            assertEquals(400, api.get("/runs/" + second + "/compare").status(), "with is required");
            assertEquals(404, api("team-other").get("/runs/" + second + "/compare?with=previous").status());
        }
    }

    @Test
    void richterRunExitsZeroThenTwoWhenSlowerThenOneWhenFailedWithAValidJUnitFile(@TempDir Path dir) throws Exception {
        try (FakeTarget target = new FakeTarget()) {
            ApiClient api = api("team-gate");
            register(api, "gate-svc", target.baseUrl());
            Map<String, Object> plan = new java.util.LinkedHashMap<>(Json.read(plan("gate-svc", 2, 3,
                    List.<double[]>of(new double[] {4, 4})), Map.class));
            plan.put("name", "ci gate");
            Path planFile = dir.resolve("plan.json");
            Files.writeString(planFile, Json.write(plan));
            List<Integer> statuses = new ArrayList<>();
            List<String> planIds = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                target.delayMs = i == 1 ? SLOWER_MS : 0;
                target.orderStatus.set(i == 2 ? 500 : 201);
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                Path junit = dir.resolve("junit-" + i + ".xml");
                // the previous run's lease is released just after its report: the gate waits out a PlanInUse meanwhile
                int status = RunMain.run(new RunMain(Map.of("RICHTER_TOKEN", token("team-gate")), new PrintStream(out, true),
                        new PrintStream(out, true)), new String[] {"--plan", planFile.toString(), "--api",
                        LocalAwsStack.apiBaseUrl(), "--out", dir.resolve("run-" + i).toString(), "--junit", junit.toString(),
                        "--busy-wait-s", "30"});
                System.out.println("./richter run #" + (i + 1) + " exited " + status + ":\n" + out);
                statuses.add(status);
                String xml = Files.readString(junit);
                RunMainTest.validate(xml);
                assertTrue(xml.contains("<testsuite name=\"ci gate\""), xml);
                assertTrue(Files.exists(dir.resolve("run-" + i).resolve("report.html")));
                planIds.add(out.toString().replaceAll("(?s).*plan (plan-[0-9a-f-]+) (created|replaced).*", "$1"));
                if (i == 1) {
                    assertTrue(xml.contains("<failure type=\"richter.step\" message=\"formal step 1 at 4 QPS: p99 rose from"), xml);
                }
                if (i == 2) {
                    assertTrue(xml.contains("<failure type=\"richter.run\" message=\"PRE_TEST_FAILED"), xml);
                }
            }
            assertEquals(List.of(RunMain.PASSED, RunMain.REGRESSED, RunMain.FAILED), statuses);
            assertEquals(1, planIds.stream().distinct().count(), "one plan, replaced by name: " + planIds);
        }
    }
}
