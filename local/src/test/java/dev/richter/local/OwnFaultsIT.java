package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.AwsClients;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.StopExecutionRequest;

/**
 * Richter's own faults on the local stack, against real targets on loopback: whatever fails inside Richter, the load
 * stops within seconds, the run ends with a report saying why, and its leases are free.
 */
class OwnFaultsIT extends LocalAwsStackTestSupport {
    static final String EXECUTION_PREFIX = "arn:aws:states:us-east-1:123456789012:execution:LoadTestRunStateMachine:";

    /** Waits until the run is in the formal stage's step {@code stepIndex}, then {@code extraMs} more. */
    static void awaitFormalStep(ApiClient api, String runId, int stepIndex, long extraMs) throws Exception {
        long deadline = System.currentTimeMillis() + 90_000;
        while (System.currentTimeMillis() < deadline) {
            JsonNode run = api.get("/runs/" + runId).json().path("run");
            if (run.path("stage").asText().equals("formal") && run.path("stepIndex").asInt(-1) >= stepIndex) {
                Thread.sleep(extraMs);
                return;
            }
            Thread.sleep(250);
        }
        throw new AssertionError("run " + runId + " never reached formal step " + stepIndex);
    }

    @Test
    void anExecutionStoppedFromOutsideIsReapedItsLoadStopsAndItsLeasesAreFree() throws Exception {
        try (FakeTarget target = new FakeTarget();
             SfnClient sfn = SfnClient.builder().region(AwsClients.region())
                     .httpClientBuilder(UrlConnectionHttpClient.builder()).build()) {
            ApiClient api = api("team-stopped");
            register(api, "stopped-svc", target.baseUrl());
            String planJson = plan("stopped-svc", 2, 2, List.of(new double[] {10, 30}, new double[] {10, 30}));
            var created = api.post("/plans", planJson);
            String planId = created.json().path("planId").asText();
            String runId = start(api, planId);
            awaitFormalStep(api, runId, 0, 3_000);

            long stopAt = System.currentTimeMillis();
            sfn.stopExecution(StopExecutionRequest.builder().executionArn(EXECUTION_PREFIX + runId)
                    .cause("on-call stopped it in the console").build());
            JsonNode report = awaitReport(api, runId, 60_000);

            assertEquals("ABORTED", report.path("outcome").asText(), report.path("outcomeReason").asText());
            assertTrue(report.path("outcomeReason").asText().contains("execution ABORTED"), report.path("outcomeReason").asText());
            assertTrue(report.path("outcomeReason").asText().contains("on-call stopped it in the console"),
                    report.path("outcomeReason").asText());
            long last = target.arrivalsMs.stream().mapToLong(Long::longValue).max().orElseThrow();
            assertTrue(last - stopAt <= 2_000, "the target's last request came " + (last - stopAt) + " ms after the stop");
            assertEquals(1, report.path("formal").size(), "the second formal step never ran");
            // the leases are free: the same plan starts again at once (no 409)
            var again = api.post("/plans/" + planId + "/runs", "");
            assertEquals(202, again.status(), again.body());
            api.post("/runs/" + again.json().path("runId").asText() + "/abort", "{\"reason\": \"test over\"}");
            awaitReport(api, again.json().path("runId").asText(), 90_000);
        }
    }
}
