package dev.richter.common;

import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The run's abort flag in the runs table (item pk {@code runId}, attributes {@code abortRequested}
 * BOOL, {@code abortReason} S and {@code abortRequestedAtMs} N, epoch ms when the flag was first set: the start of the
 * abort latency the report measures). Workers poll {@link #isAbortRequested} at least once a second;
 * the API and the fault decider set it with {@link #requestAbort}.
 */
public final class RunFlags {
    private final DynamoDbClient dynamoDb;
    private final String runsTable;

    /** Uses the given client and runs table name. */
    public RunFlags(DynamoDbClient dynamoDb, String runsTable) {
        this.dynamoDb = dynamoDb;
        this.runsTable = runsTable;
    }

    /** True when the run's abort flag is set (strongly consistent read). False for an unknown run. */
    public boolean isAbortRequested(String runId) {
        var item = dynamoDb.getItem(GetItemRequest.builder()
                .tableName(runsTable)
                .key(Map.of("runId", AttributeValue.fromS(runId)))
                .projectionExpression("abortRequested")
                .consistentRead(true)
                .build()).item();
        AttributeValue v = item == null ? null : item.get("abortRequested");
        return v != null && Boolean.TRUE.equals(v.bool());
    }

    /**
     * When the run's abort flag was first set, epoch ms; empty when it is not set, or was set before this attribute
     * was written.
     */
    public java.util.OptionalLong abortRequestedAtMs(String runId) {
        var item = dynamoDb.getItem(GetItemRequest.builder()
                .tableName(runsTable)
                .key(Map.of("runId", AttributeValue.fromS(runId)))
                .projectionExpression("abortRequestedAtMs")
                .consistentRead(true)
                .build()).item();
        AttributeValue v = item == null ? null : item.get("abortRequestedAtMs");
        return v == null || v.n() == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(Long.parseLong(v.n()));
    }

    /**
     * Sets the abort flag with its reason and time; idempotent (the first reason and time are kept).
     *
     * @param runId  run id (the item must exist: the update is conditional on it)
     * @param reason why, e.g. {@code "DAMAGED core module inventory"} or {@code "user alice"}
     */
    public void requestAbort(String runId, String reason) {
        dynamoDb.updateItem(UpdateItemRequest.builder()
                .tableName(runsTable)
                .key(Map.of("runId", AttributeValue.fromS(runId)))
                .conditionExpression("attribute_exists(runId)")
                .updateExpression("SET abortRequested = :t, abortReason = if_not_exists(abortReason, :r),"
                        + " abortRequestedAtMs = if_not_exists(abortRequestedAtMs, :at)")
                .expressionAttributeValues(Map.of(":t", AttributeValue.fromBool(true), ":r", AttributeValue.fromS(reason),
                        ":at", AttributeValue.fromN(Long.toString(System.currentTimeMillis()))))
                .build());
    }
}
