package dev.richter.decider;

import dev.richter.common.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;

/**
 * Team alarms in the registry table: item {@code {teamId, itemKey="alarm#<alarmName>", doc: S (JSON of TeamAlarm)}};
 * a decision round reads them with one Query ({@code begins_with(itemKey, "alarm#")}).
 */
public final class DynamoTeamAlarmRepository implements TeamAlarmRepository {
    /** Sort-key prefix of the items. */
    public static final String PREFIX = "alarm#";
    private final DynamoDbClient dynamoDb;
    private final String registryTable;

    public DynamoTeamAlarmRepository(DynamoDbClient dynamoDb, String registryTable) {
        this.dynamoDb = dynamoDb;
        this.registryTable = registryTable;
    }

    @Override
    public void save(TeamAlarm alarm) {
        dynamoDb.putItem(PutItemRequest.builder().tableName(registryTable).item(Map.of(
                "teamId", AttributeValue.fromS(alarm.teamId()), "itemKey", AttributeValue.fromS(PREFIX + alarm.alarmName()),
                "doc", AttributeValue.fromS(Json.write(alarm)))).build());
    }

    @Override
    public List<TeamAlarm> alarms(String teamId) {
        List<TeamAlarm> out = new ArrayList<>();
        dynamoDb.queryPaginator(QueryRequest.builder().tableName(registryTable)
                        .keyConditionExpression("teamId = :t AND begins_with(itemKey, :p)")
                        .expressionAttributeValues(Map.of(":t", AttributeValue.fromS(teamId), ":p", AttributeValue.fromS(PREFIX)))
                        .build())
                .items().forEach(i -> out.add(Json.read(i.get("doc").s(), TeamAlarm.class)));
        return out;
    }
}
