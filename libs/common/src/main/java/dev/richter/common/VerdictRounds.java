package dev.richter.common;

import dev.richter.common.model.MissingEvidence;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;

/**
 * Reads the fault decider's stored decision rounds (verdicts table, pk {@code runId}, sk
 * {@code verdict#<atMs %013d>#<module>}) for what the checks and the report say about monitoring.
 */
public final class VerdictRounds {
    private VerdictRounds() {}

    /**
     * Every stored decision round of the run: module, time, and the round's monitoring defects
     * (attribute {@value MissingEvidence#ATTRIBUTE}, L of S; empty when absent). Pages through the query.
     *
     * @param sinceMs only rounds decided at or after this epoch ms (0 for all)
     */
    public static List<MissingEvidence.DecisionRound> read(DynamoDbClient dynamoDb, String verdictsTable, String runId, long sinceMs) {
        List<MissingEvidence.DecisionRound> out = new ArrayList<>();
        dynamoDb.queryPaginator(QueryRequest.builder().tableName(verdictsTable).consistentRead(true)
                        .keyConditionExpression("runId = :r AND sk BETWEEN :from AND :to")
                        .expressionAttributeValues(Map.of(":r", AttributeValue.fromS(runId),
                                ":from", AttributeValue.fromS("verdict#%013d".formatted(Math.max(0, sinceMs))),
                                ":to", AttributeValue.fromS("verdict#\uffff")))
                        .build())
                .items().forEach(item -> out.add(new MissingEvidence.DecisionRound(item.get("module").s(),
                        Long.parseLong(item.get("atMs").n()),
                        item.containsKey(MissingEvidence.ATTRIBUTE)
                                ? item.get(MissingEvidence.ATTRIBUTE).l().stream().map(AttributeValue::s).toList() : List.of())));
        return out;
    }
}
