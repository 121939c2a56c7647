package dev.richter.api;

import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * The HTTP API's reads and writes beyond {@link Repositories}: plan versions, the pages of every list, deletes.
 *
 * <p>Plan versions, in the plans table: the current plan is the item {@code planId} (as {@link Repositories} writes
 * and every function reads it) plus {@code version} (1, 2, ...) and {@code updatedAtMs}; each version is also kept as
 * the item {@code <planId>#v<version>} with the same document, {@code ownerTeamId} and no {@code teamId} (so it is
 * not in the {@code byTeam} index and never listed). A run records the version it started with; its figures read
 * that version even after the plan was replaced or deleted.
 */
final class PlanStore {
    /**
     * A stored plan with its version.
     *
     * @param plan        the plan
     * @param version     1 when created, +1 per replacement
     * @param updatedAtMs when this version was stored, epoch ms
     */
    record Versioned(Plan plan, long version, long updatedAtMs) {}

    /** One page of a list and the key to continue from (null on the last page). */
    record Page<T>(List<T> items, Map<String, AttributeValue> lastKey) {}

    private final DynamoDbClient dynamoDb;
    private final Repositories repositories;

    PlanStore(Repositories repositories) {
        this.dynamoDb = repositories.dynamoDb();
        this.repositories = repositories;
    }

    /** Stores a new plan as version 1 (and its version item). */
    void create(Plan plan) {
        putVersion(plan, 1, plan.createdAtMs());
        dynamoDb.putItem(PutItemRequest.builder().tableName(tables()).item(currentItem(plan, 1, plan.createdAtMs()))
                .conditionExpression("attribute_not_exists(planId)").build());
    }

    /**
     * Replaces the plan by {@code plan} as version {@code expectedVersion + 1}.
     *
     * @return false when the stored version is no longer {@code expectedVersion} (a concurrent replacement)
     */
    boolean replace(Plan plan, long expectedVersion, long nowMs) {
        long version = expectedVersion + 1;
        try {
            dynamoDb.putItem(PutItemRequest.builder().tableName(tables()).item(currentItem(plan, version, nowMs))
                    .conditionExpression("attribute_exists(planId) AND (#v = :v OR attribute_not_exists(#v))")
                    .expressionAttributeNames(Map.of("#v", "version"))
                    .expressionAttributeValues(Map.of(":v", AttributeValue.fromN(Long.toString(expectedVersion)))).build());
        } catch (ConditionalCheckFailedException raced) {
            return false;
        }
        putVersion(plan, version, nowMs);
        return true;
    }

    /** The team's plan, current version; empty when absent or another team's. */
    Optional<Versioned> get(String teamId, String planId) {
        if (planId.contains("#")) {
            return Optional.empty(); // a version item's key, not a plan id
        }
        var item = dynamoDb.getItem(GetItemRequest.builder().tableName(tables()).key(Map.of("planId", AttributeValue.fromS(planId)))
                .consistentRead(true).build()).item();
        if (item == null || item.isEmpty()) {
            return Optional.empty();
        }
        Versioned v = versioned(item);
        return v.plan().teamId().equals(teamId) ? Optional.of(v) : Optional.empty();
    }

    /** Version {@code version} of the plan (kept after replacement and deletion), else the current plan. */
    Optional<Plan> version(String planId, long version) {
        var item = dynamoDb.getItem(GetItemRequest.builder().tableName(tables())
                .key(Map.of("planId", AttributeValue.fromS(planId + "#v" + version))).build()).item();
        if (item != null && !item.isEmpty()) {
            return Optional.of(Json.read(item.get("doc").s(), Plan.class));
        }
        return repositories.getPlan(planId);
    }

    /** Deletes the current plan (its version items stay, for the runs that used them). */
    void delete(String planId) {
        dynamoDb.deleteItem(DeleteItemRequest.builder().tableName(tables()).key(Map.of("planId", AttributeValue.fromS(planId))).build());
    }

    /** The team's plans, newest first (index {@code byTeam}). */
    Page<Versioned> plans(String teamId, int limit, Map<String, AttributeValue> start) {
        QueryResponse r = dynamoDb.query(QueryRequest.builder().tableName(tables()).indexName("byTeam")
                .keyConditionExpression("teamId = :t").expressionAttributeValues(Map.of(":t", AttributeValue.fromS(teamId)))
                .scanIndexForward(false).limit(limit).exclusiveStartKey(start).build());
        return new Page<>(r.items().stream().map(PlanStore::versioned).toList(), lastKey(r));
    }

    /** Every plan of the team (all pages). */
    List<Plan> allPlans(String teamId) {
        List<Plan> out = new ArrayList<>();
        dynamoDb.queryPaginator(QueryRequest.builder().tableName(tables()).indexName("byTeam")
                        .keyConditionExpression("teamId = :t").expressionAttributeValues(Map.of(":t", AttributeValue.fromS(teamId))).build())
                .items().forEach(i -> out.add(Json.read(i.get("doc").s(), Plan.class)));
        return out;
    }

    /** The team's registered services, by name. */
    Page<RegisteredService> services(String teamId, int limit, Map<String, AttributeValue> start) {
        QueryResponse r = dynamoDb.query(QueryRequest.builder().tableName(repositories.tables().registry())
                .keyConditionExpression("teamId = :t AND begins_with(itemKey, :p)")
                .expressionAttributeValues(Map.of(":t", AttributeValue.fromS(teamId), ":p", AttributeValue.fromS("service#")))
                .limit(limit).exclusiveStartKey(start).build());
        return new Page<>(r.items().stream().map(i -> Json.read(i.get("doc").s(), RegisteredService.class)).toList(), lastKey(r));
    }

    /** Deletes the team's registered service. */
    void deleteService(String teamId, String name) {
        dynamoDb.deleteItem(DeleteItemRequest.builder().tableName(repositories.tables().registry())
                .key(Map.of("teamId", AttributeValue.fromS(teamId), "itemKey", AttributeValue.fromS("service#" + name))).build());
    }

    /** The run ids of a plan, newest first (index {@code byPlan}), with their raw items. */
    Page<Map<String, AttributeValue>> runs(String planId, int limit, Map<String, AttributeValue> start) {
        QueryResponse r = dynamoDb.query(QueryRequest.builder().tableName(repositories.tables().runs()).indexName("byPlan")
                .keyConditionExpression("planId = :p").expressionAttributeValues(Map.of(":p", AttributeValue.fromS(planId)))
                .scanIndexForward(false).limit(limit).exclusiveStartKey(start).build());
        return new Page<>(r.items(), lastKey(r));
    }

    /** The team's runs across its plans, newest first (the runs table's index {@code byTeam}), with their raw items. */
    Page<Map<String, AttributeValue>> teamRuns(String teamId, int limit, Map<String, AttributeValue> start) {
        QueryResponse r = dynamoDb.query(QueryRequest.builder().tableName(repositories.tables().runs()).indexName("byTeam")
                .keyConditionExpression("teamId = :t").expressionAttributeValues(Map.of(":t", AttributeValue.fromS(teamId)))
                .scanIndexForward(false).limit(limit).exclusiveStartKey(start).build());
        return new Page<>(r.items(), lastKey(r));
    }

    /** The raw item of a run (attributes the {@code Run} record does not carry: {@code planVersion}, {@code leasedServices}). */
    Map<String, AttributeValue> runItem(String runId) {
        var item = dynamoDb.getItem(GetItemRequest.builder().tableName(repositories.tables().runs())
                .key(Map.of("runId", AttributeValue.fromS(runId))).consistentRead(true).build()).item();
        return item == null ? Map.of() : item;
    }

    /** The team's audit entries, newest first. */
    Page<Map<String, AttributeValue>> audit(String teamId, int limit, Map<String, AttributeValue> start) {
        QueryResponse r = dynamoDb.query(QueryRequest.builder().tableName(repositories.tables().audit())
                .keyConditionExpression("teamId = :t").expressionAttributeValues(Map.of(":t", AttributeValue.fromS(teamId)))
                .scanIndexForward(false).limit(limit).exclusiveStartKey(start).build());
        return new Page<>(r.items(), lastKey(r));
    }

    private static Map<String, AttributeValue> lastKey(QueryResponse r) {
        return r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
    }

    private void putVersion(Plan plan, long version, long atMs) {
        dynamoDb.putItem(PutItemRequest.builder().tableName(tables()).item(Map.of(
                "planId", AttributeValue.fromS(plan.planId() + "#v" + version), "ownerTeamId", AttributeValue.fromS(plan.teamId()),
                "version", AttributeValue.fromN(Long.toString(version)), "updatedAtMs", AttributeValue.fromN(Long.toString(atMs)),
                "doc", AttributeValue.fromS(Json.write(plan)))).build());
    }

    private static Map<String, AttributeValue> currentItem(Plan plan, long version, long updatedAtMs) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put("planId", AttributeValue.fromS(plan.planId()));
        item.put("teamId", AttributeValue.fromS(plan.teamId()));
        item.put("createdAtMs", AttributeValue.fromN(Long.toString(plan.createdAtMs())));
        item.put("version", AttributeValue.fromN(Long.toString(version)));
        item.put("updatedAtMs", AttributeValue.fromN(Long.toString(updatedAtMs)));
        item.put("doc", AttributeValue.fromS(Json.write(plan)));
        return item;
    }

    private static Versioned versioned(Map<String, AttributeValue> item) {
        Plan plan = Json.read(item.get("doc").s(), Plan.class);
        long version = item.containsKey("version") ? Long.parseLong(item.get("version").n()) : 1;
        long updated = item.containsKey("updatedAtMs") ? Long.parseLong(item.get("updatedAtMs").n()) : plan.createdAtMs();
        return new Versioned(plan, version, updated);
    }

    private String tables() {
        return repositories.tables().plans();
    }
}
