package dev.richter.report;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * An in-memory DynamoDB for the report's reads and writes: PutItem, GetItem, UpdateItem ({@code SET} only),
 * BatchWriteItem and Query (a PutItem's {@code attribute_not_exists(sk)} is checked on {@code runId} and {@code sk}) on a hash key with an optional
 * {@code begins_with} on the range key (the forms the repositories use), one page at a time of {@link #PAGE} items so
 * pagination is exercised. Tables named in {@link #failing} throw, like a table the function may not read.
 */
final class FakeDynamo {
    static final int PAGE = 3;
    private static final Pattern HASH = Pattern.compile("(\\w+) = (:\\w+)");
    private static final Pattern PREFIX = Pattern.compile("begins_with\\((\\w+), (:\\w+)\\)");

    final Map<String, List<Map<String, AttributeValue>>> tables = new HashMap<>();
    final Set<String> failing = new java.util.HashSet<>();
    final DynamoDbClient client;

    FakeDynamo() {
        InvocationHandler h = (proxy, method, args) -> {
            Object arg = args == null || args.length == 0 ? null : args[0];
            if (arg instanceof PutItemRequest r) {
                return put(r);
            }
            if (arg instanceof BatchWriteItemRequest r) {
                return batch(r);
            }
            if (arg instanceof QueryRequest r && method.getName().equals("query")) {
                return query(r);
            }
            if (arg instanceof GetItemRequest r) {
                return GetItemResponse.builder().item(find(r.tableName(), r.key())).build();
            }
            if (arg instanceof UpdateItemRequest r) {
                return update(r);
            }
            if (method.isDefault()) {
                return InvocationHandler.invokeDefault(proxy, method, args);
            }
            return switch (method.getName()) {
                case "serviceName" -> "dynamodb";
                case "close" -> null;
                default -> throw new UnsupportedOperationException(method.getName());
            };
        };
        client = (DynamoDbClient) Proxy.newProxyInstance(DynamoDbClient.class.getClassLoader(), new Class<?>[] {DynamoDbClient.class}, h);
    }

    void put(String table, Map<String, AttributeValue> item) {
        tables.computeIfAbsent(table, t -> new ArrayList<>()).add(item);
    }

    /** The item whose key attributes equal {@code key}, or an empty map. */
    Map<String, AttributeValue> find(String table, Map<String, AttributeValue> key) {
        return tables.getOrDefault(table, List.of()).stream()
                .filter(i -> key.entrySet().stream().allMatch(k -> k.getValue().equals(i.get(k.getKey()))))
                .reduce((a, b) -> b).orElse(Map.of());
    }

    /** {@code SET #a0 = :v0, ...} on an existing item. */
    private UpdateItemResponse update(UpdateItemRequest r) {
        Map<String, AttributeValue> item = new HashMap<>(find(r.tableName(), r.key()));
        if (item.isEmpty()) {
            throw new IllegalStateException("ConditionalCheckFailed: no item " + r.key());
        }
        Matcher m = Pattern.compile("(#\\w+) = (:\\w+)").matcher(r.updateExpression());
        while (m.find()) {
            item.put(r.expressionAttributeNames().get(m.group(1)), r.expressionAttributeValues().get(m.group(2)));
        }
        tables.get(r.tableName()).removeIf(i -> r.key().entrySet().stream().allMatch(k -> k.getValue().equals(i.get(k.getKey()))));
        put(r.tableName(), item);
        return UpdateItemResponse.builder().build();
    }

    private PutItemResponse put(PutItemRequest r) {
        if ("attribute_not_exists(sk)".equals(r.conditionExpression())
                && !find(r.tableName(), Map.of("runId", r.item().get("runId"), "sk", r.item().get("sk"))).isEmpty()) {
            throw software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException.builder()
                    .message("The conditional request failed").build();
        }
        put(r.tableName(), r.item());
        return PutItemResponse.builder().build();
    }

    private BatchWriteItemResponse batch(BatchWriteItemRequest r) {
        r.requestItems().forEach((table, writes) -> writes.forEach(w -> put(table, w.putRequest().item())));
        return BatchWriteItemResponse.builder().unprocessedItems(Map.of()).build();
    }

    private QueryResponse query(QueryRequest r) {
        if (failing.contains(r.tableName())) {
            throw new IllegalStateException("AccessDenied: not allowed to query " + r.tableName());
        }
        Matcher hash = HASH.matcher(r.keyConditionExpression());
        if (!hash.find()) {
            throw new UnsupportedOperationException(r.keyConditionExpression());
        }
        String hashName = r.indexName() == null ? hash.group(1) : hash.group(1);
        String hashValue = r.expressionAttributeValues().get(hash.group(2)).s();
        Matcher prefix = PREFIX.matcher(r.keyConditionExpression());
        String rangeName = prefix.find() ? prefix.group(1) : null;
        String rangeValue = rangeName == null ? null : r.expressionAttributeValues().get(prefix.group(2)).s();
        String sortBy = rangeName != null ? rangeName : "sk";
        List<Map<String, AttributeValue>> hits = new ArrayList<>(tables.getOrDefault(r.tableName(), List.of()).stream()
                .filter(i -> i.containsKey(hashName) && hashValue.equals(i.get(hashName).s()))
                .filter(i -> rangeName == null || i.containsKey(rangeName) && i.get(rangeName).s().startsWith(rangeValue))
                .sorted(Comparator.comparing((Map<String, AttributeValue> i) -> i.containsKey(sortBy) ? i.get(sortBy).s() : ""))
                .toList());
        if (Boolean.FALSE.equals(r.scanIndexForward())) {
            java.util.Collections.reverse(hits);
        }
        int from = 0;
        if (r.exclusiveStartKey() != null && !r.exclusiveStartKey().isEmpty()) {
            from = Integer.parseInt(r.exclusiveStartKey().get("offset").n());
        }
        int limit = r.limit() == null ? PAGE : Math.min(PAGE, r.limit());
        int to = Math.min(hits.size(), from + limit);
        QueryResponse.Builder out = QueryResponse.builder().items(hits.subList(from, to)).count(to - from);
        if (to < hits.size() && r.limit() == null) {
            out.lastEvaluatedKey(Map.of("offset", AttributeValue.fromN(Integer.toString(to))));
        }
        return out.build();
    }
}
