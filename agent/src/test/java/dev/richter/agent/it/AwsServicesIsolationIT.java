package dev.richter.agent.it;

import static dev.richter.agent.it.ChildJvm.MARKED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.it.ChildJvm.Span;
import io.opentelemetry.api.baggage.Baggage;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The AWS SDK v2 shadows of SQS, S3, SNS, EventBridge and Kinesis (issue 40 item 5) in a real child JVM ({@link
 * ChildJvm}: the agent and the built extension) running {@link AwsSdkTestApp}, every effect counted at the receiving
 * side, each marked call with its unmarked control: SQS against ElasticMQ ({@link ElasticMq}, the queue's messages),
 * S3 against S3Proxy ({@link S3ProxyServer}, the blob store's objects), SNS, EventBridge and Kinesis against {@link
 * AwsRecorder} (what reached each topic, bus and stream: none of the three has a local server on Maven Central or in
 * Debian). A class of its own, not {@link AwsSdkIsolationIT}, whose DynamoDB needs {@code node}: these servers run
 * in this JVM and nothing here is skipped.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AwsServicesIsolationIT {
    static final String TOPICS = "arn:aws:sns:us-east-1:000000000000:";
    private static final String REFUSED = "error=software.amazon.awssdk.core.exception.SdkClientException: Richter"
            + " isolation refused a marked call to exit ";

    private ElasticMq sqs;
    private S3ProxyServer s3;
    private AwsRecorder recorder;
    private ChildJvm app;

    @BeforeAll
    void start() throws Exception {
        sqs = new ElasticMq(List.of("payments", "payments-shadow", "audit"));
        s3 = new S3ProxyServer(List.of("uploads", "uploads-shadow", "media"));
        recorder = new AwsRecorder();
        Path document = Files.writeString(Files.createTempFile(Files.createDirectories(Path.of("target", "it-logs")),
                "isolation-aws", ".json"), """
                {"mode": "enforce", "scope": [], "mocks": [],
                 "shadows": [{"kind": "queue", "production": "payments", "shadow": "payments-shadow"},
                             {"kind": "s3", "production": "uploads", "shadow": "uploads-shadow"},
                             {"kind": "s3", "production": "media/invoices/", "shadow": "media/shadow/invoices/"},
                             {"kind": "sns-topic", "production": "orders", "shadow": "orders-shadow"},
                             {"kind": "event-bus", "production": "default", "shadow": "shop-shadow"},
                             {"kind": "kinesis-stream", "production": "clicks", "shadow": "clicks-shadow"}]}
                """);
        app = new ChildJvm(flags(document, sqs, s3, recorder), AwsSdkTestApp.class, libraries());
    }

    /** The child's flags: the document, the three endpoints, the Kinesis client's CBOR off. */
    static List<String> flags(Path document, ElasticMq sqs, S3ProxyServer s3, AwsRecorder recorder) {
        return List.of("-Drichter.isolation.file=" + document, "-Dapp.sqs.endpoint=" + sqs.endpoint(),
                "-Dapp.s3.endpoint=" + s3.endpoint(), "-Dapp.aws.recorder=" + recorder.endpoint(),
                "-Daws.cborEnabled=false");
    }

    static List<Class<?>> libraries() {
        return List.of(DynamoDbClient.class, Baggage.class, io.opentelemetry.context.Context.class,
                io.opentelemetry.common.ComponentLoader.class);
    }

    @AfterAll
    void stop() {
        ChildJvm.closeAll(app, sqs, s3, recorder);
    }

    /** {@code /aws} of {@code jvm}: one call, marked when {@code baggage} is. */
    static String aws(ChildJvm jvm, String service, String op, String target, String id, String baggage)
            throws Exception {
        return jvm.get("/aws?service=" + service + "&op=" + op + "&target=" + enc(target) + "&id=" + enc(id), baggage)
                .body();
    }

    private String call(String service, String op, String target, String id, String baggage) throws Exception {
        return aws(app, service, op, target, id, baggage);
    }

    @Test
    @Order(1)
    void sqsMarkedSendsLandInTheShadowQueueAndAnUnmappedQueueIsRefused() throws Exception {
        assertEquals("ok=true", call("sqs", "send", "payments", "m1", MARKED));
        assertEquals("ok=1", call("sqs", "batch", "payments", "m2", MARKED));
        assertEquals(2, sqs.count("payments-shadow"));
        assertEquals(0, sqs.count("payments"));
        assertEquals("ok=true", call("sqs", "send", "payments", "u1", null), "the unmarked control");
        assertEquals(1, sqs.count("payments"));

        assertTrue(call("sqs", "send", "audit", "m3", MARKED).startsWith(REFUSED + "'sqs SendMessage "), "refused");
        assertEquals(0, sqs.count("audit"));
        assertEquals("ok=true", call("sqs", "send", "audit", "u2", null));
        assertEquals(1, sqs.count("audit"));
    }

    @Test
    @Order(2)
    void s3MarkedWritesLandInTheShadowBucketOrPrefixAndMarkedReadsReadThere() throws Exception {
        s3.put("uploads", "kept", "production");
        for (String op : List.of("put", "multipart")) {
            assertEquals("ok=true", call("s3", op, "uploads/" + op, "m", MARKED), op);
        }
        assertEquals("ok=true", call("s3", "copy", "uploads/copied", "uploads/put", MARKED), "a copy, its source read"
                + " from the shadow too");
        assertEquals(3, s3.count("uploads-shadow", ""));
        assertEquals(1, s3.count("uploads", ""), "the production object only");
        assertEquals("ok=m", call("s3", "get", "uploads/put", "", MARKED), "a marked read reads the shadow");
        assertTrue(call("s3", "get", "uploads/kept", "", MARKED).contains("NoSuchKey"), "not production's object");
        assertEquals("ok=204", call("s3", "delete", "uploads/kept", "", MARKED));
        assertEquals("ok=1", call("s3", "deletes", "uploads/kept", "", MARKED));
        assertEquals(1, s3.count("uploads", ""), "production's object is still there");
        assertEquals("ok=true", call("s3", "put", "uploads/u", "u", null), "the unmarked control");
        assertEquals(2, s3.count("uploads", ""));

        assertEquals("ok=true", call("s3", "put", "media/invoices/1", "m", MARKED));
        assertEquals(1, s3.count("media", "shadow/invoices/"));
        assertEquals(REFUSED + "'s3 PutObject media/other/1': a marked S3 PutObject of 'media/other/1', which is in"
                + " no location with a shadow (kind s3)", call("s3", "put", "media/other/1", "m", MARKED));
        assertEquals(0, s3.count("media", "invoices/") + s3.count("media", "other/"));
        assertEquals("ok=true", call("s3", "put", "media/invoices/2", "u", null));
        assertEquals("ok=true", call("s3", "put", "media/other/2", "u", null));
        assertEquals(2, s3.count("media", "invoices/") + s3.count("media", "other/"), "the two controls");
    }

    @Test
    @Order(3)
    void snsEventBridgeAndKinesisMarkedWritesReachTheShadowAtTheReceiver() throws Exception {
        assertTrue(call("sns", "publish", TOPICS + "orders", "m", MARKED).startsWith("ok="));
        assertEquals("ok=1", call("sns", "batch", TOPICS + "orders", "m", MARKED));
        assertEquals(2, recorder.count("sns:" + TOPICS + "orders-shadow"));
        assertEquals(0, recorder.count("sns:" + TOPICS + "orders"));
        assertTrue(call("sns", "publish", TOPICS + "orders", "u", null).startsWith("ok="));
        assertEquals(1, recorder.count("sns:" + TOPICS + "orders"));

        assertEquals("ok=0", call("events", "put", "", "m", MARKED), "the default bus");
        assertEquals(1, recorder.count("events:shop-shadow"));
        assertEquals("ok=0", call("events", "put", "", "u", null));
        assertEquals(1, recorder.count("events:default"));

        assertEquals("ok=1", call("kinesis", "put", "clicks", "m", MARKED));
        assertEquals("ok=0", call("kinesis", "batch", "clicks", "m", MARKED));
        assertEquals(2, recorder.count("kinesis:clicks-shadow"));
        assertEquals("ok=1", call("kinesis", "put", "clicks", "u", null));
        assertEquals(1, recorder.count("kinesis:clicks"));
    }

    @Test
    @Order(4)
    void anUnmappedTopicBusOrStreamIsRefusedNamingItAndNeverSent() throws Exception {
        assertEquals(REFUSED + "'sns Publish " + TOPICS + "audit': a marked SNS Publish to topic 'audit', which has no"
                + " shadow topic (kind sns-topic)", call("sns", "publish", TOPICS + "audit", "m", MARKED));
        assertEquals(REFUSED + "'eventbridge PutEvents billing': a marked EventBridge PutEvents to bus 'billing', which"
                + " has no shadow bus (kind event-bus)", call("events", "put", "billing", "m", MARKED));
        assertEquals(REFUSED + "'kinesis PutRecord views': a marked Kinesis PutRecord to stream 'views', which has no"
                + " shadow stream (kind kinesis-stream)", call("kinesis", "put", "views", "m", MARKED));
        assertEquals(0, recorder.count("sns:" + TOPICS + "audit") + recorder.count("events:billing")
                + recorder.count("kinesis:views"));
        assertTrue(call("sns", "publish", TOPICS + "audit", "u", null).startsWith("ok="));
        assertEquals("ok=0", call("events", "put", "billing", "u", null));
        assertEquals("ok=1", call("kinesis", "put", "views", "u", null));
        assertEquals(3, recorder.count("sns:" + TOPICS + "audit") + recorder.count("events:billing")
                + recorder.count("kinesis:views"), "the three controls");
    }

    @Test
    @Order(5)
    void theShadowTargetsAreStampedOnTheSpans() throws Exception {
        List<Span> spans = app.stopAndReadSpans();

        for (String shadow : List.of("payments-shadow", "uploads-shadow", "media/shadow/invoices/", "orders-shadow",
                "shop-shadow", "clicks-shadow")) {
            assertTrue(spans.stream().anyMatch(s -> shadow.equals(s.attributes().get("richter.shadow.target"))),
                    shadow + " on no span of " + spans.size());
        }
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
