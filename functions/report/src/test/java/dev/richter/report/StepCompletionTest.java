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
}
