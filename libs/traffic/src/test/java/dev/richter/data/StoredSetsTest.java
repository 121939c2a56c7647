package dev.richter.data;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.common.model.DataSetRows;
import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.ReplayRequest;
import dev.richter.common.model.Scenario;
import dev.richter.common.model.SetSource;
import dev.richter.common.model.StepPlan;
import dev.richter.common.model.WorkerRef;
import dev.richter.sizing.PlanNotRunnableException;
import dev.richter.sizing.WorkerTasks;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;


/**
 * Scenarios that name stored sets: a traffic set becomes a weighted request list with its slots filled, and the rows of
 * a {@code unique} data set are partitioned so no two workers (of any leg) of a step get the same row.
 */
class StoredSetsTest {
    private static final RegisteredService SHOP = new RegisteredService("t1", "shop", "http://shop:8080",
            "/health", "/metrics", List.of());

    private static JsonNode trafficSet() {
        return Json.read("""
                {"endpoints": [
                  {"method": "GET", "pathTemplate": "/items/{id}", "weight": 0.75, "samples": [
                    {"method": "GET", "target": "/items/1?access_token={{slot:query.access_token}}", "headers": [], "body": "", "bodyEncoding": "none"},
                    {"method": "GET", "target": "/items/2", "headers": [], "body": "", "bodyEncoding": "none"}]},
                  {"method": "POST", "pathTemplate": "/orders", "weight": 0.25, "samples": [
                    {"method": "POST", "target": "/orders", "headers": [{"name": "authorization", "value": "{{slot:header.authorization}}"}],
                     "body": "{\\"email\\":\\"{{slot:email}}\\"}", "bodyEncoding": "text"}]},
                  {"method": "GET", "pathTemplate": "/ws", "weight": 0.0, "samples": []}]}
                """, JsonNode.class);
    }

    /** A data set of 10 rows, row 3 failed. */
    private static JsonNode dataSet() {
        StringBuilder rows = new StringBuilder();
        for (int i = 0; i < 10; i++) {
            rows.append(i == 0 ? "" : ",").append(i == 3
                    ? "{\"row\":3,\"status\":\"failed\",\"values\":{},\"error\":\"unit create: HTTP 503\"}"
                    : "{\"row\":" + i + ",\"status\":\"ok\",\"values\":{\"buyerId\":\"b-" + i + "\",\"n\":" + i + "}}");
        }
        return Json.read("{\"columns\":[\"buyerId\",\"n\"],\"rows\":[" + rows + "]}", JsonNode.class);
    }

    @Test
    void aTrafficSetBecomesRequestsByEndpointWeight() {
        List<ReplayRequest> requests = StoredSets.replayRequests(trafficSet());
        assertEquals(100, requests.size());
        Map<String, Integer> byPath = new HashMap<>();
        requests.forEach(r -> byPath.merge(r.path(), 1, Integer::sum));
        assertEquals(Map.of("/items/1?access_token={{slot:query.access_token}}", 38, "/items/2", 37, "/orders", 25), byPath);
        assertEquals("GET", requests.get(0).method());
        assertEquals(List.of("GET", "GET", "POST", "GET"), requests.subList(0, 4).stream().map(ReplayRequest::method).toList(),
                "endpoints interleaved by smooth weighted round-robin, not in blocks");
        ReplayRequest order = requests.get(2);
        assertEquals("{\"email\":\"{{slot:email}}\"}", new String(Base64.getDecoder().decode(order.bodyBase64()), StandardCharsets.UTF_8));
    }

    /**
     * A set stored before imports copied {@code postData.mimeType} into the headers (issue 24, finding 13) has its body's
     * type only in the sample's {@code contentType}: the replay sends it as {@code Content-Type}; a sample with the
     * header keeps its own, and one without a body gets none.
     */
    @Test
    void aSampleTypedOnlyByItsContentTypeIsReplayedWithThatHeader() {
        List<ReplayRequest> requests = StoredSets.replayRequests(Json.read("""
                {"endpoints": [
                  {"method": "POST", "pathTemplate": "/login", "weight": 0.5, "samples": [
                    {"method": "POST", "target": "/login", "headers": [], "body": "user=alice", "bodyEncoding": "text",
                     "contentType": "application/x-www-form-urlencoded"},
                    {"method": "POST", "target": "/login", "headers": [{"name": "content-type", "value": "text/plain"}],
                     "body": "user=bob", "bodyEncoding": "text", "contentType": "application/x-www-form-urlencoded"}]},
                  {"method": "GET", "pathTemplate": "/", "weight": 0.5, "samples": [
                    {"method": "GET", "target": "/", "headers": [], "body": "", "bodyEncoding": "none", "contentType": "text/html"}]}]}
                """, JsonNode.class));
        assertEquals(Map.of("Content-Type", "application/x-www-form-urlencoded"), requests.get(0).headers());
        assertEquals(Map.of(), requests.get(1).headers());
        assertEquals(Map.of("content-type", "text/plain"), requests.get(2).headers());
    }

    @Test
    void okRowsAsTextWithTheirIndexes() {
        DataSetRows rows = StoredSets.rows(dataSet());
        assertEquals(List.of("buyerId", "n"), rows.columns());
        assertEquals(List.of(0, 1, 2, 4, 5, 6, 7, 8, 9), rows.indexes());
        assertEquals(List.of("b-4", "4"), rows.rows().get(3));
    }

    private static SetSource sets() {
        return new SetSource() {
            @Override
            public Optional<List<ReplayRequest>> trafficSet(String teamId, String setId) {
                return setId.equals("ts-1") ? Optional.of(StoredSets.replayRequests(StoredSetsTest.trafficSet())) : Optional.empty();
            }

            @Override
            public Optional<DataSetRows> dataSet(String teamId, String dataSetId) {
                return dataSetId.equals("buyers") ? Optional.of(StoredSets.rows(StoredSetsTest.dataSet())) : Optional.empty();
            }
        };
    }

    private static Plan plan(String mode, String trafficSetId) {
        return new Plan("plan-1", "t1", "p", List.of(new Plan.ScenarioSpec("replay", "shop", 1, List.of(), trafficSetId,
                List.of(new Plan.DataBinding("buyers", mode)),
                Map.of("email", "{{data.buyers.buyerId}}@shadow.example", "header.authorization", "Bearer {{data.buyers.n}}"))),
                new Plan.StepSpec(2, 10), List.of(new Plan.StepSpec(20, 15)), null, List.of("shop"), 5, 1000, 0);
    }

    private static StepPlan step(int workers, int legs) {
        return new StepPlan("run-1", "t1", "plan-1", "formal", 0, 20, 15, 5, workers, 1_000, 5_000, legs, 1000, 2000, 100);
    }

    @Test
    void uniqueRowsArePartitionedOverWorkersAndLegs() {
        Plan plan = plan("unique", "ts-1");
        Set<String> seen = new HashSet<>();
        int total = 0;
        for (int leg = 0; leg < 2; leg++) {
            for (int worker = 0; worker < 2; worker++) {
                var task = WorkerTasks.workerTask(step(2, 2), new WorkerRef("run-1", "t1", "formal", 0, leg, worker),
                        plan, List.of(SHOP), sets());
                Scenario.DataRows rows = task.scenarios().get(0).data().get(0);
                assertEquals("unique", rows.mode());
                for (List<String> r : rows.rows()) {
                    int index = Integer.parseInt(r.get(1));
                    assertEquals(leg * 2 + worker, index % 4, "worker " + worker + " of leg " + leg + " got row " + index);
                    assertTrue(seen.add(r.get(0)), "row " + r + " given twice");
                    total++;
                }
            }
        }
        assertEquals(9, total, "every ok row, once");
        var task = WorkerTasks.workerTask(step(2, 2), new WorkerRef("run-1", "t1", "formal", 0, 0, 0), plan, List.of(SHOP), sets());
        Scenario sc = task.scenarios().get(0);
        assertEquals(100, sc.requests().size());
        assertEquals("http://shop:8080", sc.targetBaseUrl());
        ReplayRequest order = sc.requests().get(2);
        assertEquals("Bearer {{data.buyers.n}}", order.headers().get("authorization"));
        assertEquals("{\"email\":\"{{data.buyers.buyerId}}@shadow.example\"}",
                new String(Base64.getDecoder().decode(order.bodyBase64()), StandardCharsets.UTF_8));
        assertEquals("/items/1?access_token={{slot:query.access_token}}", sc.requests().get(0).path(), "a slot without a template stays");
    }

    @Test
    void sequentialAndRandomSetsAreWholeSequentialRotatedPerWorker() {
        var seq = WorkerTasks.workerTask(step(3, 1), new WorkerRef("run-1", "t1", "formal", 0, 0, 1),
                plan("sequential", "ts-1"), List.of(SHOP), sets()).scenarios().get(0).data().get(0);
        assertEquals(9, seq.rows().size());
        assertEquals("b-4", seq.rows().get(0).get(0), "worker 1 of 3 starts a third of the way in");
        var random = WorkerTasks.workerTask(step(3, 1), new WorkerRef("run-1", "t1", "formal", 0, 0, 2),
                plan("random", "ts-1"), List.of(SHOP), sets()).scenarios().get(0).data().get(0);
        assertEquals("b-0", random.rows().get(0).get(0));
        assertEquals(9, random.rows().size());
    }

    @Test
    void aMissingSetMakesThePlanNotRunnable() {
        var e = assertThrows(PlanNotRunnableException.class, () -> WorkerTasks.workerTask(step(1, 1),
                new WorkerRef("run-1", "t1", "formal", 0, 0, 0), plan("unique", "ts-gone"), List.of(SHOP), sets()));
        assertEquals("scenario 'replay' replays traffic set 'ts-gone', which is not stored", e.getMessage());
        List<String> none = new ArrayList<>();
        assertTrue(none.isEmpty());
    }
}
