package dev.richter.common;

import dev.richter.common.model.LiveLoad;
import java.util.Map;
import java.util.Optional;
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
        return isTrue(read(runId, "abortRequested").get("abortRequested"));
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
        Map<String, AttributeValue> item = read(runId, "abortRequested, monitorBeatAtMs");
        return new Watch(isTrue(item.get("abortRequested")), epochMs(item.get("monitorBeatAtMs")));
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
     * As {@link #beat(String, long)}, with the step's live load as the decision read it, in the same write: the run
     * item's {@code liveLoad} map ({@code stage, stepIndex, atMs, seconds, completed, errors, p99Ms}), about 150 bytes,
     * so the item stays one read unit for the workers' polls.
     *
     * @throws software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException for an unknown run
     */
    public void beat(String runId, long atMs, LiveLoad live) {
        Map<String, AttributeValue> m = Map.of(
                "stage", AttributeValue.fromS(live.stage()),
                "stepIndex", AttributeValue.fromN(Integer.toString(live.stepIndex())),
                "atMs", AttributeValue.fromN(Long.toString(live.atMs())),
                "seconds", AttributeValue.fromN(Integer.toString(live.seconds())),
                "completed", AttributeValue.fromN(Long.toString(live.completed())),
                "errors", AttributeValue.fromN(Long.toString(live.errors())),
                "p99Ms", AttributeValue.fromN(Double.toString(live.p99Ms())));
        dynamoDb.updateItem(UpdateItemRequest.builder()
                .tableName(runsTable)
                .key(Map.of("runId", AttributeValue.fromS(runId)))
                .conditionExpression("attribute_exists(runId)")
                .updateExpression("SET monitorBeatAtMs = :at, liveLoad = :live")
                .expressionAttributeValues(Map.of(":at", AttributeValue.fromN(Long.toString(atMs)),
                        ":live", AttributeValue.fromM(m)))
                .build());
    }

    /** The run item's {@code liveLoad} ({@link #beat(String, long, LiveLoad)}); empty before the first decision. */
    public static Optional<LiveLoad> liveLoad(Map<String, AttributeValue> runItem) {
        AttributeValue v = runItem == null ? null : runItem.get("liveLoad");
        if (v == null || !v.hasM()) {
            return Optional.empty();
        }
        Map<String, AttributeValue> m = v.m();
        return Optional.of(new LiveLoad(m.get("stage").s(), Integer.parseInt(m.get("stepIndex").n()),
                Long.parseLong(m.get("atMs").n()), Integer.parseInt(m.get("seconds").n()),
                Long.parseLong(m.get("completed").n()), Long.parseLong(m.get("errors").n()),
                Double.parseDouble(m.get("p99Ms").n())));
    }

    /**
     * When the run's abort flag was first set, epoch ms; empty when it is not set, or was set before this attribute
     * was written.
     */
    public OptionalLong abortRequestedAtMs(String runId) {
        return epochMs(read(runId, "abortRequestedAtMs").get("abortRequestedAtMs"));
    }

    /** The run item's {@code projection} attributes, strongly consistent; empty for an unknown run. */
    private Map<String, AttributeValue> read(String runId, String projection) {
        Map<String, AttributeValue> item = dynamoDb.getItem(GetItemRequest.builder()
                .tableName(runsTable)
                .key(Map.of("runId", AttributeValue.fromS(runId)))
                .projectionExpression(projection)
                .consistentRead(true)
                .build()).item();
        return item == null ? Map.of() : item;
    }

    private static boolean isTrue(AttributeValue v) {
        return v != null && Boolean.TRUE.equals(v.bool());
    }

    private static OptionalLong epochMs(AttributeValue v) {
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
