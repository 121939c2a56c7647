package dev.richter.agent.awssdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.StubGuard;
import dev.richter.agent.bootstrap.MarkerScope;
import dev.richter.agent.bootstrap.ShadowDecision;
import dev.richter.agent.isolation.AwsSdkPolicy;
import dev.richter.agent.isolation.IsolationMode;
import dev.richter.agent.isolation.Shadows;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.client.handler.ClientExecutionParams;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ConditionCheck;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * The AWS SDK's helper called as its advice calls it, on real DynamoDB request objects (SDK 2.57.8), with a guard
 * installed by hand (no agent) that decides by the isolation's own {@link AwsSdkPolicy}.
 */
class AwsSdkExitsTest {
    private static final Shadows SHADOWS = new Shadows(Map.of(), Map.of(), Map.of(), Map.of(),
            Map.of("orders", "orders_shadow", "stock", "stock_shadow"), Map.of());
    private static final Map<String, AttributeValue> ITEM = Map.of("id", AttributeValue.fromS("o-1"));

    private final List<ShadowDecision> recorded = new ArrayList<>();
    private final List<String> decidedClients = new ArrayList<>();

    @AfterEach
    void uninstall() {
        IsolationBridge.install(null);
    }

    private void install(boolean marked) {
        IsolationBridge.install(new StubGuard(marked) {
            @Override
            public ShadowDecision decideAwsSdk(String service, String operation, String target) {
                return AwsSdkPolicy.decide(service, operation, target, SHADOWS, IsolationMode.ENFORCE);
            }

            @Override
            public void record(ShadowDecision decision) {
                recorded.add(decision);
            }

            @Override
            public MarkerScope decidedClient(String client) {
                decidedClients.add(client);
                return () -> { };
            }
        });
    }

    private static ClientExecutionParams<PutItemRequest, PutItemResponse> putItem(String table) {
        return new ClientExecutionParams<PutItemRequest, PutItemResponse>().withOperationName("PutItem")
                .withInput(PutItemRequest.builder().tableName(table).item(ITEM).build());
    }

    @Test
    void aMarkedPutItemToAMappedTableIsSentToItsShadowAsTheDecidedClient() {
        install(true);
        ClientExecutionParams<PutItemRequest, PutItemResponse> params = putItem("orders");

        assertInstanceOf(MarkerScope.class, AwsSdkExits.beforeExecute(params));

        assertEquals("orders_shadow", params.getInput().tableName());
        assertEquals(ITEM, params.getInput().item(), "the item is kept");
        assertEquals(List.of("aws-sdk"), decidedClients);
        assertEquals(List.of(new ShadowDecision(Optional.empty(), "orders_shadow", ExitDecision.PASS)), recorded);
    }

    @Test
    void aMarkedPutItemToATableWithoutAShadowFailsWithTheSdksExceptionNamingIt() {
        install(true);
        ClientExecutionParams<PutItemRequest, PutItemResponse> params = putItem("audit");

        Object decided = AwsSdkExits.beforeExecute(params);

        assertEquals("Richter isolation refused a marked call to exit 'dynamodb PutItem audit': a marked DynamoDB"
                + " PutItem on table 'audit', which has no shadow table (kind dynamodb)",
                assertInstanceOf(SdkClientException.class, decided).getMessage());
        assertEquals("audit", params.getInput().tableName());
        assertEquals(List.of(), decidedClients, "a refused call runs as no decided client");
    }

    @Test
    void anUnmarkedCallIsNotLookedAt() {
        install(false);
        ClientExecutionParams<PutItemRequest, PutItemResponse> params = putItem("audit");
        PutItemRequest before = params.getInput();

        assertNull(AwsSdkExits.beforeExecute(params));
        assertSame(before, params.getInput());
    }

    @Test
    void aBatchWritesTableKeysAreRenamedAndOneUnmappedTableRefusesTheWholeBatch() {
        install(true);
        WriteRequest put = WriteRequest.builder().putRequest(PutRequest.builder().item(ITEM).build()).build();
        ClientExecutionParams<BatchWriteItemRequest, Object> params = new ClientExecutionParams<BatchWriteItemRequest, Object>()
                .withOperationName("BatchWriteItem").withInput(BatchWriteItemRequest.builder()
                        .requestItems(Map.of("orders", List.of(put), "stock", List.of(put))).build());

        assertInstanceOf(MarkerScope.class, AwsSdkExits.beforeExecute(params));
        assertEquals(Map.of("orders_shadow", List.of(put), "stock_shadow", List.of(put)),
                params.getInput().requestItems());

        ClientExecutionParams<BatchWriteItemRequest, Object> mixed = new ClientExecutionParams<BatchWriteItemRequest, Object>()
                .withOperationName("BatchWriteItem").withInput(BatchWriteItemRequest.builder()
                        .requestItems(Map.of("orders", List.of(put), "audit", List.of(put))).build());
        assertInstanceOf(SdkClientException.class, AwsSdkExits.beforeExecute(mixed));
        assertEquals(Map.of("orders", List.of(put), "audit", List.of(put)), mixed.getInput().requestItems(),
                "nothing of a refused batch is sent");
    }

    @Test
    void aTransactionsItemsEachGetTheirShadowTable() {
        install(true);
        ClientExecutionParams<TransactWriteItemsRequest, Object> params = new ClientExecutionParams<TransactWriteItemsRequest, Object>()
                .withOperationName("TransactWriteItems").withInput(TransactWriteItemsRequest.builder().transactItems(
                        TransactWriteItem.builder().put(Put.builder().tableName("orders").item(ITEM).build()).build(),
                        TransactWriteItem.builder().conditionCheck(ConditionCheck.builder().tableName("stock")
                                .key(ITEM).conditionExpression("attribute_exists(id)").build()).build()).build());

        assertInstanceOf(MarkerScope.class, AwsSdkExits.beforeExecute(params));

        assertEquals("orders_shadow", params.getInput().transactItems().get(0).put().tableName());
        assertEquals(ITEM, params.getInput().transactItems().get(0).put().item());
        assertEquals("stock_shadow", params.getInput().transactItems().get(1).conditionCheck().tableName());
        assertEquals("attribute_exists(id)", params.getInput().transactItems().get(1).conditionCheck()
                .conditionExpression());
        assertEquals(List.of(new ShadowDecision(Optional.empty(), "orders_shadow,stock_shadow", ExitDecision.PASS)),
                recorded);
    }

    @Test
    void theServiceIsReadFromTheRequestsModelPackage() {
        assertEquals("dynamodb", AwsSdkExits.service(PutItemRequest.builder().build()));
        assertEquals("", AwsSdkExits.service(null));
    }
}
