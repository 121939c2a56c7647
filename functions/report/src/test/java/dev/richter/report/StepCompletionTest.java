package dev.richter.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.EventPublisher;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.TableNames;
import dev.richter.common.model.Run;
import dev.richter.common.model.WorkerResult;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.eventbridge.model.PutEventsRequest;
import software.amazon.awssdk.services.eventbridge.model.PutEventsResponse;

/** {@code step-completed}: one {@code Step Completed} per step with the step's merged figures, however often it runs. */
class StepCompletionTest {
    private static final TableNames TABLES = TableNames.fromEnv();

    @Test
    void aStepIsPublishedOnceWithItsMergedFiguresAndTheLatestVerdicts() throws Exception {
        FakeDynamo ddb = new FakeDynamo();
        Repositories repositories = new Repositories(ddb.client, TABLES);
        repositories.putPlan(Fixtures.PLAN);
        repositories.createRun(new Run("run-1", "plan-1", "t1", "RUNNING", "", "formal", 1, 1, false, "", ""));
        List<WorkerResult> results = Fixtures.healthyUpTo(2);
        for (WorkerResult r : results) {
            ddb.put(TABLES.runMetrics(), Map.of("runId", AttributeValue.fromS("run-1"), "sk", AttributeValue.fromS(r.sortKey()),
                    "result", AttributeValue.fromS(Json.write(r))));
        }
        ddb.put(TABLES.verdicts(), Map.of("runId", AttributeValue.fromS("run-1"), "sk", AttributeValue.fromS("verdict#0001#order"),
                "module", AttributeValue.fromS("order"), "verdict", AttributeValue.fromS("SUSPECT"),
                "atMs", AttributeValue.fromN("1")));
        List<PutEventsRequest> events = new ArrayList<>();
        EventBridgeClient bus = (EventBridgeClient) Proxy.newProxyInstance(EventBridgeClient.class.getClassLoader(),
                new Class<?>[] {EventBridgeClient.class}, (proxy, method, args) -> {
                    if (args != null && args.length == 1 && args[0] instanceof PutEventsRequest r) {
                        events.add(r);
                        return PutEventsResponse.builder().failedEntryCount(0).build();
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        ReportHandler handler = new ReportHandler(repositories, new EventPublisher(bus, "richter"));
        String request = "{\"action\":\"step-completed\",\"runId\":\"run-1\",\"teamId\":\"t1\",\"stage\":\"formal\",\"stepIndex\":1}";

        Map<String, Object> first = handler.handle(Json.read(request, ReportEvent.class), null);
        Map<String, Object> retried = handler.handle(Json.read(request, ReportEvent.class), null);

        assertTrue((Boolean) first.get("published"));
        assertFalse((Boolean) retried.get("published"), "a retried task publishes nothing");
        assertEquals(1, events.size());
        assertEquals("Step Completed", events.get(0).entries().get(0).detailType());
        JsonNode d = Json.MAPPER.readTree(events.get(0).entries().get(0).detail());
        WorkerResult step = results.stream().filter(r -> r.stage().equals("formal") && r.stepIndex() == 1).findFirst().orElseThrow();
        assertEquals("run-1", d.path("runId").asText());
        assertEquals("t1", d.path("teamId").asText());
        assertEquals("formal", d.path("stage").asText());
        assertEquals(1, d.path("stepIndex").asInt());
        assertEquals(step.counters().sent(), d.path("sent").asLong());
        assertEquals(step.counters().errors(), d.path("errors").asLong());
        assertTrue(d.path("p99Ms").isNumber(), d.toString());
        assertEquals("SUSPECT", d.path("verdicts").path("order").asText());
        assertEquals("SUSPECT", d.path("worstVerdict").asText());
    }

    @Test
    void aWarmUpStepCompletionRecordsTheStepAtWhichTheWarmUpWasSteadyOnce() throws Exception {
        FakeDynamo ddb = new FakeDynamo();
        Repositories repositories = new Repositories(ddb.client, TABLES);
        repositories.putPlan(Fixtures.PLAN); // the default warm-up: 3 rungs (2, 4.3, 9.3 QPS), then holds of 20 QPS x 10 s
        repositories.createRun(new Run("run-1", "plan-1", "t1", "RUNNING", "", "warm-up", 5, 1, false, "", ""));
        double[] ms = {40, 30, 20, 60, 12, 11, 12};
        double[] qps = {2, 4.3, 9.3, 20, 20, 20, 20};
        var metrics = new dev.richter.common.RunMetricsRepository(ddb.client, TABLES.runMetrics());
        ReportHandler handler = new ReportHandler(repositories, new EventPublisher(
                (EventBridgeClient) Proxy.newProxyInstance(EventBridgeClient.class.getClassLoader(),
                        new Class<?>[] {EventBridgeClient.class}, (proxy, method, args) ->
                                PutEventsResponse.builder().failedEntryCount(0).build()), "richter"));
        List<String> judged = new ArrayList<>();
        for (int i = 0; i < ms.length; i++) {
            WorkerResult r = Fixtures.step("warm-up", i, qps[i], (long) (qps[i] * 10), (long) (qps[i] * 10), Map.of(), 0, ms[i]);
            ddb.put(TABLES.runMetrics(), Map.of("runId", AttributeValue.fromS("run-1"), "sk", AttributeValue.fromS(r.sortKey()),
                    "result", AttributeValue.fromS(Json.write(r))));
            Map<String, Object> out = handler.handle(Json.read("{\"action\":\"step-completed\",\"runId\":\"run-1\",\"teamId\":"
                    + "\"t1\",\"stage\":\"warm-up\",\"stepIndex\":" + i + "}", ReportEvent.class), null);
            judged.add(String.valueOf(out.get("warmUp")));
            assertEquals(i < 6 ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(6), metrics.warmUpSteadyAt("run-1"),
                    "after step " + (i + 1) + ": " + out.get("warmUp"));
        }
        // holds 4-6 (60, 12, 11 ms) are still warming; holds 5-7 (12, 11, 12 ms) are steady
        assertTrue(judged.get(5).startsWith("not steady after 3 hold steps: over steps 4-6 p50 spread"), judged.get(5));
        assertTrue(judged.get(6).startsWith("steady at warm-up step 7: over steps 5-7 p50 11-12 ms"), judged.get(6));
        handler.handle(Json.read("{\"action\":\"step-completed\",\"runId\":\"run-1\",\"teamId\":\"t1\",\"stage\":"
                + "\"warm-up\",\"stepIndex\":6}", ReportEvent.class), null);
        assertEquals(java.util.OptionalInt.of(6), metrics.warmUpSteadyAt("run-1"), "a retried completion keeps the first record");
    }

    /**
     * Issue 42 item 1: the knee confirmed inside the run. Step 2 (40 QPS) held and step 3 (80 QPS) failed, so the
     * completion of step 3 calls for a confirm step at 60 QPS for step 3's 10 s; steps that held, or a failing step after
     * another failing one, call for none.
     */
    @Test
    void theFirstFailingFormalStepAfterOneThatHeldCallsForAConfirmStepMidwayOnce() throws Exception {
        FakeDynamo ddb = new FakeDynamo();
        Repositories repositories = new Repositories(ddb.client, TABLES);
        repositories.putPlan(Fixtures.PLAN); // formal 20, 40, 80 QPS x 10 s
        repositories.createRun(new Run("run-1", "plan-1", "t1", "RUNNING", "", "formal", 2, 80, false, "", ""));
        var metrics = new dev.richter.common.RunMetricsRepository(ddb.client, TABLES.runMetrics());
        ReportHandler handler = new ReportHandler(repositories, new EventPublisher(
                (EventBridgeClient) Proxy.newProxyInstance(EventBridgeClient.class.getClassLoader(),
                        new Class<?>[] {EventBridgeClient.class}, (proxy, method, args) ->
                                PutEventsResponse.builder().failedEntryCount(0).build()), "richter"));
        List<WorkerResult> steps = List.of(
                Fixtures.step("formal", 0, 20, 200, 200, Map.of(), 0, 10),
                Fixtures.step("formal", 1, 40, 400, 400, Map.of(), 0, 12),
                Fixtures.step("formal", 2, 80, 800, 760, Map.of("503", 40L), 0, 30));
        List<Object> answers = new ArrayList<>();
        for (WorkerResult r : steps) {
            ddb.put(TABLES.runMetrics(), Map.of("runId", AttributeValue.fromS("run-1"), "sk", AttributeValue.fromS(r.sortKey()),
                    "result", AttributeValue.fromS(Json.write(r))));
            answers.add(handler.handle(Json.read("{\"action\":\"step-completed\",\"runId\":\"run-1\",\"teamId\":"
                    + "\"t1\",\"stage\":\"formal\",\"stepIndex\":" + r.stepIndex() + "}", ReportEvent.class), null)
                    .get("confirmStep"));
            if (r.stepIndex() < 2) {
                assertTrue(metrics.confirmStep("run-1").isEmpty(), "step " + (r.stepIndex() + 1) + " held");
            }
        }
        assertEquals(java.util.Arrays.asList(null, null,
                "60 QPS for 10 s: step 2 at 40 QPS held, step 3 at 80 QPS failed (success 95.00 %, p99 35.90 ms)"), answers);
        var confirm = metrics.confirmStep("run-1").orElseThrow();
        assertEquals(2, confirm.afterStepIndex());
        assertEquals(60.0, confirm.qps());
        assertEquals(10, confirm.durationS());

        // the slots as RunPreparer maps them: the confirm step takes slot 4 (the confirm slot), after step 3
        var slot = new dev.richter.common.model.StepRef("run-1", "t1", "formal", 3, 80, 10);
        assertEquals(new dev.richter.common.model.StepRef("run-1", "t1", "confirm", 0, 60, 10),
                confirm.stepFor(slot, Fixtures.PLAN));
    }
}
