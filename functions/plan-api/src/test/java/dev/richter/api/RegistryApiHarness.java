package dev.richter.api;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.TableNames;
import dev.richter.links.FakeDynamoDb;
import dev.richter.sizing.Quotas;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import dev.richter.common.secrets.MemorySecretSealer;
import dev.richter.common.secrets.SecretSealer;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
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
 * The plan API's Lambda handler (payload 2.0 events in, {@code {statusCode, body}} out) on an in-memory registry,
 * plans and audit table (items keyed by table, team and sort key; queries page by {@code Limit}) and the links
 * library's {@link FakeDynamoDb} as the links table, for route tests.
 * {@link #failPutsWithPrefix} makes the n-th put of an item whose key starts with {@link #failingPutPrefix} (a traffic-set
 * manifest unless set) fail, to show nothing is half-written; {@link #updates} counts UpdateItem requests.
 */
final class RegistryApiHarness {
    /**
     * table NUL teamId NUL sort key -> item; sorted like a table's sort key and safe for concurrent writers (a flow
     * run records its rows from several threads at once, as DynamoDB takes them).
     */
    final ConcurrentSkipListMap<String, Map<String, AttributeValue>> items = new ConcurrentSkipListMap<>();
    /** The links table: the links library's own fake of the calls LinkRepository makes (Query on pk or reverse index). */
    private static final String LINKS = "links";
    private final FakeDynamoDb links = new FakeDynamoDb();
    /** Fail the n-th put of a traffic-set manifest (0: never). */
    int failPutsWithPrefix;
    /** The item-key prefix of the puts {@link #failPutsWithPrefix} counts. */
    String failingPutPrefix = "trafficset#";
    /** UpdateItem requests received, each a charged write on DynamoDB whether or not its condition holds. */
    final java.util.concurrent.atomic.AtomicInteger updates = new java.util.concurrent.atomic.AtomicInteger();
    final InputValidator schemas = new InputValidator();

    private final DynamoDbClient ddb = (DynamoDbClient) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {DynamoDbClient.class}, (proxy, method, args) -> switch (method.getName()) {
                case "putItem" -> put((PutItemRequest) args[0]);
                case "getItem" -> get((GetItemRequest) args[0]);
                case "deleteItem" -> delete((DeleteItemRequest) args[0]);
                case "updateItem" -> update((software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest) args[0]);
                case "query" -> LINKS.equals(((QueryRequest) args[0]).tableName()) ? links.query((QueryRequest) args[0])
                        : query((QueryRequest) args[0]);
                case "batchWriteItem" -> batchWrite(args[0] instanceof BatchWriteItemRequest b ? b : built(args[0]));
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
        if (item.containsKey("leaseKey")) {
            return table + "\u0000\u0000" + item.get("leaseKey").s();
        }
        String sk = item.containsKey("itemKey") ? item.get("itemKey").s() : item.get("sk").s();
        return table + "\u0000" + item.get("teamId").s() + "\u0000" + sk;
    }

    private PutItemResponse put(PutItemRequest r) {
        if (failPutsWithPrefix > 0 && r.item().containsKey("itemKey") && r.item().get("itemKey").s().startsWith(failingPutPrefix)
                && --failPutsWithPrefix == 0) {
            throw new IllegalStateException("induced DynamoDB failure");
        }
        if ("attribute_not_exists(itemKey)".equals(r.conditionExpression())) {
            if (items.putIfAbsent(key(r.tableName(), r.item()), r.item()) != null) {
                throw ConditionalCheckFailedException.builder().message("exists").build();
            }
            return PutItemResponse.builder().build();
        }
        if ("attribute_not_exists(itemKey) OR #o = :team".equals(r.conditionExpression())) {
            synchronized (items) {
                var stored = items.get(key(r.tableName(), r.item()));
                if (stored != null && !stored.get("owner").equals(r.expressionAttributeValues().get(":team"))) {
                    throw ConditionalCheckFailedException.builder().message("owned").build();
                }
                items.put(key(r.tableName(), r.item()), r.item());
            }
            return PutItemResponse.builder().build();
        }
        if ("#d = :old".equals(r.conditionExpression())) {
            synchronized (items) {
                var stored = items.get(key(r.tableName(), r.item()));
                if (stored == null || !stored.get("doc").equals(r.expressionAttributeValues().get(":old"))) {
                    throw ConditionalCheckFailedException.builder().message("changed").build();
                }
                items.put(key(r.tableName(), r.item()), r.item());
            }
            return PutItemResponse.builder().build();
        }
        if ("version = :v".equals(r.conditionExpression())) {
            var stored = items.get(key(r.tableName(), r.item()));
            if (stored == null || !stored.get("version").n().equals(r.expressionAttributeValues().get(":v").n())) {
                throw ConditionalCheckFailedException.builder().message("changed").build();
            }
        }
        items.put(key(r.tableName(), r.item()), r.item());
        return PutItemResponse.builder().build();
    }

    /** Whether {@code item} passes the query's filter: none, or {@code #name = :value} of one attribute. */
    private static boolean passes(QueryRequest r, Map<String, AttributeValue> item) {
        if (r.filterExpression() == null) {
            return true;
        }
        String[] f = r.filterExpression().split(" = ");
        if (f.length != 2 || !f[0].startsWith("#")) {
            throw new UnsupportedOperationException("filter " + r.filterExpression());
        }
        AttributeValue v = item.get(r.expressionAttributeNames().get(f[0]));
        return v != null && v.equals(r.expressionAttributeValues().get(f[1]));
    }

    private GetItemResponse get(GetItemRequest r) {
        var item = items.get(key(r.tableName(), r.key()));
        return item == null ? GetItemResponse.builder().build() : GetItemResponse.builder().item(item).build();
    }

    /** The one update the API makes: {@code SET atMs = :at}, when no {@code atMs} or it is before {@code :before}. */
    private software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse update(
            software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest r) {
        updates.incrementAndGet();
        if (!"SET atMs = :at".equals(r.updateExpression())
                || !"attribute_not_exists(atMs) OR atMs < :before".equals(r.conditionExpression())) {
            throw new UnsupportedOperationException("update " + r.updateExpression() + " if " + r.conditionExpression());
        }
        synchronized (items) {
            String k = key(r.tableName(), r.key());
            var stored = items.get(k);
            if (stored != null && stored.containsKey("atMs") && Long.parseLong(stored.get("atMs").n())
                    >= Long.parseLong(r.expressionAttributeValues().get(":before").n())) {
                throw ConditionalCheckFailedException.builder().message("recent").build();
            }
            Map<String, AttributeValue> item = new java.util.HashMap<>(stored == null ? r.key() : stored);
            item.put("atMs", r.expressionAttributeValues().get(":at"));
            items.put(k, item);
        }
        return software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse.builder().build();
    }

    private DeleteItemResponse delete(DeleteItemRequest r) {
        if ("#o = :team".equals(r.conditionExpression())) {
            synchronized (items) {
                var stored = items.get(key(r.tableName(), r.key()));
                if (stored == null || !stored.get("owner").equals(r.expressionAttributeValues().get(":team"))) {
                    throw ConditionalCheckFailedException.builder().message("not the owner").build();
                }
                items.remove(key(r.tableName(), r.key()));
            }
            return DeleteItemResponse.builder().build();
        }
        items.remove(key(r.tableName(), r.key()));
        return DeleteItemResponse.builder().build();
    }

    /** The request a {@code Consumer<BatchWriteItemRequest.Builder>} (the SDK's default-method overload) builds. */
    @SuppressWarnings("unchecked")
    private static BatchWriteItemRequest built(Object consumer) {
        BatchWriteItemRequest.Builder b = BatchWriteItemRequest.builder();
        ((java.util.function.Consumer<BatchWriteItemRequest.Builder>) consumer).accept(b);
        return b.build();
    }

    private BatchWriteItemResponse batchWrite(BatchWriteItemRequest r) {
        if (r.requestItems().keySet().equals(java.util.Set.of(LINKS))) {
            return links.batchWriteItem(r);
        }
        r.requestItems().forEach((table, writes) -> writes.forEach(w -> items.put(key(table, w.putRequest().item()),
                w.putRequest().item())));
        return BatchWriteItemResponse.builder().build();
    }

    private QueryResponse query(QueryRequest r) {
        String team = r.expressionAttributeValues().get(":t").s();
        String prefix = r.expressionAttributeValues().containsKey(":p") ? r.expressionAttributeValues().get(":p").s() : null;
        String after = r.exclusiveStartKey() == null || r.exclusiveStartKey().isEmpty() ? null : key(r.tableName(), r.exclusiveStartKey());
        List<Map<String, AttributeValue>> out = new ArrayList<>();
        Map<String, AttributeValue> last = null;
        int limit = r.limit() == null ? Integer.MAX_VALUE : r.limit();
        boolean forward = r.scanIndexForward() == null || r.scanIndexForward(); // the audit log reads newest first
        for (var e : (forward ? items : items.descendingMap()).entrySet()) {
            var item = e.getValue();
            if (!e.getKey().startsWith(r.tableName() + "\u0000") || !item.get("teamId").s().equals(team)
                    || (prefix != null && !item.get("itemKey").s().startsWith(prefix))
                    || (after != null && (forward ? e.getKey().compareTo(after) <= 0 : e.getKey().compareTo(after) >= 0))) {
                continue;
            }
            if (out.size() == limit) {
                break;
            }
            if (!passes(r, item)) {
                continue; // a filtered item still counts towards DynamoDB's limit; this fake counts only the kept ones
            }
            out.add(item);
            String sortKey = item.containsKey("itemKey") ? "itemKey" : "sk";
            last = Map.of("teamId", item.get("teamId"), sortKey, item.get(sortKey));
        }
        return QueryResponse.builder().items(out).lastEvaluatedKey(out.size() == limit ? last : null).build();
    }

    private final SfnClient sfn = (SfnClient) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {SfnClient.class}, (proxy, method, args) -> {
                throw new UnsupportedOperationException(method.getName());
            });

    /** Seals the teams' secrets as KMS would, in memory: tests reading the tables open them with {@link #secrets()}. */
    private final MemorySecretSealer secrets = new MemorySecretSealer();

    private final PlanApiHandler handler = new PlanApiHandler(new PlanApi(new Repositories(ddb,
            new TableNames("registry", "plans", "runs", "run-metrics", "verdicts", "links", "reports", "audit"), secrets),
            sfn, "arn:aws:states:us-east-1:1:stateMachine:run", 100_000, () -> Quotas.AWS));

    Map<String, Object> call(String routeKey, String team, Map<String, String> path, Map<String, String> query, byte[] body) {
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

    /** The sealer of the handler's secrets (marker keys, webhook secrets). */
    SecretSealer secrets() {
        return secrets;
    }

    /** The in-memory DynamoDB behind the handler, for writing what another function would have stored. */
    DynamoDbClient dynamoDb() {
        return ddb;
    }

    static JsonNode body(Map<String, Object> response) {
        return Json.read((String) response.get("body"), JsonNode.class);
    }

    void assertConforms(String schema, JsonNode doc) {
        var problems = schemas.schema(schema).validate(doc);
        assertTrue(problems.isEmpty(), schema + ": " + problems);
    }
}
