package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.net.URI;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionRequest;
import software.amazon.awssdk.services.sfn.model.ExecutionDoesNotExistException;

/**
 * Planned starts on the local stack (issue 26, item 1): a run scheduled 5 s ahead starts at its second (±1 s), a
 * cancelled one never starts, a planned start that finds its target leased at its time is recorded START_FAILED with
 * its reason and a {@code Run Start Failed} event, and bad start times are 400s at {@code $.startAt}.
 */
class PlannedStartIT extends LocalAwsStackTestSupport {
    private static SfnClient sfn() {
        return SfnClient.builder().region(Region.US_EAST_1)
                .endpointOverride(URI.create(System.getenv("AWS_ENDPOINT_URL_SFN"))).build();
    }

    private static final String EXECUTION_PREFIX = "arn:aws:states:us-east-1:123456789012:execution:richter-dev-load-test-run:";

    /** The execution's start, or null when the run has none. */
    private static Instant executionStart(String runId) {
        try (SfnClient sfn = sfn()) {
            return sfn.describeExecution(DescribeExecutionRequest.builder().executionArn(EXECUTION_PREFIX + runId).build())
                    .startDate();
        } catch (ExecutionDoesNotExistException e) {
            return null;
        }
    }

    private static void await(java.util.function.BooleanSupplier done) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 10_000;
        while (!done.getAsBoolean()) {
            assertTrue(System.currentTimeMillis() < deadline, "timed out");
            Thread.sleep(50);
        }
    }

    private static String body(Instant at) {
        return Json.write(Map.of("startAt", at.toString()));
    }

    @Test
    void aRunScheduledFiveSecondsAheadStartsOnTimeACancelledOneNeverStartsAndALeasedTargetFailsTheStart() throws Exception {
        try (FakeTarget target = new FakeTarget(); FakeTarget other = new FakeTarget()) {
            ApiClient api = api("team-planned");
            register(api, "planned-svc", target.baseUrl());
            register(api, "planned-other", other.baseUrl());
            String plan = plan("planned-svc", 2, 2, List.<double[]>of(new double[] {2, 2}));
            String planId = api.post("/plans", plan).json().path("planId").asText();
            String samePlanId = api.post("/plans", plan).json().path("planId").asText();
            String otherPlanId = api.post("/plans", plan("planned-other", 2, 2, List.<double[]>of(new double[] {2, 2})))
                    .json().path("planId").asText();

            // bad start times: the field and the rule
            for (String bad : List.of("tomorrow", Instant.now().minusSeconds(5).toString(),
                    Instant.now().plus(31, ChronoUnit.DAYS).toString(), "2026-12-24T20:00:00")) {
                var r = api.post("/plans/" + planId + "/runs", Json.write(Map.of("startAt", bad)));
                assertEquals(400, r.status(), bad + ": " + r.body());
                assertTrue(r.body().contains("$.startAt"), "names the field: " + r.body());
            }
            var unknownField = api.post("/plans/" + planId + "/runs", "{\"startsAt\":\"x\"}");
            assertEquals(400, unknownField.status(), unknownField.body());

            Instant at = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(5);
            var scheduled = api.post("/plans/" + planId + "/runs", body(at));
            assertEquals(202, scheduled.status(), scheduled.body());
            assertEquals("SCHEDULED", scheduled.json().path("status").asText());
            assertEquals(at.toString(), scheduled.json().path("startAt").asText());
            String runId = scheduled.json().path("runId").asText();
            // a second run of the same target two seconds later: both pass the checks now (nothing holds the target yet)
            var second = api.post("/plans/" + samePlanId + "/runs", body(at.plusSeconds(2)));
            assertEquals(202, second.status(), second.body());
            String secondId = second.json().path("runId").asText();
            var cancelled = api.post("/plans/" + otherPlanId + "/runs", body(at));
            assertEquals(202, cancelled.status(), cancelled.body());
            String cancelledId = cancelled.json().path("runId").asText();

            JsonNode status = api.get("/runs/" + runId).json();
            assertEquals("SCHEDULED", status.path("run").path("status").asText(), status.toString());
            assertEquals(at.toString(), status.path("startAt").asText());
            JsonNode listed = api.get("/plans/" + planId + "/runs").json().path("items").get(0);
            assertEquals(runId, listed.path("runId").asText());
            assertEquals("SCHEDULED", listed.path("status").asText());
            // a start this near fires its schedule at the next second; the start function then waits for the planned one
            await(() -> stack.scheduler().fired().stream().anyMatch(f -> f.schedule().name().equals(runId)));
            LocalScheduler.Schedule fired = stack.scheduler().fired().stream().filter(f -> f.schedule().name().equals(runId))
                    .findFirst().orElseThrow().schedule();
            assertEquals("arn:aws:iam::123456789012:role/richter-ScheduledStartRole", fired.roleArn(), "the schedule runs as its role");
            assertEquals("arn:aws:lambda:us-east-1:123456789012:function:ScheduledStartFunction", fired.targetArn());
            assertFalse(stack.scheduler().schedule("RunScheduleGroup", runId).isPresent(), "deleted after it ran");
            assertEquals("SCHEDULED", api.get("/runs/" + runId).json().path("run").path("status").asText(),
                    "still SCHEDULED until its second");

            // cancelled while its start function waits for its second
            var cancel = api.delete("/runs/" + cancelledId);
            assertEquals(200, cancel.status(), cancel.body());
            assertEquals("CANCELLED", cancel.json().path("status").asText());
            assertEquals(409, api.delete("/runs/" + cancelledId).status(), "a cancelled run cannot be cancelled again");
            // cancelled before its schedule fired: the schedule is deleted
            var later = api.post("/plans/" + otherPlanId + "/runs", body(at.plus(10, ChronoUnit.MINUTES)));
            assertEquals(202, later.status(), later.body());
            String laterId = later.json().path("runId").asText();
            assertTrue(stack.scheduler().schedule("RunScheduleGroup", laterId).isPresent(), "its schedule waits");
            assertEquals(200, api.delete("/runs/" + laterId).status());
            assertFalse(stack.scheduler().schedule("RunScheduleGroup", laterId).isPresent(), "its schedule is deleted");

            long deadline = System.currentTimeMillis() + 20_000;
            Instant started = null;
            while (started == null && System.currentTimeMillis() < deadline) {
                Thread.sleep(100);
                started = executionStart(runId);
            }
            assertTrue(started != null, "the planned run started");
            long offsetMs = started.toEpochMilli() - at.toEpochMilli();
            System.out.println("planned start at " + at + ", execution started " + started + " (" + offsetMs + " ms)");
            assertTrue(Math.abs(offsetMs) <= 1000, "started within 1 s of its time: " + offsetMs + " ms");

            var deleteStarted = api.delete("/runs/" + runId);
            assertEquals(409, deleteStarted.status(), deleteStarted.body());
            assertEquals("RunNotScheduled", deleteStarted.json().path("error").asText());

            // the second run's time comes while the first holds the target: recorded as failed, with the reason
            JsonNode failed = null;
            deadline = System.currentTimeMillis() + 20_000;
            while (System.currentTimeMillis() < deadline) {
                failed = api.get("/runs/" + secondId).json();
                // STARTING is the start function's own step between the planned second and the lease: not settled
                String now = failed.path("run").path("status").asText();
                if (!now.equals("SCHEDULED") && !now.equals("STARTING")) {
                    break;
                }
                Thread.sleep(200);
            }
            assertEquals("START_FAILED", failed.path("run").path("status").asText(), failed.toString());
            assertTrue(failed.path("failureReason").asText().contains("in use by run " + runId), failed.toString());
            List<JsonNode> startFailed = stack.eventBus().events().stream()
                    .filter(e -> e.path("detail-type").asText().equals("Run Start Failed")
                            && e.path("detail").path("runId").asText().equals(secondId)).toList();
            assertEquals(1, startFailed.size(), "one Run Start Failed event");
            assertEquals(null, executionStart(secondId), "the refused start started no execution");

            Thread.sleep(2000); // well past the cancelled run's time
            assertEquals(null, executionStart(cancelledId), "the cancelled run never started");
            assertEquals("CANCELLED", api.get("/runs/" + cancelledId).json().path("run").path("status").asText());
            assertTrue(other.arrivalsMs.isEmpty(), "no request reached the cancelled run's target");

            JsonNode report = awaitReport(api, runId, 180_000);
            assertEquals("PASSED", report.path("outcome").asText(), report.path("outcomeReason").asText());
        }
    }
}
