package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.ListExecutionsRequest;

/**
 * One run per target on the local stack: concurrent starts of one plan, another plan on the same service, changes to
 * a running plan, release at the run's end, and Idempotency-Key retries.
 */
class RunLeaseIT extends LocalAwsStackTestSupport {
    static final String RUN_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:richter-dev-load-test-run";

    private static int executions() {
        try (SfnClient sfn = SfnClient.builder().region(Region.US_EAST_1)
                .endpointOverride(URI.create(System.getenv("AWS_ENDPOINT_URL_SFN"))).build()) {
            return sfn.listExecutionsPaginator(ListExecutionsRequest.builder().stateMachineArn(RUN_ARN).build())
                    .executions().stream().toList().size();
        }
    }

    @Test
    void tenConcurrentStartsGiveOneRunAndNineConflictsNamingItThenTheLeaseIsFreedAndKeysAreIdempotent() throws Exception {
        try (FakeTarget target = new FakeTarget()) {
            ApiClient api = api("team-lease");
            register(api, "leased-svc", target.baseUrl());
            var p = api.post("/plans", plan("leased-svc", 2, 3, List.<double[]>of(new double[] {2, 2})));
            assertEquals(201, p.status(), p.body());
            String planId = p.json().path("planId").asText();
            int executionsBefore = executions();

            ExecutorService pool = Executors.newFixedThreadPool(10);
            List<Callable<ApiClient.Response>> starts = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                starts.add(() -> api.post("/plans/" + planId + "/runs", ""));
            }
            List<ApiClient.Response> answers = new ArrayList<>();
            for (Future<ApiClient.Response> f : pool.invokeAll(starts)) {
                answers.add(f.get());
            }
            pool.shutdown();
            List<ApiClient.Response> accepted = answers.stream().filter(r -> r.status() == 202).toList();
            List<ApiClient.Response> refused = answers.stream().filter(r -> r.status() == 409).toList();
            answers.forEach(r -> System.out.println("concurrent start -> " + r.status() + " " + r.body()));
            assertEquals(1, accepted.size(), "exactly one 202");
            assertEquals(9, refused.size(), "nine 409s");
            String runId = accepted.get(0).json().path("runId").asText();
            for (ApiClient.Response r : refused) {
                assertEquals("TargetLeased", r.json().path("error").asText(), r.body());
                assertTrue(r.json().path("message").asText().contains(runId), "names the run that holds it: " + r.body());
            }
            assertEquals(1, executions() - executionsBefore, "one execution started");
            assertEquals(1, api.get("/plans/" + planId + "/runs").json().path("items").size(), "one run stored");
            assertEquals(1, accepted.get(0).json().path("planVersion").asInt(), "the run records the plan version");

            // another plan touching the same service is refused too; the running plan cannot change
            var other = api.post("/plans", plan("leased-svc", 1, 1, List.<double[]>of(new double[] {1, 1})));
            var otherStart = api.post("/plans/" + other.json().path("planId").asText() + "/runs", "");
            assertEquals(409, otherStart.status(), otherStart.body());
            assertTrue(otherStart.json().path("message").asText().contains(runId), otherStart.body());
            var put = api.put("/plans/" + planId, plan("leased-svc", 2, 3, List.<double[]>of(new double[] {3, 2})));
            assertEquals(409, put.status(), put.body());
            assertEquals("PlanInUse", put.json().path("error").asText());
            assertEquals(409, api.delete("/plans/" + planId).status());
            assertEquals(409, api.delete("/services/leased-svc").status(), "a leased service cannot be deleted");

            JsonNode report = awaitReport(api, runId, 180_000);
            assertEquals("PASSED", report.path("outcome").asText(), report.path("outcomeReason").asText());

            // the run's end released the lease: the next start is accepted, once per Idempotency-Key
            Map<String, String> key = Map.of("Idempotency-Key", "it-" + System.nanoTime());
            ApiClient.Response first = null;
            long deadline = System.currentTimeMillis() + 20_000;
            while (first == null || first.status() == 409 && System.currentTimeMillis() < deadline) {
                if (first != null) {
                    Thread.sleep(300); // the release runs just after the report is written
                }
                first = api.send("POST", "/plans/" + planId + "/runs", "", key);
            }
            assertEquals(202, first.status(), first.body());
            String second = first.json().path("runId").asText();
            assertNotEquals(runId, second);
            for (int i = 0; i < 3; i++) {
                var retry = api.send("POST", "/plans/" + planId + "/runs", "", key);
                assertEquals(202, retry.status(), retry.body());
                assertEquals(second, retry.json().path("runId").asText(), "the same run for the same key");
                assertEquals("true", retry.header("idempotent-replayed"));
            }
            var otherKey = api.send("POST", "/plans/" + planId + "/runs", "", Map.of("Idempotency-Key", "another-key"));
            assertEquals(409, otherKey.status(), "a new key is a new start, refused while the run holds its target");
            assertEquals(2, executions() - executionsBefore, "retries started nothing");

            // the runs of the plan, a page of one at a time
            Set<String> seen = new HashSet<>();
            String cursor = null;
            int pages = 0;
            do {
                var page = api.get("/plans/" + planId + "/runs?limit=1" + (cursor == null ? "" : "&cursor=" + cursor));
                assertEquals(200, page.status(), page.body());
                page.json().path("items").forEach(r -> seen.add(r.path("runId").asText()));
                cursor = page.json().path("nextCursor").asText(null);
                pages++;
            } while (cursor != null && pages < 10);
            assertEquals(Set.of(runId, second), seen);
            assertTrue(pages >= 2, "more than one page");
            awaitReport(api, second, 180_000);
        }
    }
}
