package dev.richter.decider;

import dev.richter.common.Json;
import dev.richter.common.model.MissingEvidence;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;

/**
 * Verdicts table (pk {@code runId}, sk {@code sk}): {@code state#<module>} items hold
 * {@link ModuleState} as JSON ({@code state} S); {@code verdict#<atMs %013d>#<module>} items hold each
 * decision: {@code module}, {@code verdict}, {@code reason}, {@code rule}, {@code atMs} (N) and
 * {@code evidence} (S, JSON of {@link VerdictEvidence}, its {@code teamEvidence} the round's alerts and business metrics),
 * {@code step} ({@code <stage>#<stepIndex>}) and, when the round had monitoring defects,
 * {@value MissingEvidence#ATTRIBUTE} (L of S, {@link VerdictEvidence#missingEvidence()}).
 */
public final class DynamoVerdictRepository implements VerdictRepository {
    private final DynamoDbClient dynamoDb;
    private final String verdictsTable;

    public DynamoVerdictRepository(DynamoDbClient dynamoDb, String verdictsTable) {
        this.dynamoDb = dynamoDb;
        this.verdictsTable = verdictsTable;
    }

    @Override
    public Map<String, ModuleState> loadStates(String runId) {
        Map<String, ModuleState> out = new HashMap<>();
        Map<String, AttributeValue> start = null;
        do {
            var resp = dynamoDb.query(QueryRequest.builder().tableName(verdictsTable).consistentRead(true)
                    .keyConditionExpression("runId = :r AND begins_with(sk, :p)")
                    .expressionAttributeValues(Map.of(":r", AttributeValue.fromS(runId), ":p", AttributeValue.fromS("state#")))
                    .exclusiveStartKey(start).build());
            for (var item : resp.items()) {
                ModuleState s = Json.read(item.get("state").s(), ModuleState.class);
                out.put(s.module(), s);
            }
            start = resp.hasLastEvaluatedKey() && !resp.lastEvaluatedKey().isEmpty() ? resp.lastEvaluatedKey() : null;
        } while (start != null);
        return out;
    }

    @Override
    public void save(String runId, List<ModuleDecision> decisions) {
        for (ModuleDecision d : decisions) {
            String module = d.verdict().module();
            dynamoDb.putItem(PutItemRequest.builder().tableName(verdictsTable).item(Map.of(
                    "runId", AttributeValue.fromS(runId), "sk", AttributeValue.fromS("state#" + module),
                    "state", AttributeValue.fromS(Json.write(d.next())))).build());
            Map<String, AttributeValue> item = new HashMap<>(Map.of(
                    "runId", AttributeValue.fromS(runId),
                    "sk", AttributeValue.fromS("verdict#%013d#%s".formatted(d.verdict().atMs(), module)),
                    "module", AttributeValue.fromS(module),
                    "verdict", AttributeValue.fromS(d.verdict().state().name()),
                    "previous", AttributeValue.fromS(d.previous().name()),
                    "reason", AttributeValue.fromS(d.verdict().reason()),
                    "rule", AttributeValue.fromS(d.evidence().rule()),
                    "atMs", AttributeValue.fromN(Long.toString(d.verdict().atMs())),
                    "evidence", AttributeValue.fromS(Json.write(d.evidence()))));
            if (!d.next().stepKey().isEmpty()) {
                item.put("step", AttributeValue.fromS(d.next().stepKey()));
            }
            if (!d.evidence().missingEvidence().isEmpty()) {
                item.put(MissingEvidence.ATTRIBUTE, AttributeValue.fromL(
                        d.evidence().missingEvidence().stream().map(AttributeValue::fromS).toList()));
            }
            dynamoDb.putItem(PutItemRequest.builder().tableName(verdictsTable).item(item).build());
        }
    }
}
