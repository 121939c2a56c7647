package dev.richter.shop.order;

import java.net.URI;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * The placed orders, one DynamoDB item each in the table {@code shop.orders-table} ({@code orders}): {@code orderId}
 * (the hash key), {@code sku}, {@code qty}, {@code chargeId}, {@code placedAtMs}. Written through the AWS SDK v2's
 * {@link DynamoDbClient} with its default sync HTTP client, at {@code shop.dynamodb-url} (the shop's local DynamoDB,
 * dynalite, which shop.sh starts). At start it creates the table and, beside it, its shadow {@code <table>_shadow} with
 * the same key, where marked load-test writes go (as schema.sql does for inventory's SQL tables).
 */
public final class PlacedOrders implements AutoCloseable {
    private final DynamoDbClient dynamo;
    private final String table;

    /**
     * @param endpoint the DynamoDB endpoint, e.g. {@code http://127.0.0.1:18096}
     * @param table    the production table's name
     */
    public PlacedOrders(URI endpoint, String table) {
        // a local DynamoDB takes any credentials; on AWS the default provider chain would be used instead
        this.dynamo = DynamoDbClient.builder().endpointOverride(endpoint).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("shop", "shop")))
                .build();
        this.table = table;
        for (String name : new String[] {table, table + "_shadow"}) {
            create(name);
        }
    }

    private void create(String name) {
        try {
            dynamo.createTable(b -> b.tableName(name).billingMode(BillingMode.PAY_PER_REQUEST)
                    .attributeDefinitions(AttributeDefinition.builder().attributeName("orderId")
                            .attributeType(ScalarAttributeType.S).build())
                    .keySchema(KeySchemaElement.builder().attributeName("orderId").keyType(KeyType.HASH).build()));
            dynamo.waiter().waitUntilTableExists(b -> b.tableName(name));
        } catch (ResourceInUseException exists) {
            // created by an earlier start: the table outlives order
        }
    }

    /** Records a placed order (PutItem). */
    public void record(String orderId, String sku, int qty, Object chargeId) {
        dynamo.putItem(b -> b.tableName(table).item(Map.of(
                "orderId", AttributeValue.fromS(orderId),
                "sku", AttributeValue.fromS(sku),
                "qty", AttributeValue.fromN(Integer.toString(qty)),
                "chargeId", AttributeValue.fromS(String.valueOf(chargeId)),
                "placedAtMs", AttributeValue.fromN(Long.toString(System.currentTimeMillis())))));
    }

    @Override
    public void close() {
        dynamo.close();
    }
}
