package dev.richter.loaddriver;

import dev.richter.common.Json;
import dev.richter.common.model.OverloadResponses;
import dev.richter.common.model.WindowAttributes;
import dev.richter.common.model.WorkerResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * {@link ResultSink} on the run-metrics table (pk {@code runId} S, sk {@code sk} S).
 *
 * <ul>
 *   <li>result: {@code {runId, sk = WorkerResult.sortKey(), result = JSON of the WorkerResult}} (PutItem);</li>
 *   <li>429/503 responses: {@code {runId, sk = OverloadResponses.sortKey(), overload = JSON}} (PutItem);</li>
 *   <li>window: {@code {runId, sk = Window.sortKey(), count N, errors N, hist S, sent N, http4xx N, http5xx N,
 *       timeouts N, connectErrors N, dropped N, late N}} ({@link WindowAttributes}; BatchWriteItem, 25 per
 *       batch; unprocessed items are re-sent up to {@value #MAX_UNPROCESSED_ROUNDS} times with
 *       exponential backoff and full jitter, then dropped — windows are best-effort evidence).</li>
 * </ul>
 * Transport retries are the SDK's own (one retry layer, DESIGN §6).
 */
public final class DynamoResultSink implements ResultSink {
    static final int MAX_UNPROCESSED_ROUNDS = 3;
    private static final int BATCH_SIZE = 25;
    private static final long BACKOFF_BASE_MS = 50;

    private final DynamoDbClient dynamoDb;
    private final String runMetricsTable;

    /**
     * @param dynamoDb        client (built once per container)
     * @param runMetricsTable table name, e.g. {@code TableNames.fromEnv().runMetrics()}
     */
    public DynamoResultSink(DynamoDbClient dynamoDb, String runMetricsTable) {
        this.dynamoDb = dynamoDb;
        this.runMetricsTable = runMetricsTable;
    }

    @Override
    public void putResult(WorkerResult result) {
        putJson(result.runId(), result.sortKey(), "result", result);
    }

    @Override
    public void putOverload(OverloadResponses overload) {
        putJson(overload.runId(), overload.sortKey(), OverloadResponses.ATTRIBUTE, overload);
    }

    /** One item {@code {runId, sk, <attribute> = JSON of value}}. */
    private void putJson(String runId, String sortKey, String attribute, Object value) {
        dynamoDb.putItem(PutItemRequest.builder()
                .tableName(runMetricsTable)
                .item(Map.of(
                        "runId", AttributeValue.fromS(runId),
                        "sk", AttributeValue.fromS(sortKey),
                        attribute, AttributeValue.fromS(Json.write(value))))
                .build());
    }

    @Override
    public void putWindows(List<Window> windows) {
        List<Window> unstored = new ArrayList<>();
        RuntimeException last = null;
        for (int from = 0; from < windows.size(); from += BATCH_SIZE) {
            List<Window> slice = windows.subList(from, Math.min(windows.size(), from + BATCH_SIZE));
            Map<String, Window> bySortKey = new HashMap<>();
            List<WriteRequest> batch = new ArrayList<>();
            for (Window w : slice) {
                bySortKey.put(w.sortKey(), w);
                batch.add(WriteRequest.builder().putRequest(PutRequest.builder().item(item(w)).build()).build());
            }
            Map<String, List<WriteRequest>> pending = Map.of(runMetricsTable, batch);
            try {
                for (int round = 0; !pending.isEmpty() && round <= MAX_UNPROCESSED_ROUNDS; round++) {
                    if (round > 0) {
                        sleepFullJitter(round);
                    }
                    Map<String, List<WriteRequest>> requestItems = pending;
                    BatchWriteItemResponse resp = dynamoDb.batchWriteItem(b -> b.requestItems(requestItems));
                    pending = resp.hasUnprocessedItems() ? resp.unprocessedItems() : Map.of();
                }
            } catch (RuntimeException e) {
                last = e;
            }
            for (WriteRequest w : pending.getOrDefault(runMetricsTable, List.of())) {
                unstored.add(bySortKey.get(w.putRequest().item().get("sk").s()));
            }
        }
        if (!unstored.isEmpty()) {
            throw new WindowsNotStoredException(unstored, last);
        }
    }

    /** The DynamoDB item of a window. */
    static Map<String, AttributeValue> item(Window w) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put("runId", AttributeValue.fromS(w.runId()));
        item.put("sk", AttributeValue.fromS(w.sortKey()));
        item.put(WindowAttributes.COUNT, n(w.count()));
        item.put(WindowAttributes.ERRORS, n(w.errors()));
        item.put(WindowAttributes.HIST, AttributeValue.fromS(w.hist()));
        item.put(WindowAttributes.SENT, n(w.sent()));
        item.put(WindowAttributes.HTTP_4XX, n(w.http4xx()));
        item.put(WindowAttributes.HTTP_5XX, n(w.http5xx()));
        item.put(WindowAttributes.TIMEOUTS, n(w.timeouts()));
        item.put(WindowAttributes.CONNECT_ERRORS, n(w.connectErrors()));
        item.put(WindowAttributes.DROPPED, n(w.dropped()));
        item.put(WindowAttributes.LATE, n(w.late()));
        item.put(WindowAttributes.CHECK_FAILED, n(w.checkFailed()));
        return item;
    }

    private static AttributeValue n(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }

    private static void sleepFullJitter(int round) {
        long capMs = BACKOFF_BASE_MS << round;
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(capMs + 1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
