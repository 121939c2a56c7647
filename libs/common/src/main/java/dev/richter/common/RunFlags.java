package dev.richter.common;

import java.util.Map;
import java.util.OptionalLong;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The run's abort flag in the runs table (item pk {@code runId}, attributes {@code abortRequested}
 * BOOL, {@code abortReason} S and {@code abortRequestedAtMs} N, epoch ms when the flag was first set: the start of the
 * abort latency the report measures). Workers poll {@link #isAbortRequested} at least once a second;
 * the API and the fault decider set it with {@link #requestAbort}.
 *
 * <p>The same item carries the monitor's heartbeat, {@code monitorBeatAtMs} N (epoch ms of the fault decider's last
 * decision, {@link #beat}), which workers read with the flag in one request ({@link #watch}) to stop when the run is
 * no longer watched ({@link MonitorHeartbeat}).
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
     * What a worker reads each poll: the abort flag and the monitor's last heartbeat.
     *
     * @param abortRequested  the abort flag
     * @param monitorBeatAtMs epoch ms of the last decision, empty before the first
     */
    public record Watch(boolean abortRequested, OptionalLong monitorBeatAtMs) {}

    /**
     * The abort flag and the monitor's heartbeat in one strongly consistent read; an unknown run reads as not aborted,
     * no heartbeat.
     */
    public Watch watch(String runId) {
        var item = dynamoDb.getItem(GetItemRequest.builder()
                .tableName(runsTable)
                .key(Map.of("runId", AttributeValue.fromS(runId)))
                .projectionExpression("abortRequested, monitorBeatAtMs")
                .consistentRead(true)
                .build()).item();
        AttributeValue flag = item == null ? null : item.get("abortRequested");
        AttributeValue beat = item == null ? null : item.get("monitorBeatAtMs");
        return new Watch(flag != null && Boolean.TRUE.equals(flag.bool()),
                beat == null || beat.n() == null ? OptionalLong.empty()
                        : OptionalLong.of(Long.parseLong(beat.n())));
    }

    /**
     * Records a monitor decision at {@code atMs} (epoch ms) as the run's heartbeat; conditional on the run item
     * existing.
     *
     * @throws software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException for an unknown run
     */
    public void beat(String runId, long atMs) {
        dynamoDb.updateItem(UpdateItemRequest.builder()
                .tableName(runsTable)
                .key(Map.of("runId", AttributeValue.fromS(runId)))
                .conditionExpression("attribute_exists(runId)")
                .updateExpression("SET monitorBeatAtMs = :at")
                .expressionAttributeValues(Map.of(":at", AttributeValue.fromN(Long.toString(atMs))))
                .build());
    }

    /**
     * When the run's abort flag was first set, epoch ms; empty when it is not set, or was set before this attribute
     * was written.
     */
    public OptionalLong abortRequestedAtMs(String runId) {
        var item = dynamoDb.getItem(GetItemRequest.builder()
                .tableName(runsTable)
                .key(Map.of("runId", AttributeValue.fromS(runId)))
                .projectionExpression("abortRequestedAtMs")
                .consistentRead(true)
                .build()).item();
        AttributeValue v = item == null ? null : item.get("abortRequestedAtMs");
        return v == null || v.n() == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(v.n()));
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
