package dev.richter.agent.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.ShadowDecision;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The shadows of SNS topics, S3 objects, EventBridge buses and Kinesis streams ({@link AwsShadows}, {@link
 * AwsResourcePolicy}), read from a document as the extension loads it.
 */
class AwsResourcePolicyTest {
    private static final String TOPICS = "arn:aws:sns:eu-west-1:123456789012:";
    private static final Shadows SHADOWS = IsolationConfig.parse("""
            {"mocks": [], "shadows": [
              {"kind": "sns-topic", "production": "orders", "shadow": "orders-shadow", "service": "shop"},
              {"kind": "sns-topic", "production": "%sbilling.fifo", "shadow": "%sbilling-shadow.fifo", "service": "shop"},
              {"kind": "s3", "production": "uploads", "shadow": "uploads-shadow", "service": "shop"},
              {"kind": "s3", "production": "s3://media/invoices/", "shadow": "media/shadow/invoices/", "service": "shop"},
              {"kind": "s3", "production": "arn:aws:s3:::media/invoices/eu/", "shadow": "media-eu-shadow", "service": "shop"},
              {"kind": "event-bus", "production": "default", "shadow": "shop-shadow", "service": "shop"},
              {"kind": "kinesis-stream", "production": "clicks", "shadow": "clicks-shadow", "service": "shop"}]}
            """.formatted(TOPICS, TOPICS).getBytes(StandardCharsets.UTF_8)).shadows();

    private static ShadowDecision enforce(String service, String operation, String target) {
        return AwsSdkPolicy.decide(service, operation, target, SHADOWS, IsolationMode.ENFORCE);
    }

    @Test
    void theDocumentReadsEachKindAndUnwrapsS3Locations() {
        assertEquals("orders-shadow", SHADOWS.aws().snsTopics().get("orders"));
        assertEquals(Map.of("uploads", "uploads-shadow", "media/invoices/", "media/shadow/invoices/",
                "media/invoices/eu/", "media-eu-shadow"), SHADOWS.aws().s3Locations());
        assertEquals(Map.of("default", "shop-shadow"), SHADOWS.aws().eventBuses());
        assertEquals(Map.of("clicks", "clicks-shadow"), SHADOWS.aws().kinesisStreams());
        assertEquals(Map.of(), SHADOWS.topics(), "an SNS topic is no Kafka topic");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "sns-topic|orders topic|shadows[0].production: an SNS topic name (1 to 256 of A-Z a-z 0-9 _ -, a FIFO topic's"
                + " ending .fifo) or arn:aws:sns:<region>:<account>:<topic>; was 'orders topic'",
        "s3|Uploads|shadows[0].production: an S3 bucket (3 to 63 of a-z 0-9 . -, starting and ending with a letter or"
                + " digit) or bucket/key-prefix, also as s3://bucket/key-prefix or arn:aws:s3:::bucket/key-prefix; was"
                + " 'Uploads'",
        "event-bus|arn:aws:events:eu-west-1:123:event-bus/x|shadows[0].production: an EventBridge bus name (1 to 256 of"
                + " A-Z a-z 0-9 . _ / -; default, the account's default bus) or"
                + " arn:aws:events:<region>:<account>:event-bus/<name>; was 'arn:aws:events:eu-west-1:123:event-bus/x'",
        "kinesis-stream|arn:aws:kinesis:eu-west-1:123456789012:clicks|shadows[0].production: a Kinesis stream name (1 to"
                + " 128 of A-Z a-z 0-9 _ . -) or arn:aws:kinesis:<region>:<account>:stream/<name>; was"
                + " 'arn:aws:kinesis:eu-west-1:123456789012:clicks'"})
    void aProductionTheKindDoesNotTakeIsRefusedWithItsFieldPath(String kind, String production, String error) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse(kind, production, "ok-shadow"));
        assertEquals(error, e.getMessage());
    }

    @Test
    void anS3ShadowMayNotHoldItsProductionNorBeIt() {
        assertEquals("shadows[0].shadow: must not contain the production location 'media/invoices/' (its keys would"
                + " read as shadow keys)", assertThrows(IllegalArgumentException.class,
                () -> parse("s3", "media/invoices/", "media")).getMessage());
        assertEquals("shadows[0]: shadow must differ from production 'media'", assertThrows(
                IllegalArgumentException.class, () -> parse("s3", "s3://media/", "media")).getMessage());
        assertTrue(parse("s3", "media", "media/shadow/").aws().s3Locations().containsKey("media"),
                "a shadow prefix inside a production bucket");
        assertEquals("shadows[0].shadow: an SNS topic name (1 to 256 of A-Z a-z 0-9 _ -, a FIFO topic's ending .fifo)"
                + " or arn:aws:sns:<region>:<account>:<topic>; was 'a/b'", assertThrows(IllegalArgumentException.class,
                () -> parse("sns-topic", "orders", "a/b")).getMessage());
    }

    private static Shadows parse(String kind, String production, String shadow) {
        return IsolationConfig.parse("""
                {"mocks": [], "shadows": [{"kind": "%s", "production": "%s", "shadow": "%s", "service": "s"}]}
                """.formatted(kind, production, shadow).getBytes(StandardCharsets.UTF_8)).shadows();
    }

    @Test
    void snsPublishesGoToTheShadowTopicKeepingTheArnsForm() {
        assertEquals(ShadowDecision.shadow(TOPICS + "orders-shadow", "orders-shadow"),
                enforce("sns", "Publish", TOPICS + "orders"));
        assertEquals(ShadowDecision.shadow(TOPICS + "billing-shadow.fifo", TOPICS + "billing-shadow.fifo"),
                enforce("sns", "PublishBatch", TOPICS + "billing.fifo"));
        assertTrue(enforce("sns", "Publish", "arn:aws:sns:us-east-1:999999999999:billing.fifo").refused(),
                "an ARN maps by the whole ARN when the document gives one");
        assertEquals(new ShadowDecision(Optional.empty(), "orders-shadow", ExitDecision.PASS),
                enforce("sns", "Publish", TOPICS + "orders-shadow"), "a shadow topic is used as it is");
        assertEquals("Richter isolation refused a marked call to exit 'sns Publish " + TOPICS + "audit': a marked SNS"
                + " Publish to topic 'audit', which has no shadow topic (kind sns-topic)",
                enforce("sns", "Publish", TOPICS + "audit").refusal());
        assertEquals("Richter isolation refused a marked call to exit 'sns Publish': a marked SNS Publish naming no"
                + " topic (kind sns-topic)", enforce("sns", "Publish", "").refusal(), "an SMS to a phone number");
        assertTrue(enforce("sns", "Subscribe", TOPICS + "orders").refusal().contains("Richter shadows SNS's Publish,"
                + " PublishBatch only (kind sns-topic)"));
    }

    @Test
    void s3ObjectsGoToTheLongestProductionLocationsShadow() {
        assertEquals(ShadowDecision.shadow("uploads-shadow/a/b.pdf", "uploads-shadow"),
                enforce("s3", "PutObject", "uploads/a/b.pdf"));
        assertEquals(ShadowDecision.shadow("media/shadow/invoices/1.pdf", "media/shadow/invoices/"),
                enforce("s3", "CompleteMultipartUpload", "media/invoices/1.pdf"));
        assertEquals(ShadowDecision.shadow("media-eu-shadow/1.pdf", "media-eu-shadow"),
                enforce("s3", "DeleteObjects", "media/invoices/eu/1.pdf"), "the longest production location");
        assertEquals(new ShadowDecision(Optional.empty(), "media/shadow/invoices/", ExitDecision.PASS),
                enforce("s3", "PutObject", "media/shadow/invoices/1.pdf"));
        assertEquals("Richter isolation refused a marked call to exit 's3 DeleteObject media/logo.png': a marked S3"
                + " DeleteObject of 'media/logo.png', which is in no location with a shadow (kind s3)",
                enforce("s3", "DeleteObject", "media/logo.png").refusal());
    }

    @Test
    void s3ReadsOfMappedObjectsReadTheShadowAndOthersPassAsReferenceReads() {
        assertEquals(ShadowDecision.shadow("uploads-shadow/a", "uploads-shadow"), enforce("s3", "GetObject", "uploads/a"));
        assertEquals(ShadowDecision.shadow("uploads-shadow/a", "uploads-shadow"),
                enforce("s3", "CopyObject source", "uploads/a"), "a copy's source");
        assertEquals(ShadowDecision.UNTOUCHED, enforce("s3", "HeadObject", "media/logo.png"));
        assertEquals(ShadowDecision.UNTOUCHED, enforce("s3", "UploadPartCopy source", "media/logo.png"));
        assertTrue(enforce("s3", "CopyObject source", "").refusal().contains("naming no bucket and key Richter can"
                + " read"), "a source named by the legacy CopySource only");
        assertTrue(enforce("s3", "PutObject", "uploads").refused(), "an object write naming no key");
        assertTrue(enforce("s3", "PutBucketPolicy", "uploads").refused());
        assertEquals(ShadowDecision.UNTOUCHED, enforce("s3", "ListObjectsV2", "uploads"), "not understood, a read");
    }

    @Test
    void eventsAndRecordsGoToTheShadowBusAndStream() {
        assertEquals(ShadowDecision.shadow("shop-shadow", "shop-shadow"), enforce("eventbridge", "PutEvents", "default"));
        assertEquals(ShadowDecision.shadow("arn:aws:events:eu-west-1:123456789012:event-bus/shop-shadow", "shop-shadow"),
                enforce("eventbridge", "PutEvents", "arn:aws:events:eu-west-1:123456789012:event-bus/default"));
        assertTrue(enforce("eventbridge", "PutEvents", "billing").refusal().endsWith("a marked EventBridge PutEvents to"
                + " bus 'billing', which has no shadow bus (kind event-bus)"));
        assertTrue(enforce("eventbridge", "PutRule", "default").refused());
        assertEquals(ShadowDecision.shadow("clicks-shadow", "clicks-shadow"), enforce("kinesis", "PutRecords", "clicks"));
        assertEquals(ShadowDecision.shadow("arn:aws:kinesis:eu-west-1:123456789012:stream/clicks-shadow",
                "clicks-shadow"), enforce("kinesis", "PutRecord", "arn:aws:kinesis:eu-west-1:123456789012:stream/clicks"));
        assertTrue(enforce("kinesis", "PutRecord", "views").refused());
        assertTrue(enforce("kinesis", "DeleteStream", "clicks").refused());
        assertEquals(ShadowDecision.UNTOUCHED, enforce("kinesis", "GetRecords", ""));
    }

    @Test
    void reportModeLetsAnUnmappedWriteThroughAndStillShadowsMappedOnes() {
        assertInstanceOf(ExitDecision.WouldRefuse.class,
                AwsSdkPolicy.decide("s3", "PutObject", "media/logo.png", SHADOWS, IsolationMode.REPORT).verdict());
        assertEquals(ShadowDecision.shadow("uploads-shadow/a", "uploads-shadow"),
                AwsSdkPolicy.decide("s3", "PutObject", "uploads/a", SHADOWS, IsolationMode.REPORT));
    }
}
