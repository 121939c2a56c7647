package dev.richter.agent.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.ShadowDecision;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The rule for marked AWS SDK v2 calls ({@link AwsSdkPolicy}), read from a document as the extension loads it. */
class AwsSdkPolicyTest {
    private static final String QUEUES = "https://sqs.eu-west-1.amazonaws.com/123456789012/";
    private static final Shadows SHADOWS = IsolationConfig.parse("""
            {"mocks": [], "shadows": [
              {"kind": "dynamodb", "production": "orders", "shadow": "orders_shadow", "service": "shop"},
              {"kind": "queue", "production": "payments", "shadow": "payments-shadow", "service": "shop"},
              {"kind": "queue", "production": "%saudit", "shadow": "%saudit-shadow", "service": "shop"},
              {"kind": "table", "production": "visits", "shadow": "visits_shadow", "service": "shop"}]}
            """.formatted(QUEUES, QUEUES).getBytes(StandardCharsets.UTF_8)).shadows();

    private static ShadowDecision enforce(String service, String operation, String target) {
        return AwsSdkPolicy.decide(service, operation, target, SHADOWS, IsolationMode.ENFORCE);
    }

    @Test
    void theDocumentReadsDynamoDbTablesAndQueuesAsKindsOfTheirOwnAndCaseSensitive() {
        assertEquals(Map.of("orders", "orders_shadow"), SHADOWS.dynamoDbTables());
        assertEquals("payments-shadow", SHADOWS.queues().get("payments"));
        assertEquals(Optional.empty(), SHADOWS.shadowTable("orders"), "a DynamoDB table is no SQL table shadow");
        assertEquals(Map.of("visits", "visits_shadow"), SHADOWS.tables(), "nor does the pre-check see it");
        assertInstanceOf(ExitDecision.Refuse.class, enforce("dynamodb", "PutItem", "Orders").verdict());
    }

    @ParameterizedTest
    @CsvSource({"PutItem", "UpdateItem", "DeleteItem", "GetItem", "Query", "Scan", "BatchWriteItem", "BatchGetItem",
            "TransactWriteItems", "TransactGetItems", "DescribeTable"})
    void everyItemOperationOnAMappedTableGoesToItsShadowReadsToo(String operation) {
        assertEquals(ShadowDecision.shadow("orders_shadow", "orders_shadow"), enforce("dynamodb", operation, "orders"));
        assertEquals(new ShadowDecision(Optional.empty(), "orders_shadow", ExitDecision.PASS),
                enforce("dynamodb", operation, "orders_shadow"), "a shadow table is used as it is");
    }

    @ParameterizedTest
    @CsvSource({"PutItem", "GetItem", "Query", "Scan", "BatchWriteItem", "TransactWriteItems"})
    void anItemOperationOnATableWithoutAShadowIsRefusedNamingTheTable(String operation) {
        ShadowDecision d = enforce("dynamodb", operation, "audit");

        assertTrue(d.refused());
        assertEquals("Richter isolation refused a marked call to exit 'dynamodb " + operation + " audit': a marked"
                + " DynamoDB " + operation + " on table 'audit', which has no shadow table (kind dynamodb)", d.refusal());
    }

    @Test
    void aTableArnKeepsItsFormWithTheShadowsName() {
        assertEquals(ShadowDecision.shadow("arn:aws:dynamodb:eu-west-1:123456789012:table/orders_shadow",
                "orders_shadow"), enforce("dynamodb", "GetItem", "arn:aws:dynamodb:eu-west-1:123456789012:table/orders"));
        assertTrue(enforce("dynamodb", "GetItem", "arn:aws:dynamodb:eu-west-1:123456789012:table/audit").refused());
    }

    @Test
    void dynamoDbOperationsNamingNoTablePassAndEveryOtherIsRefused() {
        assertEquals(ShadowDecision.UNTOUCHED, enforce("dynamodb", "ListTables", ""));
        assertEquals(ShadowDecision.UNTOUCHED, enforce("dynamodb", "DescribeEndpoints", ""));
        assertTrue(enforce("dynamodb", "ExecuteStatement", "").refusal().contains("PartiQL statements are not read"));
        assertTrue(enforce("dynamodb", "CreateTable", "orders").refused());
        assertTrue(enforce("dynamodb", "DeleteTable", "orders").refused());
        assertTrue(enforce("dynamodb", "PutItem", "").refusal().contains("whose table Richter cannot read"));
    }

    @Test
    void sqsSendsToAMappedQueueGoToItsShadowByNameOrByUrl() {
        assertEquals(ShadowDecision.shadow(QUEUES + "payments-shadow", "payments-shadow"),
                enforce("sqs", "SendMessage", QUEUES + "payments"));
        assertEquals(ShadowDecision.shadow(QUEUES + "audit-shadow", QUEUES + "audit-shadow"),
                enforce("sqs", "SendMessageBatch", QUEUES + "audit"));
        assertEquals(new ShadowDecision(Optional.empty(), "payments-shadow", ExitDecision.PASS),
                enforce("sqs", "ReceiveMessage", QUEUES + "payments-shadow"));
        assertEquals("Richter isolation refused a marked call to exit 'sqs SendMessage " + QUEUES + "refunds': a marked"
                + " SQS SendMessage on queue 'refunds', which has no shadow queue (kind queue)",
                enforce("sqs", "SendMessage", QUEUES + "refunds").refusal());
        assertTrue(enforce("sqs", "ReceiveMessage", QUEUES + "refunds").refused(), "a receive consumes production's");
        assertEquals(ShadowDecision.UNTOUCHED, enforce("sqs", "GetQueueUrl", ""));
        assertTrue(enforce("sqs", "CreateQueue", "").refused());
        assertTrue(enforce("sqs", "PurgeQueue", QUEUES + "payments").refused());
    }

    @ParameterizedTest
    @CsvSource({"ses, SendEmail", "firehose, PutRecord", "sfn, StartExecution", "kms, Decrypt"})
    void writesToServicesWithoutAShadowAreRefusedSayingWhy(String service, String operation) {
        ShadowDecision d = enforce(service, operation, "");

        assertEquals("Richter isolation refused a marked call to exit '" + service + " " + operation + "': a marked "
                + service + " " + operation + " through the AWS SDK: Richter has no shadow for " + service + " (it"
                + " shadows DynamoDB tables, SQS queues, SNS topics, S3 objects, EventBridge buses and Kinesis streams), so"
                + " only its reads (Get*, List*, Describe*, Head*) pass", d.refusal());
    }

    @ParameterizedTest
    @CsvSource({"s3, ListObjectsV2", "s3, GetBucketPolicy", "sns, GetTopicAttributes", "ssm, GetParameter",
            "kinesis, DescribeStream", "sts, AssumeRole", "sso, GetRoleCredentials"})
    void readsOfServicesWithoutAShadowAndIdentityCallsPass(String service, String operation) {
        assertEquals(ShadowDecision.UNTOUCHED, enforce(service, operation, ""));
    }

    @Test
    void anOperationMerelyStartingWithGetIsNoRead() {
        assertTrue(enforce("s3", "Getaway", "").refused());
    }

    @Test
    void reportModeLetsTheRefusalsThroughAndStillShadowsMappedTables() {
        ShadowDecision unmapped = AwsSdkPolicy.decide("dynamodb", "PutItem", "audit", SHADOWS, IsolationMode.REPORT);
        assertInstanceOf(ExitDecision.WouldRefuse.class, unmapped.verdict());
        assertEquals(Optional.empty(), unmapped.rewritten());
        assertEquals(ShadowDecision.shadow("orders_shadow", "orders_shadow"),
                AwsSdkPolicy.decide("dynamodb", "PutItem", "orders", SHADOWS, IsolationMode.REPORT));
        assertInstanceOf(ExitDecision.WouldRefuse.class,
                AwsSdkPolicy.decide("sns", "Publish", "", SHADOWS, IsolationMode.REPORT).verdict());
    }
}
