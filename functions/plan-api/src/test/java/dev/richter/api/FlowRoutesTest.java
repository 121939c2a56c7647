package dev.richter.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.TableNames;
import dev.richter.common.sizing.Quotas;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.sfn.SfnClient;

/**
 * {@code POST /flows}, {@code GET /flows/{flowId}}, {@code POST /flows/{flowId}/runs}, {@code GET /data-sets/{dataSetId}}
 * through the Lambda handler against an in-memory registry and audit table and a JDK {@link HttpServer} standing in for
 * the service under test; every body is checked against its component schema in {@code openapi.json}.
 */
class FlowRoutesTest {
    /** table NUL teamId NUL sort key -> item. */
    private final TreeMap<String, Map<String, AttributeValue>> items = new TreeMap<>();
    /** Fail the n-th put of a traffic-set manifest (0: never). */
    private int failPutsWithPrefix;
    private final InputValidator schemas = new InputValidator();

    private final DynamoDbClient ddb = (DynamoDbClient) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {DynamoDbClient.class}, (proxy, method, args) -> switch (method.getName()) {
                case "putItem" -> put((PutItemRequest) args[0]);
                case "getItem" -> get((GetItemRequest) args[0]);
                case "deleteItem" -> delete((DeleteItemRequest) args[0]);
                case "query" -> query((QueryRequest) args[0]);
                case "queryPaginator" -> new software.amazon.awssdk.services.dynamodb.paginators.QueryIterable(
                        (DynamoDbClient) proxy, (QueryRequest) args[0]);
                case "close" -> null;
                case "serviceName" -> "dynamodb";
                default -> throw new UnsupportedOperationException(method.getName());
            });

    private static String key(String table, Map<String, AttributeValue> item) {
        if (table.equals("plans")) {
            return table + "\u0000\u0000" + item.get("planId").s();
        }
        String sk = item.containsKey("itemKey") ? item.get("itemKey").s() : item.get("sk").s();
        return table + "\u0000" + item.get("teamId").s() + "\u0000" + sk;
    }

    private PutItemResponse put(PutItemRequest r) {
        if (failPutsWithPrefix > 0 && r.item().containsKey("itemKey") && r.item().get("itemKey").s().startsWith("trafficset#")
                && --failPutsWithPrefix == 0) {
            throw new IllegalStateException("induced DynamoDB failure");
        }
        if ("attribute_not_exists(itemKey)".equals(r.conditionExpression()) && items.containsKey(key(r.tableName(), r.item()))) {
            throw ConditionalCheckFailedException.builder().message("exists").build();
        }
        items.put(key(r.tableName(), r.item()), r.item());
        return PutItemResponse.builder().build();
    }

    private GetItemResponse get(GetItemRequest r) {
        var item = items.get(key(r.tableName(), r.key()));
        return item == null ? GetItemResponse.builder().build() : GetItemResponse.builder().item(item).build();
    }

    private DeleteItemResponse delete(DeleteItemRequest r) {
        items.remove(key(r.tableName(), r.key()));
        return DeleteItemResponse.builder().build();
    }

    private QueryResponse query(QueryRequest r) {
        String team = r.expressionAttributeValues().get(":t").s();
        String prefix = r.expressionAttributeValues().containsKey(":p") ? r.expressionAttributeValues().get(":p").s() : null;
        String after = r.exclusiveStartKey() == null || r.exclusiveStartKey().isEmpty() ? null : key(r.tableName(), r.exclusiveStartKey());
        List<Map<String, AttributeValue>> out = new ArrayList<>();
        Map<String, AttributeValue> last = null;
        int limit = r.limit() == null ? Integer.MAX_VALUE : r.limit();
        for (var e : items.entrySet()) {
            var item = e.getValue();
            if (!e.getKey().startsWith(r.tableName() + "\u0000") || !item.get("teamId").s().equals(team)
                    || (prefix != null && !item.get("itemKey").s().startsWith(prefix)) || (after != null && e.getKey().compareTo(after) <= 0)) {
                continue;
            }
            if (out.size() == limit) {
                break;
            }
            out.add(item);
            last = Map.of("teamId", item.get("teamId"), "itemKey", item.get("itemKey"));
        }
        return QueryResponse.builder().items(out).lastEvaluatedKey(out.size() == limit ? last : null).build();
    }

    private final SfnClient sfn = (SfnClient) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {SfnClient.class}, (proxy, method, args) -> {
                throw new UnsupportedOperationException(method.getName());
            });

    private final PlanApiHandler handler = new PlanApiHandler(new PlanApi(new Repositories(ddb,
            new TableNames("registry", "plans", "runs", "run-metrics", "verdicts", "links", "reports", "audit")),
            sfn, "arn:aws:states:us-east-1:1:stateMachine:run", 100_000, () -> Quotas.AWS));

    private Map<String, Object> call(String routeKey, String team, Map<String, String> path, Map<String, String> query, byte[] body) {
        ObjectNode e = Json.MAPPER.createObjectNode();
        e.put("routeKey", routeKey);
        ObjectNode claims = e.putObject("requestContext").putObject("authorizer").putObject("jwt").putObject("claims");
        claims.put("team", team);
        claims.put("sub", "user-of-" + team);
        e.set("pathParameters", Json.MAPPER.valueToTree(path));
        e.set("queryStringParameters", Json.MAPPER.valueToTree(query));
        if (body != null) {
            e.put("body", Base64.getEncoder().encodeToString(body));
            e.put("isBase64Encoded", true);
        }
        return handler.handle(e, null);
    }

    private static JsonNode body(Map<String, Object> response) {
        return Json.read((String) response.get("body"), JsonNode.class);
    }

    private void assertConforms(String schema, JsonNode doc) {
        var problems = schemas.schema(schema).validate(doc);
        assertTrue(problems.isEmpty(), schema + ": " + problems);
    }

    private HttpServer server;
    private String base;
    private final List<String> markers = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/buyers", ex -> {
            markers.add(String.valueOf(ex.getRequestHeaders().getFirst("baggage")));
            JsonNode in = Json.MAPPER.readTree(ex.getRequestBody());
            byte[] b = ("{\"id\":\"b-" + in.path("n").asInt() + "\"}").getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(201, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private static byte[] json(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static final String FLOW = """
            {"name": "shadow buyers", "inputs": {"baseUrl": "string"},
             "units": [
               {"id": "number", "unit": {"kind": "transform", "inputs": {"row": "number"}, "outputs": {"n": "number"},
                                         "expression": "{\\"n\\": row * 10}"},
                "inputs": {"row": "gen.row"}},
               {"id": "create", "unit": {"kind": "http", "inputs": {"baseUrl": "string", "n": "number"},
                                         "outputs": {"buyerId": "string"}, "method": "POST", "url": "{{baseUrl}}/buyers",
                                         "body": "{\\"n\\": n}", "extract": {"buyerId": "body.id"}},
                "inputs": {"baseUrl": "input.baseUrl", "n": "number.n"}}],
             "columns": {"buyerId": "create.buyerId"}}
            """;

    @Test
    void createRunAndReadADataSet() {
        assertEquals(201, call("POST /services", "t1", Map.of(), Map.of(), json("{\"name\": \"shop\", \"baseUrl\": \"" + base + "\"}"))
                .get("statusCode"));
        var created = call("POST /flows", "t1", Map.of(), Map.of(), json(FLOW));
        assertEquals(201, created.get("statusCode"), String.valueOf(created.get("body")));
        JsonNode flow = body(created);
        assertConforms("Flow", flow);
        String flowId = flow.path("flowId").asText();
        assertEquals("/flows/" + flowId, ((Map<?, ?>) created.get("headers")).get("Location"));
        assertConforms("Flow", body(call("GET /flows/{flowId}", "t1", Map.of("flowId", flowId), Map.of(), null)));
        assertEquals(404, call("GET /flows/{flowId}", "t2", Map.of("flowId", flowId), Map.of(), null).get("statusCode"));

        var run = call("POST /flows/{flowId}/runs", "t1", Map.of("flowId", flowId), Map.of(),
                json("{\"rows\": 3, \"concurrency\": 2, \"dataSetId\": \"buyers\", \"inputs\": {\"baseUrl\": \"" + base + "\"}}"));
        assertEquals(201, run.get("statusCode"), String.valueOf(run.get("body")));
        JsonNode result = body(run);
        assertConforms("FlowRunResult", result);
        assertEquals(3, result.path("ok").asInt());
        assertEquals("/data-sets/buyers", ((Map<?, ?>) run.get("headers")).get("Location"));
        assertEquals(List.of("richter-loadtest=1", "richter-loadtest=1", "richter-loadtest=1"), markers);

        JsonNode set = body(call("GET /data-sets/{dataSetId}", "t1", Map.of("dataSetId", "buyers"), Map.of(), null));
        assertConforms("DataSet", set);
        assertEquals("b-0", set.path("rows").get(0).path("values").path("buyerId").asText());
        assertEquals("b-20", set.path("rows").get(2).path("values").path("buyerId").asText());
        assertEquals(404, call("GET /data-sets/{dataSetId}", "t2", Map.of("dataSetId", "buyers"), Map.of(), null).get("statusCode"));

        var again = call("POST /flows/{flowId}/runs", "t1", Map.of("flowId", flowId), Map.of(),
                json("{\"rows\": 3, \"dataSetId\": \"buyers\", \"inputs\": {\"baseUrl\": \"" + base + "\"}}"));
        assertEquals(3, body(again).path("resumed").asInt());
        assertEquals(3, markers.size(), "a resumed run creates nothing twice");
    }

    @Test
    void badFlowsAndRunsAreA400WithPaths() {
        String cyclic = FLOW.replace("\"row\": \"gen.row\"", "\"row\": \"create.buyerId\"");
        var r = call("POST /flows", "t1", Map.of(), Map.of(), json(cyclic));
        assertEquals(400, r.get("statusCode"));
        JsonNode err = body(r);
        assertConforms("Error", err);
        List<String> paths = new ArrayList<>();
        err.path("errors").forEach(e -> paths.add(e.path("path").asText() + " " + e.path("reason").asText()));
        assertTrue(paths.contains("$.units[0].inputs.row type mismatch: 'create.buyerId' is a string, the slot takes a number"), paths.toString());
        assertTrue(paths.stream().anyMatch(p -> p.startsWith("$.units[0].inputs.row cycle: number <- create <- number")), paths.toString());

        var schema = call("POST /flows", "t1", Map.of(), Map.of(), json("{\"name\": \"x\", \"units\": [], \"columns\": {}}"));
        assertEquals(400, schema.get("statusCode"));
        assertEquals("ValidationFailed", body(schema).path("error").asText());

        String flowId = body(call("POST /flows", "t1", Map.of(), Map.of(), json(FLOW))).path("flowId").asText();
        var badRun = call("POST /flows/{flowId}/runs", "t1", Map.of("flowId", flowId), Map.of(), json("{\"rows\": 0}"));
        assertEquals(400, badRun.get("statusCode"));
        assertEquals("$.rows", body(badRun).path("errors").get(0).path("path").asText());
        var noInput = call("POST /flows/{flowId}/runs", "t1", Map.of("flowId", flowId), Map.of(), json("{\"rows\": 1}"));
        assertEquals(400, noInput.get("statusCode"));
        assertEquals("$.inputs.baseUrl", body(noInput).path("errors").get(0).path("path").asText());
        assertEquals(404, call("POST /flows/{flowId}/runs", "t2", Map.of("flowId", flowId), Map.of(), json("{\"rows\": 1}")).get("statusCode"));
        assertTrue(markers.isEmpty());
    }

    @Test
    void aPlanDrawsFromAStoredDataSetAndNamesOnlyStoredSets() {
        assertEquals(201, call("POST /services", "t1", Map.of(), Map.of(), json("{\"name\": \"shop\", \"baseUrl\": \"" + base + "\"}"))
                .get("statusCode"));
        String flowId = body(call("POST /flows", "t1", Map.of(), Map.of(), json(FLOW))).path("flowId").asText();
        assertEquals(201, call("POST /flows/{flowId}/runs", "t1", Map.of("flowId", flowId), Map.of(),
                json("{\"rows\": 2, \"dataSetId\": \"buyers\", \"inputs\": {\"baseUrl\": \"" + base + "\"}}")).get("statusCode"));
        String plan = """
                {"name": "orders", "preTest": {"qps": 1, "durationS": 5}, "formal": {"steps": [{"qps": 2, "durationS": 5}]},
                 "scenarios": [{"name": "order", "service": "shop", "data": [{"dataSetId": "buyers", "mode": "unique"}],
                   "requests": [{"method": "POST", "path": "/orders/{{data.buyers.buyerId}}?ref={{gen.uuid}}",
                                 "headers": {"x-cart": "{{data.buyers.%s}}"}, "body": "{}"}]}]}
                """;
        var tooFew = call("POST /plans", "t1", Map.of(), Map.of(), json(plan.formatted("buyerId")));
        assertEquals(400, tooFew.get("statusCode"));
        assertEquals("$.scenarios[0].data[0].dataSetId", body(tooFew).path("errors").get(0).path("path").asText());
        assertEquals("data set 'buyers' has 2 ok rows but the scenario's largest step sends 10 requests, each needing a row of its own "
                + "(mode unique): build more rows, or use mode sequential or random", body(tooFew).path("errors").get(0).path("reason").asText());
        assertEquals(201, call("POST /flows/{flowId}/runs", "t1", Map.of("flowId", flowId), Map.of(),
                json("{\"rows\": 10, \"dataSetId\": \"buyers\", \"inputs\": {\"baseUrl\": \"" + base + "\"}}")).get("statusCode"));
        var created = call("POST /plans", "t1", Map.of(), Map.of(), json(plan.formatted("buyerId")));
        assertEquals(201, created.get("statusCode"), String.valueOf(created.get("body")));
        JsonNode stored = body(created);
        assertConforms("Plan", stored);
        assertEquals("buyers", stored.path("scenarios").get(0).path("data").get(0).path("dataSetId").asText());
        assertEquals("unique", stored.path("scenarios").get(0).path("data").get(0).path("mode").asText());

        var badColumn = call("POST /plans", "t1", Map.of(), Map.of(), json(plan.formatted("phone")));
        assertEquals(400, badColumn.get("statusCode"));
        assertEquals("$.scenarios[0].requests[0].headers.x-cart", body(badColumn).path("errors").get(0).path("path").asText());
        assertEquals("{{data.buyers.phone}}: data set 'buyers' has no column 'phone' (columns: buyerId)",
                body(badColumn).path("errors").get(0).path("reason").asText());

        String missing = """
                {"name": "replay", "preTest": {"qps": 1, "durationS": 5}, "formal": {"steps": [{"qps": 2, "durationS": 5}]},
                 "scenarios": [{"name": "r", "service": "shop", "trafficSetId": "ts-none", "data": [{"dataSetId": "carts"}],
                                "slots": {"email": "{{data.buyers.buyerId}}"}}]}
                """;
        var bad = call("POST /plans", "t1", Map.of(), Map.of(), json(missing));
        assertEquals(400, bad.get("statusCode"));
        List<String> paths = new ArrayList<>();
        body(bad).path("errors").forEach(e -> paths.add(e.path("path").asText()));
        assertEquals(List.of("$.scenarios[0].trafficSetId", "$.scenarios[0].data[0].dataSetId", "$.scenarios[0].slots.email"), paths);
        var neither = call("POST /plans", "t1", Map.of(), Map.of(), json(missing.replace("\"trafficSetId\": \"ts-none\", ", "")));
        assertEquals(400, neither.get("statusCode"), "a scenario needs requests or a traffic set");
    }
}
