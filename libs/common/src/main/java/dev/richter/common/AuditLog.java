package dev.richter.common;

import java.util.Map;
import java.util.UUID;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/**
 * Audit log of key operations (DESIGN.md §7): who, what, when, before and after.
 * Items: pk {@code teamId}, sk {@code <epochMs %013d>#<uuid>}, {@code action}, {@code caller},
 * {@code target}, {@code before} and {@code after} (JSON text, {@code null} when absent).
 */
public final class AuditLog {
    private final DynamoDbClient dynamoDb;
    private final String table;

    /**
     * @param dynamoDb the client
     * @param table    the audit table ({@code TableNames#audit()})
     */
    public AuditLog(DynamoDbClient dynamoDb, String table) {
        this.dynamoDb = dynamoDb;
        this.table = table;
    }

    /** Appends one entry; {@code before}/{@code after} are serialized as JSON. */
    public void record(String teamId, String caller, String action, String target, Object before, Object after) {
        dynamoDb.putItem(PutItemRequest.builder().tableName(table).item(Map.of(
                "teamId", AttributeValue.fromS(teamId),
                "sk", AttributeValue.fromS(String.format("%013d#%s", System.currentTimeMillis(), UUID.randomUUID())),
                "action", AttributeValue.fromS(action), "caller", AttributeValue.fromS(caller),
                "target", AttributeValue.fromS(target), "before", AttributeValue.fromS(Json.write(before)),
                "after", AttributeValue.fromS(Json.write(after)))).build());
    }
}
