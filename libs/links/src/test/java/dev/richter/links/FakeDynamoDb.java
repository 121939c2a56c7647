package dev.richter.links;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Just enough of DynamoDB for LinkRepository's calls: BatchWriteItem puts (optionally leaving the
 * first attempt's last item unprocessed, to exercise the retry), and Query on pk or on the
 * {@code reverse} index (rpk) with the optional {@code #d <= :d} filter, paged by 50 items. Public for the tests of
 * the functions that read and write links through {@link dev.richter.links.LinkService} (plan-api's link routes).
 */
public final class FakeDynamoDb implements DynamoDbClient {
    final Map<String, Map<String, AttributeValue>> items = new HashMap<>();
    boolean dropOnce;
    int batchCalls;

    @Override
    public BatchWriteItemResponse batchWriteItem(BatchWriteItemRequest request) {
        batchCalls++;
        Map<String, List<WriteRequest>> unprocessed = new HashMap<>();
        request.requestItems().forEach((table, writes) -> {
            List<WriteRequest> todo = writes;
            if (dropOnce && writes.size() > 1) {
                dropOnce = false;
                todo = writes.subList(0, writes.size() - 1);
                unprocessed.put(table, List.of(writes.get(writes.size() - 1)));
            }
            for (WriteRequest w : todo) {
                Map<String, AttributeValue> item = w.putRequest().item();
                items.put(item.get("pk").s() + "\u0000" + item.get("sk").s(), item);
            }
        });
        return BatchWriteItemResponse.builder().unprocessedItems(unprocessed).build();
    }

    @Override
    public QueryResponse query(QueryRequest q) {
        boolean reverse = "reverse".equals(q.indexName());
        String keyAttr = reverse ? "rpk" : "pk";
        String sortAttr = reverse ? "rsk" : "sk";
        String pk = q.expressionAttributeValues().get(":pk").s();
        AttributeValue maxDepth = q.expressionAttributeValues().get(":d");
        List<Map<String, AttributeValue>> matches = new ArrayList<>();
        for (Map<String, AttributeValue> item : items.values()) {
            AttributeValue k = item.get(keyAttr);
            if (k != null && pk.equals(k.s())) {
                matches.add(item);
            }
        }
        matches.sort(Comparator.comparing(i -> i.get(sortAttr).s()));
        int from = 0;
        if (q.hasExclusiveStartKey() && !q.exclusiveStartKey().isEmpty()) {
            String after = q.exclusiveStartKey().get(sortAttr).s();
            while (from < matches.size() && matches.get(from).get(sortAttr).s().compareTo(after) <= 0) {
                from++;
            }
        }
        int to = Math.min(matches.size(), from + 50);
        List<Map<String, AttributeValue>> page = new ArrayList<>();
        for (Map<String, AttributeValue> item : matches.subList(from, to)) {
            if (maxDepth == null || Long.parseLong(item.get("depth").n()) <= Long.parseLong(maxDepth.n())) {
                page.add(item);
            }
        }
        QueryResponse.Builder r = QueryResponse.builder().items(page);
        if (to < matches.size()) {
            Map<String, AttributeValue> last = new TreeMap<>();
            last.put(sortAttr, matches.get(to - 1).get(sortAttr));
            r.lastEvaluatedKey(last);
        }
        return r.build();
    }

    @Override
    public String serviceName() {
        return "dynamodb";
    }

    @Override
    public void close() {}
}
