package dev.richter.agent.it;

import static dev.richter.agent.it.ChildJvm.MARKED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.it.ChildJvm.Span;
import io.opentelemetry.api.baggage.Baggage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The AWS SDK v2 isolation (issue 40) in real child JVMs ({@link ChildJvm}: the agent and the built extension) running
 * {@link AwsSdkTestApp}, which has no Richter code: its {@code DynamoDbClient} (SDK 2.57.8, url-connection-client)
 * and {@code DynamoDbAsyncClient} (netty-nio-client) write to a dynalite this test starts ({@link Dynalite}), and every count is this JVM's unmarked {@code Scan} of the
 * table. One child has the module: its document is absent at start (marked calls refused), then written (it reloads
 * every second) mapping {@code orders → orders_shadow} and nothing for {@code audit}. A second child has the document
 * but the module off ({@code -Dotel.instrumentation.richter-aws-sdk.enabled=false}): its marked calls are undecided,
 * and still refused, by the HTTP client's guard. Skipped without {@code node}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AwsSdkIsolationIT {
    private static final String REFUSED = "error=software.amazon.awssdk.core.exception.SdkClientException: Richter"
            + " isolation refused a marked call to exit ";

    private Dynalite dynamo;
    private Path document;
    private ChildJvm app;
    private ChildJvm undecided;

    @BeforeAll
    void start() throws Exception {
        Assumptions.assumeTrue(Dynalite.nodeAvailable(), "node is not installed: no dynalite to write to");
        dynamo = new Dynalite();
        dynamo.createTables(List.of("orders", "orders_shadow", "audit"));
        Path dir = Files.createDirectories(Path.of("target", "it-logs"));
        document = dir.resolve("isolation-awssdk-" + System.nanoTime() + ".json");
        List<Class<?>> libraries = List.of(DynamoDbClient.class, Baggage.class, io.opentelemetry.context.Context.class,
                io.opentelemetry.common.ComponentLoader.class);
        app = new ChildJvm(List.of("-Drichter.isolation.file=" + document, "-Drichter.isolation.refresh-s=1",
                "-Dapp.dynamodb.endpoint=" + dynamo.endpoint()), AwsSdkTestApp.class, libraries);
        Path loaded = Files.writeString(Files.createTempFile(dir, "isolation", ".json"), isolationDocument());
        undecided = new ChildJvm(List.of("-Drichter.isolation.file=" + loaded,
                "-Dotel.instrumentation.richter-aws-sdk.enabled=false", "-Dapp.dynamodb.endpoint=" + dynamo.endpoint()),
                AwsSdkTestApp.class, libraries);
    }

    @AfterAll
    void stop() {
        ChildJvm.closeAll(app, undecided, dynamo);
    }

    private static String isolationDocument() {
        return """
                {"mode": "enforce", "scope": [], "mocks": [],
                 "shadows": [{"kind": "dynamodb", "production": "orders", "shadow": "orders_shadow", "service": "shop"}]}
                """;
    }

    private static String dynamodb(ChildJvm jvm, String op, String table, String id, String baggage) throws Exception {
        return jvm.get("/dynamodb?op=" + op + "&table=" + table + "&id=" + id, baggage).body();
    }

    @Test
    @Order(1)
    void beforeTheDocumentLoadsAMarkedCallIsRefusedAndWritesNothing() throws Exception {
        try {
            String answer = app.get("/dynamodb?op=put&table=orders&id=early&mark=1", null).body();

            assertEquals(REFUSED + "'dynamodb PutItem orders': isolation configuration not loaded", answer);
            assertEquals(503, app.get("/dynamodb?op=put&table=orders&id=early", MARKED).statusCode(),
                    "a marked request is answered by the inbound gate");
            assertEquals(0, dynamo.count("orders"));
            assertEquals(0, dynamo.count("orders_shadow"));
        } finally {
            loadDocument();
        }
    }

    @Test
    @Order(2)
    void aMarkedPutItemLandsInTheShadowTableAndNoneInProduction() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertEquals("ok=200", dynamodb(app, "put", "orders", "m" + i, MARKED));
        }
        assertEquals("ok=200", app.get("/dynamodb?op=put&table=orders&id=job&mark=1", null).body(),
                "marked by the service itself");
        assertEquals("ok=0", dynamodb(app, "batch", "orders", "b0", MARKED));
        assertEquals("ok=200", app.get("/dynamodb?op=put&table=orders&id=a0&async=1", MARKED).body(),
                "the async client (netty-nio-client)");

        assertEquals(6, dynamo.count("orders_shadow"));
        assertEquals(0, dynamo.count("orders"));
    }

    @Test
    @Order(3)
    void anUnmarkedPutItemLandsInProduction() throws Exception {
        assertEquals("ok=200", dynamodb(app, "put", "orders", "u0", null));
        assertEquals("ok=200", dynamodb(app, "put", "audit", "u1", null));

        assertEquals("ok=200", app.get("/dynamodb?op=put&table=orders&id=a1&async=1", null).body());
        assertEquals(2, dynamo.count("orders"));
        assertEquals(1, dynamo.count("audit"));
        assertEquals(6, dynamo.count("orders_shadow"));
    }

    @Test
    @Order(4)
    void markedReadsSeeTheShadowTable() throws Exception {
        assertEquals("ok=found=true", dynamodb(app, "get", "orders", "m0", MARKED));
        assertEquals("ok=found=false", dynamodb(app, "get", "orders", "u0", MARKED));
        assertEquals("ok=found=false", dynamodb(app, "get", "orders", "m0", null));
        assertEquals("ok=found=true", app.get("/dynamodb?op=get&table=orders&id=a0&async=1", MARKED).body());
        assertEquals("ok=3", dynamodb(app, "list", "", "", MARKED), "ListTables names no table and passes");
    }

    @Test
    @Order(5)
    void aMarkedWriteToATableWithoutAShadowIsRefusedNamingItAndNeverSent() throws Exception {
        assertEquals(REFUSED + "'dynamodb PutItem audit': a marked DynamoDB PutItem on table 'audit', which has no"
                + " shadow table (kind dynamodb)", dynamodb(app, "put", "audit", "m9", MARKED));
        assertEquals(REFUSED + "'dynamodb GetItem audit': a marked DynamoDB GetItem on table 'audit', which has no"
                + " shadow table (kind dynamodb)", dynamodb(app, "get", "audit", "u1", MARKED));
        assertTrue(dynamodb(app, "batch", "audit", "m10", MARKED).startsWith(REFUSED + "'dynamodb BatchWriteItem audit'"));
        assertEquals(REFUSED + "'dynamodb PutItem audit': a marked DynamoDB PutItem on table 'audit', which has no"
                + " shadow table (kind dynamodb)", app.get("/dynamodb?op=put&table=audit&id=m11&async=1", MARKED).body(),
                "the async client's future fails with the refusal");

        assertEquals(1, dynamo.count("audit"), "the unmarked write only");
    }

    @Test
    @Order(6)
    void aMarkedCallNoModuleDecidedIsStillRefusedByTheHttpClientsGuard() throws Exception {
        String answer = dynamodb(undecided, "put", "orders", "x0", MARKED);

        assertTrue(answer.startsWith("error=") && answer.contains("Richter isolation refused a marked call to exit '127.0.0.1:"
                + dynamo.port()), answer);
        assertEquals("ok=200", dynamodb(undecided, "put", "orders", "x1", null), "the unmarked control");
        assertEquals(3, dynamo.count("orders"), "u0, a1 and the control");
        assertEquals(6, dynamo.count("orders_shadow"));
    }

    @Test
    @Order(7)
    void theDecisionsAreStampedOnTheSpansOfTheMarkedRequests() throws Exception {
        List<Span> spans = app.stopAndReadSpans();

        assertTrue(spans.stream().anyMatch(s -> "orders_shadow".equals(s.attributes().get("richter.shadow.target"))),
                "a span routed to the shadow table: " + spans);
        assertTrue(spans.stream().anyMatch(s -> s.attributes().getOrDefault("richter.refused", "")
                .contains("on table 'audit'")), "a span of the refusal: " + spans);
    }

    private void loadDocument() throws Exception {
        Files.writeString(document, isolationDocument());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        // ListTables passes once the child has loaded the document (it reloads every second); nothing is written
        while (!dynamodb(app, "list", "", "", MARKED).startsWith("ok=")) {
            assertTrue(System.nanoTime() < deadline, "document not loaded:\n" + app.output());
            Thread.sleep(200);
        }
    }
}
