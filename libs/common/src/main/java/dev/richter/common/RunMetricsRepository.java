package dev.richter.common;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.StepPlan;
import dev.richter.common.model.WindowKey;
import dev.richter.common.model.WorkerResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;

/**
 * Reads and writes the run-metrics table (pk {@code runId}, sk {@code sk}): worker results
 * ({@code result#<stage>#<step>#<leg>#<worker>}, attribute {@code result} = JSON of {@link WorkerResult}), started
 * steps ({@code step#<stage>#<step>}, attribute {@code step} = JSON of {@link StepPlan}) and
 * check results ({@code check#<phase>}, attribute {@code results} = JSON array of {@link CheckResult}).
 */
public final class RunMetricsRepository {
    private final DynamoDbClient dynamoDb;
    private final String table;

    public RunMetricsRepository(DynamoDbClient dynamoDb, String table) {
        this.dynamoDb = dynamoDb;
        this.table = table;
    }

    /** Every worker result stored for the run, ordered by stage, step, worker. */
    public List<WorkerResult> workerResults(String runId) {
        return query(runId, "result#").stream()
                .map(i -> Json.read(i.get("result").s(), WorkerResult.class)).toList();
    }

    /** Stores a started step for its workers (sk {@code step#<stage>#<stepIndex %03d>}), replacing an earlier one. */
    public void putStepPlan(StepPlan step) {
        dynamoDb.putItem(PutItemRequest.builder().tableName(table).item(Map.of(
                "runId", AttributeValue.fromS(step.runId()), "sk", AttributeValue.fromS(step.sortKey()),
                "step", AttributeValue.fromS(Json.write(step)))).build());
    }

    /** The stored step of a run's stage, empty when the step has not started. */
    public Optional<StepPlan> stepPlan(String runId, String stage, int stepIndex) {
        var item = dynamoDb.getItem(b -> b.tableName(table).consistentRead(true).key(Map.of(
                "runId", AttributeValue.fromS(runId),
                "sk", AttributeValue.fromS(StepPlan.sortKey(stage, stepIndex))))).item();
        return item == null || !item.containsKey("step") ? Optional.empty()
                : Optional.of(Json.read(item.get("step").s(), StepPlan.class));
    }

    /** Stores the check results of one phase ({@code static}, {@code dynamic}), replacing earlier ones. */
    public void putChecks(String runId, String phase, List<CheckResult> results) {
        dynamoDb.putItem(PutItemRequest.builder().tableName(table).item(Map.of(
                "runId", AttributeValue.fromS(runId), "sk", AttributeValue.fromS("check#" + phase),
                "results", AttributeValue.fromS(Json.write(results)))).build());
    }

    /** The stored check results of one phase, empty when none ran. */
    public List<CheckResult> checks(String runId, String phase) {
        return query(runId, "check#" + phase).stream()
                .flatMap(i -> Arrays.stream(Json.read(i.get("results").s(), CheckResult[].class))).toList();
    }

    /**
     * The load driver's per-second windows of one step so far, summed.
     *
     * @param completed requests completed in the step so far
     * @param errors    of those, the ones that failed
     * @param seconds   from the first window to the last, inclusive; 0 before any request completed
     */
    public record WindowTotals(long completed, long errors, long seconds) {}

    /** The sums of the windows ({@link WindowKey#stepPrefix}) the run's workers wrote for one step so far. */
    public WindowTotals windowTotals(String runId, String stage, int stepIndex) {
        long count = 0;
        long errors = 0;
        long minSec = Long.MAX_VALUE;
        long maxSec = 0;
        for (var item : query(runId, WindowKey.stepPrefix(stage, stepIndex))) {
            count += item.containsKey("count") ? Long.parseLong(item.get("count").n()) : 0;
            errors += item.containsKey("errors") ? Long.parseLong(item.get("errors").n()) : 0;
            long sec = WindowKey.epochSecond(item.get("sk").s());
            minSec = Math.min(minSec, sec);
            maxSec = Math.max(maxSec, sec);
        }
        return new WindowTotals(count, errors, maxSec >= minSec && count > 0 ? maxSec - minSec + 1 : 0);
    }

    private List<Map<String, AttributeValue>> query(String runId, String prefix) {
        List<Map<String, AttributeValue>> out = new ArrayList<>();
        dynamoDb.queryPaginator(QueryRequest.builder().tableName(table)
                        .keyConditionExpression("runId = :r AND begins_with(sk, :p)")
                        .expressionAttributeValues(Map.of(":r", AttributeValue.fromS(runId), ":p", AttributeValue.fromS(prefix)))
                        .consistentRead(true).build())
                .items().forEach(out::add);
        return out;
    }
}
