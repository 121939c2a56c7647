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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
 * {@code POST /traffic-sets}, {@code GET /traffic-sets}, {@code GET /traffic-sets/{setId}} through the Lambda handler
 * (payload 2.0 events in, {@code {statusCode, body}} out) against an in-memory registry and audit table; every 2xx body
 * is checked against its component schema in {@code openapi.json}.
 */
class TrafficSetRoutesTest {
    private static final Path CORPUS = Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"));
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
                case "close" -> null;
                case "serviceName" -> "dynamodb";
                default -> throw new UnsupportedOperationException(method.getName());
            });

    private static String key(String table, Map<String, AttributeValue> item) {
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
        String prefix = r.expressionAttributeValues().get(":p").s();
        String after = r.exclusiveStartKey() == null || r.exclusiveStartKey().isEmpty() ? null : key(r.tableName(), r.exclusiveStartKey());
        List<Map<String, AttributeValue>> out = new ArrayList<>();
        Map<String, AttributeValue> last = null;
        for (var e : items.entrySet()) {
            var item = e.getValue();
            if (!e.getKey().startsWith(r.tableName() + "\u0000") || !item.get("teamId").s().equals(team)
                    || !item.get("itemKey").s().startsWith(prefix) || (after != null && e.getKey().compareTo(after) <= 0)) {
                continue;
            }
            if (out.size() == r.limit()) {
                break;
            }
            out.add(item);
            last = Map.of("teamId", item.get("teamId"), "itemKey", item.get("itemKey"));
        }
        return QueryResponse.builder().items(out).lastEvaluatedKey(out.size() == r.limit() ? last : null).build();
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

    private static byte[] corpus(String relative) throws Exception {
        return Files.readAllBytes(CORPUS.resolve(relative));
    }

    private long trafficItems() {
        return items.keySet().stream().filter(k -> k.contains("\u0000traffic")).count();
    }

    @Test
    void importListAndReadAHar() throws Exception {
        var created = call("POST /traffic-sets", "t1", Map.of(), Map.of("format", "har", "file", "31.har"),
                corpus("bugs/31-har-postdata-params-only.har"));
        assertEquals(201, created.get("statusCode"), String.valueOf(created.get("body")));
        JsonNode summary = body(created);
        assertConforms("TrafficSet", summary);
        String setId = summary.path("setId").asText();
        assertTrue(setId.startsWith("ts-"));
        assertEquals("/traffic-sets/" + setId, ((Map<?, ?>) created.get("headers")).get("Location"));
        assertEquals("t1", summary.path("teamId").asText());
        assertEquals("31.har", summary.path("name").asText());
        assertEquals(1, summary.path("counts").path("imported").asInt());
        assertEquals(0, summary.path("endpoints").get(0).path("samples").size(), "the answer carries no samples");

        var read = call("GET /traffic-sets/{setId}", "t1", Map.of("setId", setId), Map.of(), null);
        assertEquals(200, read.get("statusCode"));
        JsonNode set = body(read);
        assertConforms("TrafficSet", set);
        JsonNode sample = set.path("endpoints").get(0).path("samples").get(0);
        assertEquals("POST", sample.path("method").asText());
        assertEquals("/login", sample.path("target").asText());
        assertEquals("user=alice&next=%2Fcart%3Fid%3D7", sample.path("body").asText());
        assertEquals("application/x-www-form-urlencoded", sample.path("contentType").asText());

        var list = call("GET /traffic-sets", "t1", Map.of(), Map.of(), null);
        assertEquals(200, list.get("statusCode"));
        assertConforms("TrafficSetPage", body(list));
        assertEquals(List.of(setId), ids(body(list)));

        // another team sees nothing of it
        assertEquals(404, call("GET /traffic-sets/{setId}", "t2", Map.of("setId", setId), Map.of(), null).get("statusCode"));
        assertEquals(List.of(), ids(body(call("GET /traffic-sets", "t2", Map.of(), Map.of(), null))));
        assertTrue(items.keySet().stream().anyMatch(k -> k.startsWith("audit\u0000t1\u0000")), "the import is audited");
    }

    @Test
    void listsPageWithACursor() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertEquals(201, call("POST /traffic-sets", "t1", Map.of(), Map.of("format", "nginx"), corpus("accesslog/nginx-test.log"))
                    .get("statusCode"));
        }
        JsonNode first = body(call("GET /traffic-sets", "t1", Map.of(), Map.of("limit", "2"), null));
        assertEquals(2, first.path("items").size());
        JsonNode second = body(call("GET /traffic-sets", "t1", Map.of(), Map.of("limit", "2", "cursor", first.path("nextCursor").asText()), null));
        assertEquals(1, second.path("items").size());
        assertFalse(second.has("nextCursor"));
        assertEquals(6, second.path("items").get(0).path("counts").path("imported").asInt());
    }

    @Test
    void aCustomNginxFormatAndAnAlbLogImport() throws Exception {
        String directive = "log_format edge '$remote_addr [$time_local] \"$request\" $status \"$http_user_agent\"';";
        byte[] log = ("10.0.0.1 [30/Nov/2026:10:00:00 +0000] \"GET /items/12 HTTP/1.1\" 200 \"curl/8\"\n"
                + "bad line\n"
                + "10.0.0.2 [30/Nov/2026:10:00:01 +0000] \"GET /items/13?token=s3cr3t HTTP/1.1\" 200 \"-\"\n").getBytes(StandardCharsets.UTF_8);
        var r = call("POST /traffic-sets", "t1", Map.of(), Map.of("format", "nginx", "logFormat", directive, "file", "edge.log"), log);
        assertEquals(201, r.get("statusCode"), String.valueOf(r.get("body")));
        JsonNode set = body(r);
        assertEquals("/items/{id}", set.path("endpoints").get(0).path("pathTemplate").asText());
        assertEquals(2, set.path("endpoints").get(0).path("count").asInt());
        assertEquals("edge.log:2", set.path("problems").get(0).path("position").asText());
        assertEquals("does not match the edge format", set.path("problems").get(0).path("reason").asText());
        JsonNode full = body(call("GET /traffic-sets/{setId}", "t1", Map.of("setId", set.path("setId").asText()), Map.of(), null));
        assertEquals("/items/13?token={{slot:query.token}}", full.path("endpoints").get(0).path("samples").get(1).path("target").asText());
        assertFalse(items.values().stream().flatMap(i -> i.values().stream()).anyMatch(v -> v.s() != null && v.s().contains("s3cr3t")),
                "the token never reaches storage");
    }

    @Test
    void badInputIs400WithThePositionAndNothingIsStored() throws Exception {
        var noFormat = call("POST /traffic-sets", "t1", Map.of(), Map.of(), corpus("har/charles.har"));
        assertEquals(400, noFormat.get("statusCode"));
        assertEquals("query.format", body(noFormat).path("errors").get(0).path("path").asText());

        var unknown = call("POST /traffic-sets", "t1", Map.of(), Map.of("format", "pcap"), corpus("har/charles.har"));
        assertEquals(400, unknown.get("statusCode"));
        assertEquals("query.format: 'pcap' is not one of har, nginx, apache, alb", body(unknown).path("message").asText());

        var formatForHar = call("POST /traffic-sets", "t1", Map.of(), Map.of("format", "har", "logFormat", "$request"), corpus("har/charles.har"));
        assertEquals("query.logFormat", body(formatForHar).path("errors").get(0).path("path").asText());

        var badDirective = call("POST /traffic-sets", "t1", Map.of(), Map.of("format", "nginx", "logFormat", "log_format x '$status';"),
                corpus("accesslog/nginx-test.log"));
        assertEquals(400, badDirective.get("statusCode"));
        assertEquals("InvalidTrafficFile", body(badDirective).path("error").asText());
        assertEquals("query.logFormat", body(badDirective).path("errors").get(0).path("path").asText());

        var notJson = call("POST /traffic-sets", "t1", Map.of(), Map.of("format", "har", "file", "cut.har"),
                "{\"log\": {\"entries\": [\n{]}}".getBytes(StandardCharsets.UTF_8));
        assertEquals(400, notJson.get("statusCode"));
        JsonNode error = body(notJson);
        assertEquals("InvalidTrafficFile", error.path("error").asText());
        assertEquals("cut.har:line 2, column 2", error.path("errors").get(0).path("path").asText());
        assertConforms("Error", error);

        var noLine = call("POST /traffic-sets", "t1", Map.of(), Map.of("format", "apache", "file", "x.log"),
                "GET / HTTP/1.1\nnot a log line\n".getBytes(StandardCharsets.UTF_8));
        assertEquals(400, noLine.get("statusCode"));
        assertEquals(List.of("x.log:1", "x.log:2"), body(noLine).path("errors").findValuesAsText("path"));
        assertEquals("x.log:1: does not match the combined or common format (and 1 more)", body(noLine).path("message").asText());

        var empty = call("POST /traffic-sets", "t1", Map.of(), Map.of("format", "har"), new byte[0]);
        assertEquals(400, empty.get("statusCode"));
        assertEquals(0, trafficItems(), "nothing stored");
    }

    @Test
    void aStoreFailureLeavesNoSet() throws Exception {
        failPutsWithPrefix = 1; // the manifest, written after the chunks
        byte[] big = corpus("har/firefox.har");
        var r = call("POST /traffic-sets", "t1", Map.of(), Map.of("format", "har"), big);
        assertEquals(500, r.get("statusCode"));
        assertEquals("InternalError", body(r).path("error").asText());
        assertEquals(List.of(), ids(body(call("GET /traffic-sets", "t1", Map.of(), Map.of(), null))));
        assertEquals(0, trafficItems(), "the chunk written was removed");
    }

    private static List<String> ids(JsonNode page) {
        List<String> out = new ArrayList<>();
        page.path("items").forEach(i -> out.add(i.path("setId").asText()));
        return out;
    }
}
