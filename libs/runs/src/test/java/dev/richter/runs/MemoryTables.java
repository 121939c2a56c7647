package dev.richter.runs;

import dev.richter.common.Repositories;
import dev.richter.common.TableNames;
import java.lang.reflect.Proxy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * An in-memory DynamoDB for the run use cases' tests: PutItem, GetItem, DeleteItem and UpdateItem ({@code SET} of
 * values, {@code if_not_exists} too) on the registry, runs, leases and audit tables, with exactly the condition expressions
 * {@link Repositories} and {@code RunLeases} write; any other call or condition fails the test.
 */
final class MemoryTables {
    /** Each table's key attributes. */
    private static final Map<String, List<String>> KEYS = Map.of("registry", List.of("teamId", "itemKey"),
            "runs", List.of("runId"), "leases", List.of("leaseKey"), "audit", List.of("teamId", "sk"));
    /** One {@code SET} assignment: {@code #a1 = :v1}, {@code name = :v} or {@code name = if_not_exists(name, :v)}. */
    private static final Pattern SET_ONE = Pattern.compile("(#?\\w+) = (?:if_not_exists\\((\\w+), )?(:\\w+)\\)?");

    /** table -> key text -> item. */
    final Map<String, Map<String, Map<String, AttributeValue>>> tables = new TreeMap<>();

    final DynamoDbClient dynamoDb = (DynamoDbClient) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {DynamoDbClient.class}, (proxy, method, args) -> switch (method.getName()) {
                case "putItem" -> put((PutItemRequest) args[0]);
                case "getItem" -> get((GetItemRequest) args[0]);
                case "deleteItem" -> delete((DeleteItemRequest) args[0]);
                case "updateItem" -> update((UpdateItemRequest) args[0]);
                case "close" -> null;
                case "serviceName" -> "dynamodb";
                default -> throw new UnsupportedOperationException(method.getName());
            });

    final Repositories repositories = new Repositories(dynamoDb,
            new TableNames("registry", "plans", "runs", "run-metrics", "verdicts", "links", "reports", "audit", "leases"), new dev.richter.common.secrets.MemorySecretSealer());

    /** The items of {@code table}, by key text (the key attributes' values joined by {@code |}). */
    Map<String, Map<String, AttributeValue>> items(String table) {
        return tables.getOrDefault(table, Map.of());
    }

    private static String key(String table, Map<String, AttributeValue> item) {
        List<String> names = KEYS.get(table);
        if (names == null) {
            throw new UnsupportedOperationException("table " + table);
        }
        return String.join("|", names.stream().map(n -> item.get(n).s()).toList());
    }

    private Map<String, AttributeValue> current(String table, Map<String, AttributeValue> key) {
        return items(table).get(key(table, key));
    }

    /** Whether {@code condition} holds for {@code existing} (null: no item). */
    private static boolean holds(String condition, Map<String, AttributeValue> existing, Map<String, AttributeValue> values) {
        if (condition == null) {
            return true;
        }
        return switch (condition) {
            case "attribute_not_exists(runId)", "attribute_not_exists(itemKey)", "attribute_not_exists(leaseKey)" -> existing == null;
            case "attribute_exists(runId)" -> existing != null;
            case "attribute_not_exists(leaseKey) OR expiresAt < :now" -> existing == null
                    || Long.parseLong(existing.get("expiresAt").n()) < Long.parseLong(values.get(":now").n());
            case "runId = :r" -> existing != null && existing.get("runId").s().equals(values.get(":r").s());
            case "#status = :expected" -> existing != null && existing.get("status").s().equals(values.get(":expected").s());
            default -> throw new UnsupportedOperationException("condition " + condition);
        };
    }

    private static void check(String condition, Map<String, AttributeValue> existing, Map<String, AttributeValue> values) {
        if (!holds(condition, existing, values)) {
            throw ConditionalCheckFailedException.builder().message("The conditional request failed").build();
        }
    }

    private PutItemResponse put(PutItemRequest r) {
        check(r.conditionExpression(), current(r.tableName(), r.item()), r.expressionAttributeValues());
        tables.computeIfAbsent(r.tableName(), t -> new TreeMap<>()).put(key(r.tableName(), r.item()), new LinkedHashMap<>(r.item()));
        return PutItemResponse.builder().build();
    }

    private GetItemResponse get(GetItemRequest r) {
        var item = current(r.tableName(), r.key());
        return item == null ? GetItemResponse.builder().build() : GetItemResponse.builder().item(item).build();
    }

    private DeleteItemResponse delete(DeleteItemRequest r) {
        check(r.conditionExpression(), current(r.tableName(), r.key()), r.expressionAttributeValues());
        items(r.tableName()).remove(key(r.tableName(), r.key()));
        return DeleteItemResponse.builder().build();
    }

    private UpdateItemResponse update(UpdateItemRequest r) {
        var item = current(r.tableName(), r.key());
        check(r.conditionExpression(), item, r.expressionAttributeValues());
        Matcher m = SET_ONE.matcher(r.updateExpression().replaceFirst("^SET ", ""));
        while (m.find()) {
            String name = m.group(1).startsWith("#") ? r.expressionAttributeNames().get(m.group(1)) : m.group(1);
            if (m.group(2) == null || !item.containsKey(m.group(2))) {
                item.put(name, r.expressionAttributeValues().get(m.group(3)));
            }
        }
        return UpdateItemResponse.builder().build();
    }
}
