package dev.richter.report;

import dev.richter.common.Json;
import dev.richter.common.model.MissingEvidence;
import dev.richter.common.model.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;

/**
 * Reports table (pk {@code runId}; attributes {@code json}, {@code html}) and the verdicts the
 * fault decider stored (verdicts table, sk {@code verdict#<atMs %013d>#<module>}, attributes
 * {@code module}, {@code verdict} (HEALTHY/SUSPECT/DAMAGED), {@code reason}, {@code atMs}).
 */
public final class ReportRepository {
    /** Most bytes the JSON and HTML of one report may take together: DynamoDB's 400 KB item, less room for the keys. */
    public static final int MAX_ITEM_BYTES = 395_000;

    private final DynamoDbClient dynamoDb;
    private final String reportsTable;
    private final String verdictsTable;

    /**
     * @param dynamoDb      client (built once per container)
     * @param reportsTable  reports table name
     * @param verdictsTable verdicts table name
     */
    public ReportRepository(DynamoDbClient dynamoDb, String reportsTable, String verdictsTable) {
        this.dynamoDb = dynamoDb;
        this.reportsTable = reportsTable;
        this.verdictsTable = verdictsTable;
    }

    /** Stores (replaces) the run's report as JSON and HTML in one item. */
    public void put(Report report, String html) {
        dynamoDb.putItem(PutItemRequest.builder().tableName(reportsTable).item(Map.of(
                "runId", AttributeValue.fromS(report.runId()), "teamId", AttributeValue.fromS(report.teamId()),
                "json", AttributeValue.fromS(Json.write(report)), "html", AttributeValue.fromS(html))).build());
    }

    /** The stored report's {@code json} or {@code html} text. */
    public Optional<String> get(String runId, String format) {
        var item = dynamoDb.getItem(GetItemRequest.builder().tableName(reportsTable)
                .key(Map.of("runId", AttributeValue.fromS(runId))).consistentRead(true).build()).item();
        if (item == null || !item.containsKey(format)) {
            return Optional.empty();
        }
        return Optional.of(item.get(format).s());
    }

    /**
     * The run's monitoring defects, summarised per module and defect from the verdict items'
     * {@value MissingEvidence#ATTRIBUTE} attribute (L of S).
     */
    public List<MissingEvidence> missingEvidence(String runId) {
        return MissingEvidence.summarise(dev.richter.common.VerdictRounds.read(dynamoDb, verdictsTable, runId, 0));
    }

    /** Every stored verdict of the run, in sort-key (time) order. */
    public List<Verdict> verdicts(String runId) {
        List<Verdict> out = new ArrayList<>();
        dynamoDb.queryPaginator(QueryRequest.builder().tableName(verdictsTable)
                        .keyConditionExpression("runId = :r AND begins_with(sk, :p)")
                        .expressionAttributeValues(Map.of(":r", AttributeValue.fromS(runId), ":p", AttributeValue.fromS("verdict#")))
                        .build())
                .items().forEach(item -> out.add(new Verdict(item.get("module").s(), Verdict.State.valueOf(item.get("verdict").s()),
                        item.containsKey("reason") ? item.get("reason").s() : "", Long.parseLong(item.get("atMs").n()))));
        return out;
    }
}
