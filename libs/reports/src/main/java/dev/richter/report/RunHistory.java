package dev.richter.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;

/**
 * The runs of a plan before a given one, for comparisons ({@link RunComparison}): the runs table's {@code byPlan} index
 * (pk {@code planId}, sk {@code createdAtMs}), newest first.
 */
public final class RunHistory {
    /** Earlier runs of the plan read at most, looking for the previous finished one. */
    public static final int MAX_RUNS_READ = 100;

    private final DynamoDbClient dynamoDb;
    private final String runsTable;
    private final ReportRepository reports;

    /**
     * @param dynamoDb  the client
     * @param runsTable the runs table ({@code TableNames#runs()})
     * @param reports   where the runs' reports are read
     */
    public RunHistory(DynamoDbClient dynamoDb, String runsTable, ReportRepository reports) {
        this.dynamoDb = dynamoDb;
        this.runsTable = runsTable;
        this.reports = reports;
    }

    /**
     * A run and its stored report document.
     *
     * @param runId  the run
     * @param report its report, as the report function stored it
     */
    public record Reported(String runId, JsonNode report) {}

    /**
     * The previous run of the plan: the latest run created before {@code createdAtMs} that is {@code COMPLETED} and
     * has a stored report; of the {@link #MAX_RUNS_READ} latest earlier runs.
     *
     * @param planId      the plan
     * @param runId       the run to find the predecessor of (never itself the answer)
     * @param createdAtMs that run's creation time, epoch ms
     * @return empty for a plan's first finished run
     */
    public Optional<Reported> previous(String planId, String runId, long createdAtMs) {
        int read = 0;
        for (Map<String, AttributeValue> item : dynamoDb.queryPaginator(QueryRequest.builder().tableName(runsTable)
                .indexName("byPlan").keyConditionExpression("planId = :p AND createdAtMs <= :c")
                .expressionAttributeValues(Map.of(":p", AttributeValue.fromS(planId),
                        ":c", AttributeValue.fromN(Long.toString(createdAtMs))))
                .scanIndexForward(false).limit(25).build()).items()) {
            if (++read > MAX_RUNS_READ) {
                break;
            }
            String id = item.get("runId").s();
            AttributeValue status = item.get("status");
            if (id.equals(runId) || status == null || !"COMPLETED".equals(status.s())) {
                continue;
            }
            Optional<String> json = reports.get(id, "json");
            if (json.isPresent()) {
                return Optional.of(new Reported(id, Json.read(json.get(), JsonNode.class)));
            }
        }
        return Optional.empty();
    }
}
