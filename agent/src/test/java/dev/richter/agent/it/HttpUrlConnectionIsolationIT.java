package dev.richter.agent.it;

import static dev.richter.agent.it.ChildJvm.MARKED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.it.ChildJvm.Span;
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
 * The isolation at the JDK's {@code HttpURLConnection}, directly and under Spring's {@code RestTemplate} with its
 * default request factory (issue 46: a marked call through it reached an out-of-scope exit, which answered
 * {@code {"chargeId":"real"}}). One child JVM ({@link ChildJvm}, the services' Java 17) runs {@link
 * IsolationTestApp} with an enforce-mode document: one in-scope host, one mocked exit, one out-of-scope host, each
 * counting what reaches it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HttpUrlConnectionIsolationIT {
    private static final List<String> CLIENTS = List.of("urlconnection", "resttemplate");

    private CountingServer inScope;
    private CountingServer mockedExit;
    private CountingServer outOfScope;
    private ChildJvm app;

    @BeforeAll
    void startChild() throws Exception {
        inScope = new CountingServer(200, "in-scope");
        mockedExit = new CountingServer(200, "{\"chargeId\":\"real\"}");
        outOfScope = new CountingServer(200, "production-data");
        Path document = Files.writeString(Files.createTempFile(Files.createDirectories(Path.of("target", "it-logs")),
                "isolation", ".json"), """
                {"mode": "enforce", "scope": ["127.0.0.1:%d"],
                 "mocks": [{"exit": "127.0.0.1:%d POST /charge", "status": 201, "body": "{\\"chargeId\\":\\"mock\\"}"}]}
                """.formatted(inScope.port(), mockedExit.port()));
        app = new ChildJvm(List.of("-Drichter.isolation.file=" + document));
    }

    @AfterAll
    void stopAll() {
        ChildJvm.closeAll(app, inScope, mockedExit, outOfScope);
    }

    @Test
    @Order(1)
    void aMarkedCallOutsideTheScopeIsRefusedAndNeverReachesTheHost() throws Exception {
        for (String client : CLIENTS) {
            for (String method : List.of("GET", "POST")) {
                String answer = app.call(client, outOfScope.url("/customers"), method, false, MARKED);
                assertTrue(answer.startsWith("error=") && answer.contains("Richter isolation refused a marked call to"
                        + " exit '127.0.0.1:" + outOfScope.port() + " " + method + " /customers'"), client + ": " + answer);
            }
        }
        assertEquals(0, outOfScope.count(), "a marked call reached the out-of-scope host");
    }

    @Test
    @Order(2)
    void aMarkedCallToAMockedExitIsRefusedSinceThisClientCannotBeMockedAndNeverReachesIt() throws Exception {
        for (String client : CLIENTS) {
            String answer = app.call(client, mockedExit.url("/charge"), "POST", false, MARKED);
            assertTrue(answer.startsWith("error=") && answer.contains("its mock cannot answer java.net.HttpURLConnection"),
                    client + ": " + answer);
        }
        assertEquals(0, mockedExit.count(), "a marked call reached the mocked exit");
    }

    @Test
    @Order(3)
    void markedCallsInsideTheScopeAndUnmarkedCallsAnywherePass() throws Exception {
        for (String client : CLIENTS) {
            assertEquals("status=200 body=in-scope", app.call(client, inScope.url("/stock"), "GET", false, MARKED), client);
            assertEquals("status=200 body=production-data",
                    app.call(client, outOfScope.url("/customers"), "GET", false, null), client);
            assertEquals("status=200 body={\"chargeId\":\"real\"}",
                    app.call(client, mockedExit.url("/charge"), "POST", false, null), client);
        }
        assertEquals(2, inScope.count());
        assertEquals(2, outOfScope.count(), "the unmarked calls only");
        assertEquals(2, mockedExit.count(), "the unmarked calls only");
    }

    @Test
    @Order(4)
    void refusalsAreStampedOnTheAgentsHttpUrlConnectionSpans() throws Exception {
        List<Span> spans = app.stopAndReadSpans();
        List<Span> refused = spans.stream().filter(s -> s.attributes().containsKey("richter.refused")
                && s.kind() == Span.CLIENT).toList();
        assertEquals(6, refused.size(), "refused client spans: " + refused);
        for (Span s : refused) {
            assertEquals("io.opentelemetry.http-url-connection", s.scope(), s.toString());
            assertEquals("true", s.attributes().get("richter.isolation.active"), s.toString());
            assertTrue(s.attributes().get("richter.isolation.modules").contains("richter-http-url-connection"),
                    s.toString());
        }
    }
}
