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
@org.junit.jupiter.api.TestMethodOrder(org.junit.jupiter.api.MethodOrderer.OrderAnnotation.class)
class OwnFaultsIT extends LocalAwsStackTestSupport {
    static final String EXECUTION_PREFIX = "arn:aws:states:us-east-1:123456789012:execution:richter-dev-load-test-run:";

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

    /**
     * The nightly check's replay is watched as a run's legs are: its fault decider failing sets the replay's abort flag
     * ({@code monitoring lost: Decide: ...}), the replay stops within 2 s, and the nightly run is ABORTED, its checks
     * saying so. First, so that its team is the only one a nightly check replays.
     */
    @Test
    @org.junit.jupiter.api.Order(1)
    void aNightlyReplayWhoseMonitorFailsStopsWithin2SecondsAndIsAborted() throws Exception {
        try (FakeTarget target = new FakeTarget();
             SfnClient sfn = SfnClient.builder().region(AwsClients.region())
                     .httpClientBuilder(UrlConnectionHttpClient.builder()).build()) {
            ApiClient api = api("team-nightly-lost");
            register(api, "nightly-svc", target.baseUrl());
            assertEquals(201, api.post("/plans", plan("nightly-svc", 2, 2, List.of(new double[] {10, 10}))).status());
            long armedAt = System.currentTimeMillis();
            stack.faults().set(LocalFaults.parse("lambda.FaultDeciderFunction=error"));
            String arn;
            try {
                arn = sfn.startExecution(software.amazon.awssdk.services.sfn.model.StartExecutionRequest.builder()
                        .stateMachineArn("arn:aws:states:us-east-1:123456789012:stateMachine:NightlyCheckStateMachine")
                        .input("{\"trigger\":\"it\"}").build()).executionArn();
                long deadline = System.currentTimeMillis() + 120_000;
                String status = "RUNNING";
                while (status.equals("RUNNING") && System.currentTimeMillis() < deadline) {
                    Thread.sleep(1_000);
                    status = sfn.describeExecution(software.amazon.awssdk.services.sfn.model.DescribeExecutionRequest.builder()
                            .executionArn(arn).build()).statusAsString();
                }
                assertEquals("SUCCEEDED", status, "the nightly check ends, its scope aborted");
            } finally {
                stack.faults().clear();
            }
            long faultAt = stack.faults().firstFiredAtMs(armedAt).orElse(0);
            assertTrue(faultAt > 0, "the fault fired");
            var runs = AwsClients.dynamoDb().scan(b -> b.tableName(dev.richter.common.TableNames.fromEnv().runs())).items()
                    .stream().filter(i -> i.get("runId").s().startsWith("nightly-team-nightly-lost-")).toList();
            assertEquals(1, runs.size(), runs.toString());
            var run = runs.get(0);
            assertTrue(run.get("abortRequested").bool(), run.toString());
            assertTrue(run.get("abortReason").s().startsWith("monitoring lost: Decide: Richter.InjectedFault"), run.get("abortReason").s());
            assertEquals("ABORTED", run.get("outcome").s());
            assertEquals("COMPLETED", run.get("status").s());
            long last = target.arrivalsMs.stream().mapToLong(Long::longValue).max().orElse(faultAt);
            assertTrue(last - faultAt <= 2_000, "the replay's last request came " + (last - faultAt) + " ms after the fault");
            assertTrue(target.arrivalsMs.size() < 20, "the 20-request replay was cut short: " + target.arrivalsMs.size());
        }
    }

    /**
     * The fault decider fails in the middle of formal step 1 of 3 (every invocation from then on, as the local stack's
     * {@code lambda.FaultDeciderFunction=error}): the monitor is lost, so the abort flag is set with the failed state's
     * name, the workers stop within their poll, step 2 never runs, and the run ends ABORTED with that reason.
     */
    @Test
    @org.junit.jupiter.api.Order(2)
    void aFaultDeciderThatFailsInStep1Of3StopsTheLoadWithin2SecondsAndAbortsTheRun() throws Exception {
        try (FakeTarget target = new FakeTarget()) {
            ApiClient api = api("team-monitor-lost");
            register(api, "watched-svc", target.baseUrl());
            String runId = startRun(api, plan("watched-svc", 2, 2,
                    List.of(new double[] {10, 20}, new double[] {10, 20}, new double[] {10, 20})));
            awaitFormalStep(api, runId, 0, 4_000);
            long armedAt = System.currentTimeMillis();
            stack.faults().set(LocalFaults.parse("lambda.FaultDeciderFunction=error"));
            JsonNode report;
            try {
                report = awaitReport(api, runId, 90_000);
            } finally {
                stack.faults().clear();
            }
            long faultAt = stack.faults().firstFiredAtMs(armedAt).orElse(0);
            assertTrue(faultAt > 0, "the fault fired");

            assertEquals("ABORTED", report.path("outcome").asText(), report.path("outcomeReason").asText());
            assertTrue(report.path("outcomeReason").asText().startsWith("aborted: monitoring lost: Decide: Richter.InjectedFault"),
                    report.path("outcomeReason").asText());
            assertEquals(1, report.path("formal").size(), "steps 2 and 3 never ran: " + report.path("formal"));
            assertTrue(report.path("formal").get(0).path("aborted").asBoolean());
            long last = target.arrivalsMs.stream().mapToLong(Long::longValue).max().orElseThrow();
            assertTrue(last - faultAt <= 2_000, "the target's last request came " + (last - faultAt) + " ms after the fault");
            long sent = 0;
            for (String stage : List.of("preTest", "formal")) {
                for (JsonNode step : report.path(stage)) {
                    sent += step.path("counters").path("sent").asLong();
                }
            }
            assertEquals(target.arrivalsMs.size(), sent, "the report counts what the target received");
        }
    }

    @Test
    @org.junit.jupiter.api.Order(3)
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
