package dev.richter.decider;

import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/**
 * Team rules in the registry table: item {@code {teamId, itemKey="rules#decision", rules: S (JSON)}}.
 * Read on every decision (one GetItem), so a stored change applies to the next round without redeploy.
 * The JSON may give only some fields; the rest are defaults ({@link DecisionRules#fromJson}).
 */
public final class DynamoDecisionRulesRepository implements DecisionRulesRepository {
    /** Sort key of the decision rules item. */
    public static final String ITEM_KEY = "rules#decision";
    private final DynamoDbClient dynamoDb;
    private final String registryTable;

    public DynamoDecisionRulesRepository(DynamoDbClient dynamoDb, String registryTable) {
        this.dynamoDb = dynamoDb;
        this.registryTable = registryTable;
    }

    /** @throws IllegalArgumentException when the stored JSON is invalid (the decision fails loudly rather than guess) */
    @Override
    public DecisionRules load(String teamId) {
        var item = dynamoDb.getItem(GetItemRequest.builder().tableName(registryTable)
                .key(Map.of("teamId", AttributeValue.fromS(teamId), "itemKey", AttributeValue.fromS(ITEM_KEY)))
                .build()).item();
        AttributeValue v = item == null ? null : item.get("rules");
        return v == null || v.s() == null ? DecisionRules.defaults() : DecisionRules.fromJson(v.s());
    }

    /** Stores (replaces) the team's rules. */
    public void save(String teamId, DecisionRules rules) {
        dynamoDb.putItem(PutItemRequest.builder().tableName(registryTable).item(Map.of(
                "teamId", AttributeValue.fromS(teamId), "itemKey", AttributeValue.fromS(ITEM_KEY),
                "rules", AttributeValue.fromS(rules.toJson()))).build());
    }
}
