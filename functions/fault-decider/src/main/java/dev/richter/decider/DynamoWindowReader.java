package dev.richter.decider;

import dev.richter.common.model.WindowKey;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;

/**
 * Load-driver windows in the run-metrics table: items {@code {runId, sk="window#<stage>#<stepIndex %03d>#<epochSecond>#<workerIndex %04d>#<legIndex %04d>",
 * count N, errors N, hist S}}. One Query with {@code sk BETWEEN} over the seconds asked for (epoch seconds
 * have the same digit count for centuries, so string order is time order).
 */
public final class DynamoWindowReader implements WindowReader {
    private final DynamoDbClient dynamoDb;
    private final String runMetricsTable;

    public DynamoWindowReader(DynamoDbClient dynamoDb, String runMetricsTable) {
        this.dynamoDb = dynamoDb;
        this.runMetricsTable = runMetricsTable;
    }

    @Override
    public List<LoadWindow> windows(String runId, String stage, int stepIndex, long fromEpochSecond, long toEpochSecond) {
        String prefix = WindowKey.stepPrefix(stage, stepIndex);
        List<LoadWindow> out = new ArrayList<>();
        Map<String, AttributeValue> start = null;
        do {
            var resp = dynamoDb.query(QueryRequest.builder().tableName(runMetricsTable)
                    .keyConditionExpression("runId = :r AND sk BETWEEN :a AND :b")
                    .expressionAttributeValues(Map.of(":r", AttributeValue.fromS(runId),
                            ":a", AttributeValue.fromS(prefix + fromEpochSecond + "#"),
                            ":b", AttributeValue.fromS(prefix + toEpochSecond + "#~")))
                    .exclusiveStartKey(start).build());
            for (var item : resp.items()) {
                String sk = item.get("sk").s();
                out.add(new LoadWindow(WindowKey.epochSecond(sk), WindowKey.workerIndex(sk), num(item.get("count")),
                        num(item.get("errors")), item.get("hist") == null ? "" : item.get("hist").s()));
            }
            start = resp.hasLastEvaluatedKey() && !resp.lastEvaluatedKey().isEmpty() ? resp.lastEvaluatedKey() : null;
        } while (start != null);
        return out;
    }

    private static long num(AttributeValue v) {
        return v == null || v.n() == null ? 0 : Long.parseLong(v.n());
    }
}
