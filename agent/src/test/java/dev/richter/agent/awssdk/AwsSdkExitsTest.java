package dev.richter.agent.awssdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.StubGuard;
import dev.richter.agent.bootstrap.MarkerScope;
import dev.richter.agent.bootstrap.ShadowDecision;
import dev.richter.agent.isolation.AwsSdkPolicy;
import dev.richter.agent.isolation.IsolationConfig;
import dev.richter.agent.isolation.IsolationMode;
import dev.richter.agent.isolation.Shadows;
import java.nio.charset.StandardCharsets;
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
import software.amazon.awssdk.services.eventbridge.model.PutEventsRequest;
import software.amazon.awssdk.services.eventbridge.model.PutEventsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordRequest;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectsRequest;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.sns.model.PublishRequest;

/**
 * The AWS SDK's helper called as its advice calls it, on real DynamoDB request objects (SDK 2.57.8), with a guard
 * installed by hand (no agent) that decides by the isolation's own {@link AwsSdkPolicy}.
 */
class AwsSdkExitsTest {
    private static final Shadows SHADOWS = new Shadows(Map.of(), Map.of(), Map.of(), Map.of(),
            Map.of("orders", "orders_shadow", "stock", "stock_shadow"), Map.of());
    private static final Map<String, AttributeValue> ITEM = Map.of("id", AttributeValue.fromS("o-1"));

    /** The other services' shadows, as a document names them. */
    private static final Shadows AWS = IsolationConfig.parse("""
            {"mocks": [], "shadows": [
              {"kind": "s3", "production": "uploads", "shadow": "uploads-shadow"},
              {"kind": "s3", "production": "media/invoices/", "shadow": "media/shadow/"},
              {"kind": "sns-topic", "production": "orders", "shadow": "orders-shadow"},
              {"kind": "event-bus", "production": "default", "shadow": "shop-shadow"},
              {"kind": "kinesis-stream", "production": "clicks", "shadow": "clicks-shadow"}]}
            """.getBytes(StandardCharsets.UTF_8)).shadows();

    private Shadows shadows = SHADOWS;
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
                return AwsSdkPolicy.decide(service, operation, target, shadows, IsolationMode.ENFORCE);
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

    @SuppressWarnings({"unchecked", "rawtypes"})
    private <T> T decided(String operation, Object request) {
        shadows = AWS;
        install(true);
        ClientExecutionParams params = new ClientExecutionParams().withOperationName(operation).withInput(
                (software.amazon.awssdk.core.SdkRequest) request);
        Object decided = AwsSdkExits.beforeExecute(params);
        if (decided instanceof SdkClientException) {
            throw (SdkClientException) decided;
        }
        return (T) params.getInput();
    }

    @Test
    void anS3PutObjectGoesToTheShadowBucketOrPrefixKeepingTheRestOfTheRequest() {
        PutObjectRequest put = decided("PutObject", PutObjectRequest.builder().bucket("uploads").key("a/b.pdf")
                .contentType("application/pdf").build());
        assertEquals(List.of("uploads-shadow", "a/b.pdf", "application/pdf"), List.of(put.bucket(), put.key(),
                put.contentType()));
        PutObjectRequest prefixed = decided("PutObject", PutObjectRequest.builder().bucket("media")
                .key("invoices/1.pdf").build());
        assertEquals(List.of("media", "shadow/1.pdf"), List.of(prefixed.bucket(), prefixed.key()));
        assertEquals("Richter isolation refused a marked call to exit 's3 PutObject media/logo.png': a marked S3"
                + " PutObject of 'media/logo.png', which is in no location with a shadow (kind s3)",
                assertThrows(SdkClientException.class, () -> decided("PutObject", PutObjectRequest.builder()
                        .bucket("media").key("logo.png").build())).getMessage());
    }

    @Test
    void anS3CopysSourceAndDestinationAndADeleteObjectsKeysAreEachShadowed() {
        CopyObjectRequest copy = decided("CopyObject", CopyObjectRequest.builder().sourceBucket("uploads")
                .sourceKey("a").destinationBucket("media").destinationKey("invoices/a").build());
        assertEquals(List.of("uploads-shadow", "a", "media", "shadow/a"), List.of(copy.sourceBucket(),
                copy.sourceKey(), copy.destinationBucket(), copy.destinationKey()));
        CopyObjectRequest fromReference = decided("CopyObject", CopyObjectRequest.builder().sourceBucket("media")
                .sourceKey("logo.png").destinationBucket("uploads").destinationKey("logo.png").build());
        assertEquals(List.of("media", "logo.png", "uploads-shadow"), List.of(fromReference.sourceBucket(),
                fromReference.sourceKey(), fromReference.destinationBucket()), "an unmapped source is a reference read");
        CopyObjectRequest asTheClientSendsIt = decided("CopyObject", CopyObjectRequest.builder()
                .copySource("uploads/a%20b+c%2B.pdf?versionId=v%2F1").destinationBucket("media")
                .destinationKey("invoices/x.pdf").build());
        assertEquals("uploads-shadow/a%20b%2Bc%2B.pdf?versionId=v%2F1", asTheClientSendsIt.copySource(),
                "the S3 client's CopySource (CustomRequestTransformerUtils), re-encoded to the shadow");
        assertThrows(SdkClientException.class, () -> decided("CopyObject", CopyObjectRequest.builder()
                .destinationBucket("uploads").destinationKey("a")
                .copySource("arn:aws:s3:eu-west-1:123456789012:accesspoint/ap/object/a").build()),
                "a source an access point ARN names is not read");

        DeleteObjectsRequest delete = decided("DeleteObjects", DeleteObjectsRequest.builder().bucket("media")
                .delete(d -> d.objects(ObjectIdentifier.builder().key("invoices/1").versionId("v1").build(),
                        ObjectIdentifier.builder().key("invoices/2").build())).build());
        assertEquals("media", delete.bucket());
        assertEquals(List.of("shadow/1", "shadow/2"), delete.delete().objects().stream().map(ObjectIdentifier::key)
                .toList());
        assertEquals("v1", delete.delete().objects().get(0).versionId());
        assertThrows(SdkClientException.class, () -> decided("DeleteObjects", DeleteObjectsRequest.builder()
                .bucket("media").delete(d -> d.objects(ObjectIdentifier.builder().key("invoices/1").build(),
                        ObjectIdentifier.builder().key("logo.png").build())).build()), "one unmapped key refuses all");
    }

    @Test
    void snsEventBridgeAndKinesisTargetsAreRenamedInPlace() {
        PublishRequest publish = decided("Publish", PublishRequest.builder()
                .topicArn("arn:aws:sns:eu-west-1:123456789012:orders").message("m").build());
        assertEquals("arn:aws:sns:eu-west-1:123456789012:orders-shadow", publish.topicArn());
        assertThrows(SdkClientException.class, () -> decided("Publish", PublishRequest.builder().phoneNumber("+100")
                .message("m").build()), "an SMS names no topic");

        PutEventsRequest events = decided("PutEvents", PutEventsRequest.builder().entries(
                PutEventsRequestEntry.builder().source("shop").build(),
                PutEventsRequestEntry.builder().source("shop").eventBusName("default").build()).build());
        assertEquals(List.of("shop-shadow", "shop-shadow"), events.entries().stream()
                .map(PutEventsRequestEntry::eventBusName).toList(), "the default bus, named or not");
        assertEquals("shop", events.entries().get(0).source());

        PutRecordRequest record = decided("PutRecord", PutRecordRequest.builder().streamName("clicks")
                .partitionKey("k").build());
        assertEquals(List.of("clicks-shadow", "k"), List.of(record.streamName(), record.partitionKey()));
    }

    @Test
    void theServiceIsReadFromTheRequestsModelPackage() {
        assertEquals("dynamodb", AwsSdkExits.service(PutItemRequest.builder().build()));
        assertEquals("", AwsSdkExits.service(null));
    }
}
