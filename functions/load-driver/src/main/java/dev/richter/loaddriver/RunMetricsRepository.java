package dev.richter.loaddriver;

import dev.richter.common.Json;
import dev.richter.common.model.WorkerResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 *   <li>window: {@code {runId, sk = Window.sortKey(), count N, errors N, hist S}} (BatchWriteItem, 25 per
 *       batch; unprocessed items are re-sent up to {@value #MAX_UNPROCESSED_ROUNDS} times with
 *       exponential backoff and full jitter, then dropped — windows are best-effort evidence).</li>
 * </ul>
 * Transport retries are the SDK's own (one retry layer, DESIGN §6).
 */
public final class RunMetricsRepository implements ResultSink {
    static final int MAX_UNPROCESSED_ROUNDS = 3;
    private static final int BATCH_SIZE = 25;
    private static final long BACKOFF_BASE_MS = 50;

    private final DynamoDbClient dynamoDb;
    private final String runMetricsTable;

    /**
     * @param dynamoDb        client (built once per container)
     * @param runMetricsTable table name, e.g. {@code TableNames.fromEnv().runMetrics()}
     */
    public RunMetricsRepository(DynamoDbClient dynamoDb, String runMetricsTable) {
        this.dynamoDb = dynamoDb;
        this.runMetricsTable = runMetricsTable;
    }

    @Override
    public void putResult(WorkerResult result) {
        dynamoDb.putItem(PutItemRequest.builder()
                .tableName(runMetricsTable)
                .item(Map.of(
                        "runId", AttributeValue.fromS(result.runId()),
                        "sk", AttributeValue.fromS(result.sortKey()),
                        "result", AttributeValue.fromS(Json.write(result))))
                .build());
    }

    @Override
    public void putWindows(List<Window> windows) {
        for (int from = 0; from < windows.size(); from += BATCH_SIZE) {
            List<WriteRequest> batch = new ArrayList<>();
            for (Window w : windows.subList(from, Math.min(windows.size(), from + BATCH_SIZE))) {
                batch.add(WriteRequest.builder().putRequest(PutRequest.builder().item(item(w)).build()).build());
            }
            Map<String, List<WriteRequest>> pending = Map.of(runMetricsTable, batch);
            for (int round = 0; !pending.isEmpty() && round <= MAX_UNPROCESSED_ROUNDS; round++) {
                if (round > 0) {
                    sleepFullJitter(round);
                }
                Map<String, List<WriteRequest>> requestItems = pending;
                BatchWriteItemResponse resp = dynamoDb.batchWriteItem(b -> b.requestItems(requestItems));
                pending = resp.hasUnprocessedItems() ? resp.unprocessedItems() : Map.of();
            }
        }
    }

    /** The DynamoDB item of a window. */
    static Map<String, AttributeValue> item(Window w) {
        return Map.of(
                "runId", AttributeValue.fromS(w.runId()),
                "sk", AttributeValue.fromS(w.sortKey()),
                "count", AttributeValue.fromN(Long.toString(w.count())),
                "errors", AttributeValue.fromN(Long.toString(w.errors())),
                "hist", AttributeValue.fromS(w.hist()));
    }

    private static void sleepFullJitter(int round) {
        long capMs = BACKOFF_BASE_MS << round;
        try {
            Thread.sleep(java.util.concurrent.ThreadLocalRandom.current().nextLong(capMs + 1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
