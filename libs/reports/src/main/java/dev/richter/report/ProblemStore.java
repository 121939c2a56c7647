package dev.richter.report;

import dev.richter.common.Json;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * The tracked problems ({@link TrackedProblem}) in the registry table: pk {@code teamId}, sk
 * {@code problem#<planId>#<id>}, attributes {@code id}, {@code planId}, {@code status}, {@code version} (N) and
 * {@code doc} (the problem as JSON). The report function writes them at the end of every run; the API lists them and
 * writes the team's fields. Every write is conditional on the version read ({@link #put}), so the two never overwrite
 * each other's change.
 */
public final class ProblemStore {
    /** Sort-key prefix of tracked problems in the registry table. */
    public static final String PREFIX = "problem#";

    private final DynamoDbClient dynamoDb;
    private final String table;

    /**
     * @param dynamoDb the client
     * @param table    the registry table ({@code TableNames#registry()})
     */
    public ProblemStore(DynamoDbClient dynamoDb, String table) {
        this.dynamoDb = dynamoDb;
        this.table = table;
    }

    /**
     * One page of a team's tracked problems, in sort-key order (by plan, then id).
     *
     * @param items   the problems of the page (after the status filter: a page may hold fewer than the limit)
     * @param lastKey the key to start the next page at; null on the last page
     */
    public record ProblemPage(List<TrackedProblem> items, Map<String, AttributeValue> lastKey) {}

    /**
     * A page of the team's problems.
     *
     * @param teamId the team
     * @param planId only this plan's; blank: every plan's
     * @param status only problems in this status; blank: every status
     * @param limit  items read (before the status filter), 1..100
     * @param start  the previous page's {@link ProblemPage#lastKey()}, or null for the first page
     */
    public ProblemPage list(String teamId, String planId, String status, int limit, Map<String, AttributeValue> start) {
        QueryResponse r = dynamoDb.query(query(teamId, planId, status).limit(limit).exclusiveStartKey(start).build());
        return new ProblemPage(r.items().stream().map(ProblemStore::problem).toList(),
                r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null);
    }

    /** Every problem of the plan, all pages read. */
    public List<TrackedProblem> ofPlan(String teamId, String planId) {
        List<TrackedProblem> out = new ArrayList<>();
        dynamoDb.queryPaginator(query(teamId, planId, "").consistentRead(true).build()).items()
                .forEach(i -> out.add(problem(i)));
        return out;
    }

    /** The team's problem with this id, empty when the team has none (another team's id included). */
    public Optional<TrackedProblem> find(String teamId, String id) {
        for (Map<String, AttributeValue> item : dynamoDb.queryPaginator(query(teamId, "", "")
                .filterExpression("#i = :id").expressionAttributeNames(Map.of("#i", "id")).expressionAttributeValues(Map.of(":t", AttributeValue.fromS(teamId),
                        ":p", AttributeValue.fromS(PREFIX), ":id", AttributeValue.fromS(id))).consistentRead(true).build()).items()) {
            return Optional.of(problem(item));
        }
        return Optional.empty();
    }

    /**
     * Writes the problem as version {@code p.version() + 1}, only if the stored one is still version
     * {@code p.version()} (absent for 0).
     *
     * @return the problem as written; empty when another writer changed it since it was read (read it again and retry)
     */
    public Optional<TrackedProblem> put(TrackedProblem p) {
        TrackedProblem next = new TrackedProblem(p.id(), p.teamId(), p.planId(), p.key(), p.kind(), p.subject(), p.severity(),
                p.status(), p.owner(), p.note(), p.firstRunId(), p.lastRunId(), p.firstSeenAtMs(), p.lastSeenAtMs(),
                p.runsSeen(), p.reopenedCount(), p.problem(), p.updatedAtMs(), p.version() + 1);
        Map<String, AttributeValue> item = new HashMap<>();
        item.put("teamId", AttributeValue.fromS(p.teamId()));
        item.put("itemKey", AttributeValue.fromS(PREFIX + p.planId() + "#" + p.id()));
        item.put("id", AttributeValue.fromS(p.id()));
        item.put("planId", AttributeValue.fromS(p.planId()));
        item.put("status", AttributeValue.fromS(p.status()));
        item.put("version", AttributeValue.fromN(Long.toString(next.version())));
        item.put("doc", AttributeValue.fromS(Json.write(next)));
        PutItemRequest.Builder put = PutItemRequest.builder().tableName(table).item(item);
        if (p.version() == 0) {
            put.conditionExpression("attribute_not_exists(itemKey)");
        } else {
            put.conditionExpression("version = :v").expressionAttributeValues(
                    Map.of(":v", AttributeValue.fromN(Long.toString(p.version()))));
        }
        try {
            dynamoDb.putItem(put.build());
            return Optional.of(next);
        } catch (ConditionalCheckFailedException changed) {
            return Optional.empty();
        }
    }

    private QueryRequest.Builder query(String teamId, String planId, String status) {
        Map<String, AttributeValue> values = new HashMap<>();
        values.put(":t", AttributeValue.fromS(teamId));
        values.put(":p", AttributeValue.fromS(PREFIX + (planId == null || planId.isBlank() ? "" : planId + "#")));
        QueryRequest.Builder q = QueryRequest.builder().tableName(table)
                .keyConditionExpression("teamId = :t AND begins_with(itemKey, :p)");
        if (status != null && !status.isBlank()) {
            values.put(":s", AttributeValue.fromS(status));
            q.filterExpression("#s = :s").expressionAttributeNames(Map.of("#s", "status"));
        }
        return q.expressionAttributeValues(values);
    }

    private static TrackedProblem problem(Map<String, AttributeValue> item) {
        return Json.read(item.get("doc").s(), TrackedProblem.class);
    }
}
