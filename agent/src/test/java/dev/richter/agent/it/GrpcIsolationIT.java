package dev.richter.agent.it;

import static dev.richter.agent.it.ChildJvm.MARKED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.it.ChildJvm.Span;
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

/**
 * gRPC client exits (issue 40) in a real child JVM ({@link GrpcTestApp}: grpc-java 1.76.0 over grpc-netty-shaded, the
 * agent and the built extension, no Richter code) calling two real {@code test.Stock} servers of this JVM ({@link
 * GrpcStock.Counting}, each counting the calls that reach it): {@code payments}, out of scope, whose {@code
 * test.Stock/Reserve} the document mocks for its authority, and {@code inventory}, in scope; and a closed port. Each
 * marked call, blocking and future, is counted at the server, then its unmarked control: the mocked method answers
 * the mock's message and reaches no server; the in-scope call passes; an unmocked method out of scope, and a closed
 * port, are refused with {@code PERMISSION_DENIED} and the refusal's message, before anything is sent. The last test
 * reads the stamps on the agent's gRPC client spans.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GrpcIsolationIT {
    private static final String REFUSED = "error=PERMISSION_DENIED: Richter isolation refused a marked call to exit '";

    private GrpcStock.Counting payments;
    private GrpcStock.Counting inventory;
    private int closedPort;
    private ChildJvm app;

    @BeforeAll
    void start() throws Exception {
        payments = new GrpcStock.Counting();
        inventory = new GrpcStock.Counting();
        closedPort = StorageIsolationIT.freePort();
        Path document = Files.writeString(Files.createTempFile(Files.createDirectories(Path.of("target", "it-logs")),
                "isolation-grpc", ".json"), """
                {"mode": "enforce", "scope": ["%s"], "mocks": [],
                 "grpcMocks": [{"method": "test.Stock/Reserve", "authority": "%s",
                                "response": "%s", "latencyMs": 5}]}
                """.formatted(inventory.target(), payments.target(), GrpcStock.base64("mocked-reservation")));
        app = new ChildJvm(List.of("-Drichter.isolation.file=" + document), GrpcTestApp.class,
                GrpcStock.CLIENT_LIBRARIES);
    }

    @AfterAll
    void stop() {
        ChildJvm.closeAll(app, payments, inventory);
    }

    /** The app's answer to one call of {@code method} to {@code target}, {@code how} blocking or future. */
    static String grpc(ChildJvm app, String target, String method, String how, String baggage) throws Exception {
        return app.get("/grpc?target=" + URLEncoder.encode(target, StandardCharsets.UTF_8) + "&method=" + method
                + "&how=" + how, baggage).body();
    }

    @Test
    @Order(1)
    void aMarkedCallOfAMockedMethodIsAnsweredByItsMockAndReachesNoServer() throws Exception {
        for (String how : List.of("blocking", "future")) {
            int before = payments.count();
            assertEquals("value=mocked-reservation", grpc(app, payments.target(), "test.Stock/Reserve", how, MARKED));
            assertEquals(before, payments.count(), how);

            assertEquals("value=real-stock", grpc(app, payments.target(), "test.Stock/Reserve", how, null));
            assertEquals(before + 1, payments.count(), how + ": the control");
        }
    }

    @Test
    @Order(2)
    void aMarkedCallInScopePasses() throws Exception {
        for (String how : List.of("blocking", "future")) {
            int before = inventory.count();
            assertEquals("value=real-stock", grpc(app, inventory.target(), "test.Stock/Get", how, MARKED));
            assertEquals(before + 1, inventory.count(), how);

            assertEquals("value=real-stock", grpc(app, inventory.target(), "test.Stock/Get", how, null));
            assertEquals(before + 2, inventory.count(), how + ": the control");
        }
    }

    @Test
    @Order(3)
    void aMarkedCallOfAnUnmockedMethodOutOfScopeIsRefusedUnsent() throws Exception {
        for (String how : List.of("blocking", "future")) {
            int before = payments.count();
            String refused = grpc(app, payments.target(), "test.Stock/Get", how, MARKED);
            assertEquals(REFUSED + payments.target() + "/test.Stock/Get': " + payments.target()
                    + " is outside the test's scope and no gRPC mock answers test.Stock/Get", refused);
            assertEquals(before, payments.count(), how);

            assertEquals("value=real-stock", grpc(app, payments.target(), "test.Stock/Get", how, null));
            assertEquals(before + 1, payments.count(), how + ": the control");
        }
    }

    @Test
    @Order(4)
    void aMarkedCallToAClosedPortIsRefusedNotAttempted() throws Exception {
        String target = "127.0.0.1:" + closedPort;
        assertTrue(grpc(app, target, "test.Stock/Get", "blocking", MARKED).startsWith(REFUSED + target + "/"));
        // unmarked, the channel tries and fails: the port is closed
        assertTrue(grpc(app, target, "test.Stock/Get", "blocking", null).startsWith("error=UNAVAILABLE"));
    }

    @Test
    @Order(5)
    void theDecisionsAreOnTheAgentsGrpcClientSpans() throws Exception {
        List<Span> spans = app.stopAndReadSpans();
        List<Span> client = spans.stream().filter(s -> s.kind() == Span.CLIENT && s.name().startsWith("test.Stock/"))
                .toList();
        assertEquals(2, client.stream().filter(s -> "true".equals(s.attributes().get("richter.mock"))
                && ("127.0.0.1:" + payments.port() + "/test.Stock/Reserve").equals(s.attributes().get("richter.mock.exit")))
                .count(), "mocked client spans: " + client);
        assertEquals(3, client.stream().filter(s -> s.attributes().getOrDefault("richter.refused", "")
                .startsWith("Richter isolation refused a marked call to exit '127.0.0.1:")).count(),
                "refused client spans: " + client);
    }
}
