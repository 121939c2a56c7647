package dev.richter.common;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.StepPlan;
import dev.richter.common.model.WindowAttributes;
import dev.richter.common.model.WindowKey;
import dev.richter.common.model.WindowOutcomes;
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
 * check results ({@code check#<phase>}, attribute {@code results} = JSON array of {@link CheckResult}), the step at
 * which the warm-up was steady ({@code warmup#steady}, attributes {@code stepIndex} and {@code text}); it reads the
 * outcome counts of the load driver's windows ({@link WindowKey}).
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

    /**
     * The outcome counts of every window of {@code stage}'s workers ({@code window#<stage>#...}), in sort-key order
     * (step, second, worker, leg).
     */
    public List<WindowOutcomes> windowOutcomes(String runId, String stage) {
        return query(runId, "window#" + stage + "#").stream().map(i -> {
            String sk = i.get("sk").s();
            return new WindowOutcomes(WindowKey.worker(sk), WindowKey.epochSecond(sk),
                    Long.parseLong(i.get(WindowAttributes.COUNT).n()), Long.parseLong(i.get(WindowAttributes.ERRORS).n()));
        }).toList();
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
     * Records that the run's warm-up was steady at warm-up step {@code stepIndex} (the rule's evidence in {@code text}),
     * so the warm-up's later steps are skipped ({@code RunPreparer.startStep}). The first record is kept: a retried
     * step completion does not move it.
     */
    public void putWarmUpSteady(String runId, int stepIndex, String text) {
        try {
            dynamoDb.putItem(PutItemRequest.builder().tableName(table).item(Map.of(
                            "runId", AttributeValue.fromS(runId), "sk", AttributeValue.fromS(WARM_UP_STEADY),
                            "stepIndex", AttributeValue.fromN(Integer.toString(stepIndex)), "text", AttributeValue.fromS(text)))
                    .conditionExpression("attribute_not_exists(sk)").build());
        } catch (software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException e) {
            // already recorded
        }
    }

    /** The warm-up step at which the run's warm-up was steady, empty while it was not (or has no rule). */
    public java.util.OptionalInt warmUpSteadyAt(String runId) {
        var item = dynamoDb.getItem(b -> b.tableName(table).consistentRead(true).key(Map.of(
                "runId", AttributeValue.fromS(runId), "sk", AttributeValue.fromS(WARM_UP_STEADY)))).item();
        return item == null || !item.containsKey("stepIndex") ? java.util.OptionalInt.empty()
                : java.util.OptionalInt.of(Integer.parseInt(item.get("stepIndex").n()));
    }

    /**
     * Records the run's confirm step (DESIGN.md §5 "Confirm step"): formal step {@code afterStepIndex} was the first to
     * fail the capacity criteria after one that held, so the next formal slot runs {@code qps} for {@code durationS}
     * under the stage {@code confirm} ({@code RunPreparer.startStep}). The first record is kept: a retried step
     * completion does not move it.
     *
     * @param why the judgement in words, e.g. {@code step 2 at 40 QPS held, step 3 at 60 QPS failed}
     */
    public void putConfirmStep(String runId, int afterStepIndex, double qps, int durationS, String why) {
        try {
            dynamoDb.putItem(PutItemRequest.builder().tableName(table).item(Map.of(
                            "runId", AttributeValue.fromS(runId), "sk", AttributeValue.fromS(CONFIRM_STEP),
                            "afterStepIndex", AttributeValue.fromN(Integer.toString(afterStepIndex)),
                            "qps", AttributeValue.fromN(Double.toString(qps)),
                            "durationS", AttributeValue.fromN(Integer.toString(durationS)), "text", AttributeValue.fromS(why)))
                    .conditionExpression("attribute_not_exists(sk)").build());
        } catch (software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException e) {
            // already recorded
        }
    }

    /** The run's confirm step as {@link #putConfirmStep} recorded it; empty while none was called for. */
    public java.util.Optional<dev.richter.common.model.ConfirmStep> confirmStep(String runId) {
        var item = dynamoDb.getItem(b -> b.tableName(table).consistentRead(true).key(Map.of(
                "runId", AttributeValue.fromS(runId), "sk", AttributeValue.fromS(CONFIRM_STEP)))).item();
        if (item == null || !item.containsKey("afterStepIndex")) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(new dev.richter.common.model.ConfirmStep(
                Integer.parseInt(item.get("afterStepIndex").n()), Double.parseDouble(item.get("qps").n()),
                Integer.parseInt(item.get("durationS").n()), item.containsKey("text") ? item.get("text").s() : ""));
    }

    private static final String CONFIRM_STEP = "confirm#step";
    private static final String WARM_UP_STEADY = "warmup#steady";

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
