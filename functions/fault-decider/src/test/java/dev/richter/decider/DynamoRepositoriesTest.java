package dev.richter.decider;

import static org.junit.jupiter.api.Assertions.*;

import dev.richter.common.model.HealthReport;
import dev.richter.common.model.HistogramCodec;
import dev.richter.common.model.Verdict;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * The DynamoDB repositories' key layout and JSON round trips, against a minimal in-memory table that
 * understands exactly the requests they send (GetItem, PutItem, Query with {@code begins_with} or
 * {@code BETWEEN} on the sort key). The local-stack integration test runs them against dynalite.
 */
class DynamoRepositoriesTest {
    /** table -> partition key value -> sort key value -> item. */
    final Map<String, Map<String, TreeMap<String, Map<String, AttributeValue>>>> tables = new ConcurrentHashMap<>();

    final DynamoDbClient ddb = (DynamoDbClient) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {DynamoDbClient.class}, (proxy, method, args) -> switch (method.getName()) {
                case "putItem" -> put((PutItemRequest) args[0]);
                case "getItem" -> get((GetItemRequest) args[0]);
                case "query" -> query((QueryRequest) args[0]);
                case "close" -> null;
                case "serviceName" -> "dynamodb";
                default -> throw new UnsupportedOperationException(method.getName());
            });

    static String[] keys(String table) {
        return table.equals("registry") ? new String[] {"teamId", "itemKey"} : new String[] {"runId", "sk"};
    }

    PutItemResponse put(PutItemRequest r) {
        String[] k = keys(r.tableName());
        tables.computeIfAbsent(r.tableName(), t -> new ConcurrentHashMap<>())
                .computeIfAbsent(r.item().get(k[0]).s(), p -> new TreeMap<>()).put(r.item().get(k[1]).s(), r.item());
        return PutItemResponse.builder().build();
    }

    GetItemResponse get(GetItemRequest r) {
        String[] k = keys(r.tableName());
        var part = tables.getOrDefault(r.tableName(), Map.of()).get(r.key().get(k[0]).s());
        var item = part == null ? null : part.get(r.key().get(k[1]).s());
        return item == null ? GetItemResponse.builder().build() : GetItemResponse.builder().item(item).build();
    }

    QueryResponse query(QueryRequest r) {
        var v = r.expressionAttributeValues();
        var part = tables.getOrDefault(r.tableName(), Map.of()).getOrDefault(v.get(":r").s(), new TreeMap<>());
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        if (r.keyConditionExpression().contains("begins_with")) {
            part.forEach((sk, item) -> { if (sk.startsWith(v.get(":p").s())) items.add(item); });
        } else if (r.keyConditionExpression().contains("BETWEEN")) {
            items.addAll(part.subMap(v.get(":a").s(), true, v.get(":b").s(), true).values());
        } else {
            throw new UnsupportedOperationException(r.keyConditionExpression());
        }
        return QueryResponse.builder().items(items).build();
    }

    @Test
    void rulesAreReadEachTimeAndMissingFieldsAreDefaults() {
        var repo = new DynamoDecisionRulesRepository(ddb, "registry");
        assertEquals(DecisionRules.defaults(), repo.load("team-a"));
        put(PutItemRequest.builder().tableName("registry").item(Map.of("teamId", AttributeValue.fromS("team-a"),
                "itemKey", AttributeValue.fromS("rules#decision"),
                "rules", AttributeValue.fromS("{\"damagedAfterConsecutiveFailures\":6}"))).build());
        assertEquals(6, repo.load("team-a").damagedAfterConsecutiveFailures());
        assertEquals(5, repo.load("team-a").suspectAfterConsecutiveFailures());
        repo.save("team-b", DecisionRules.defaults().withThresholds(Thresholds.builder().minSuccessRate(0.99).p99MaxMs(2000)
                .p99OverBaselineRatio(1.5).connectionsInUseMaxRatio(0.9).heapUsedMaxRatio(0.85).cpuMaxRatio(0.9).build()));
        assertEquals(0.85, repo.load("team-b").thresholds().heapUsedMaxRatio());
    }

    @Test
    void statesAndVerdictsRoundTrip() {
        var repo = new DynamoVerdictRepository(ddb, "verdicts");
        var decider = new FaultDecider();
        var in = new DecisionInput("run-1", "formal", 2, List.of("order"), 1_764_493_200_000L, List.of(
                new HealthReport("order", "http", false, "TIMEOUT", List.of(), 1000, "t", Map.of(), 0),
                new HealthReport("order", "tcp", false, "REFUSED", List.of(), 1, "r", Map.of(), 0),
                new HealthReport("order", "prometheus", true, "SCRAPED", List.of(), 1, "", Map.of("heapUsedRatio", 0.95), 0)));
        var d = decider.decide(in, DecisionRules.defaults(), Map.of(), PassiveEvidence.none());
        repo.save("run-1", d.modules());
        var states = repo.loadStates("run-1");
        assertEquals(d.modules().getFirst().next(), states.get("order"));
        var item = tables.get("verdicts").get("run-1").get("verdict#1764493200000#order");
        assertNotNull(item, tables.get("verdicts").get("run-1").keySet().toString());
        assertEquals("DAMAGED", item.get("verdict").s());
        assertTrue(item.get("evidence").s().contains("\"voteFraction\""));
        assertEquals(Verdict.State.DAMAGED, states.get("order").verdict());
    }

    @Test
    void windowsAreQueriedBySecondRangeWithinTheStep() {
        var h = HistogramCodec.newLatencyHistogramUs();
        h.recordValue(12_000);
        String hist = HistogramCodec.encode(h);
        for (long sec = 1_764_493_190L; sec <= 1_764_493_199L; sec++) {
            for (int w = 0; w < 2; w++) {
                for (String step : List.of("formal#001", "formal#002")) {
                    put(PutItemRequest.builder().tableName("run-metrics").item(Map.of("runId", AttributeValue.fromS("run-1"),
                            "sk", AttributeValue.fromS("window#%s#%d#%04d".formatted(step, sec, w)),
                            "count", AttributeValue.fromN("10"), "errors", AttributeValue.fromN("1"),
                            "hist", AttributeValue.fromS(hist))).build());
                }
            }
        }
        var repo = new DynamoWindowReader(ddb, "run-metrics");
        var ws = repo.windows("run-1", "formal", 1, 1_764_493_197L, 1_764_493_199L);
        assertEquals(6, ws.size());
        assertEquals(1_764_493_197L, ws.getFirst().epochSecond());
        var sum = PassiveEvidence.fromWindows(ws).lastSeconds(1_764_493_200_000L, 3);
        assertEquals(60, sum.requests());
        assertEquals(0.1, sum.errorRate(), 1e-9);
        assertEquals(12.0, sum.p99Ms(), 0.05);
    }
}
