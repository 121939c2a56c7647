package dev.richter.data.flow;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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

/**
 * An in-memory registry table (pk {@code teamId}, sk {@code itemKey}) for tests: PutItem with
 * {@code attribute_not_exists(itemKey)} or {@code writeId = :w}, GetItem, DeleteItem, a {@code begins_with} Query
 * paged at 3 items (so paging is exercised). Thread-safe.
 */
final class FakeRegistry {
    final TreeMap<String, Map<String, AttributeValue>> items = new TreeMap<>();

    final DynamoDbClient client = (DynamoDbClient) Proxy.newProxyInstance(getClass().getClassLoader(),
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

    private static String key(Map<String, AttributeValue> item) {
        return item.get("teamId").s() + "\u0000" + item.get("itemKey").s();
    }

    private synchronized PutItemResponse put(PutItemRequest r) {
        var existing = items.get(key(r.item()));
        if ("attribute_not_exists(itemKey)".equals(r.conditionExpression()) && existing != null) {
            throw ConditionalCheckFailedException.builder().message("exists").build();
        }
        if ("writeId = :w".equals(r.conditionExpression())
                && (existing == null || !existing.get("writeId").equals(r.expressionAttributeValues().get(":w")))) {
            throw ConditionalCheckFailedException.builder().message("writeId changed").build();
        }
        items.put(key(r.item()), r.item());
        return PutItemResponse.builder().build();
    }

    private synchronized GetItemResponse get(GetItemRequest r) {
        var item = items.get(key(r.key()));
        return item == null ? GetItemResponse.builder().build() : GetItemResponse.builder().item(item).build();
    }

    private synchronized DeleteItemResponse delete(DeleteItemRequest r) {
        items.remove(key(r.key()));
        return DeleteItemResponse.builder().build();
    }

    private synchronized QueryResponse query(QueryRequest r) {
        String team = r.expressionAttributeValues().get(":t").s();
        String prefix = r.expressionAttributeValues().get(":p").s();
        String after = r.exclusiveStartKey() == null || r.exclusiveStartKey().isEmpty() ? null : key(r.exclusiveStartKey());
        List<Map<String, AttributeValue>> out = new ArrayList<>();
        for (var e : (after == null ? items : items.tailMap(after, false)).entrySet()) {
            var item = e.getValue();
            if (item.get("teamId").s().equals(team) && item.get("itemKey").s().startsWith(prefix)) {
                out.add(item);
                if (out.size() == 3) {
                    return QueryResponse.builder().items(out).lastEvaluatedKey(Map.of("teamId", item.get("teamId"), "itemKey", item.get("itemKey"))).build();
                }
            }
        }
        return QueryResponse.builder().items(out).build();
    }

    /** Item keys of a team starting with {@code prefix}. */
    synchronized List<String> keys(String team, String prefix) {
        return items.values().stream().filter(i -> i.get("teamId").s().equals(team) && i.get("itemKey").s().startsWith(prefix))
                .map(i -> i.get("itemKey").s()).toList();
    }
}
