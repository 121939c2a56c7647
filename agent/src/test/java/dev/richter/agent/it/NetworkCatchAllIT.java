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
 * The network catch-all (issue 46, item 4): clients Richter has no instrumentation for (Apache HttpClient 4.5 with its module off, a
 * plain {@code java.net.Socket}, a NIO {@code SocketChannel}) cannot carry marked work out of the test's scope. One
 * child JVM ({@link ChildJvm}, the services' Java 17, and Java 25 in {@link NetworkCatchAllOnLatestJavaIT}) runs {@link IsolationTestApp} with an enforce-mode document
 * whose scope is one host; what reaches the out-of-scope host is counted there.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NetworkCatchAllIT {
    private static final List<String> CLIENTS = List.of("apache4", "socket", "channel");

    private CountingServer inScope;
    private CountingServer outOfScope;
    private ChildJvm app;

    @BeforeAll
    void startChild() throws Exception {
        inScope = new CountingServer(200, "in-scope");
        outOfScope = new CountingServer(200, "production-data");
        Path document = Files.writeString(Files.createTempFile(Files.createDirectories(Path.of("target", "it-logs")),
                "isolation", ".json"), """
                {"mode": "enforce", "scope": ["127.0.0.1:%d"], "mocks": []}
                """.formatted(inScope.port()));
        // Apache HttpClient 4 has a module of its own (ApacheHttpClient4IsolationIT): off here, so it is a client with none
        app = new ChildJvm(java(), List.of("-Drichter.isolation.file=" + document,
                "-Dotel.instrumentation.richter-apache-httpclient-4.enabled=false"), IsolationTestApp.class, List.of());
    }

    /** The {@code java} the child runs on: the services' Java 17 here, the newest in {@link NetworkCatchAllOnLatestJavaIT}. */
    String java() {
        return ChildJvm.serviceJava();
    }

    @AfterAll
    void stopAll() {
        ChildJvm.closeAll(app, inScope, outOfScope);
    }

    @Test
    @Order(1)
    void aMarkedConnectionOutsideTheScopeIsRefusedWhateverTheClient() throws Exception {
        for (String client : CLIENTS) {
            String answer = app.call(client, outOfScope.url("/customers"), "GET", false, MARKED);
            assertTrue(answer.startsWith("error=") && answer.contains("Richter isolation refused a marked call to exit"
                    + " '127.0.0.1:" + outOfScope.port() + "'") && answer.contains("by a client Richter does not guard"),
                    client + ": " + answer);
        }
        assertEquals(0, outOfScope.count(), "a marked call reached the out-of-scope host");
    }

    @Test
    @Order(2)
    void markedConnectionsInsideTheScopeAndUnmarkedOnesAnywherePass() throws Exception {
        for (String client : CLIENTS) {
            assertEquals("status=200 body=in-scope", app.call(client, inScope.url("/stock"), "GET", false, MARKED), client);
            assertEquals("status=200 body=production-data", app.call(client, outOfScope.url("/customers"), "GET", false,
                    null), client);
        }
        assertEquals(3, inScope.count());
        assertEquals(3, outOfScope.count(), "the unmarked calls only");
    }

    @Test
    @Order(3)
    void aPooledConnectionOpenedUnmarkedIsRefusedAtItsFirstMarkedWrite() throws Exception {
        // order 2 left Apache HttpClient 4's keep-alive connection to the out-of-scope host in its pool
        String answer = app.call("apache4", outOfScope.url("/customers"), "POST", false, MARKED);
        assertTrue(answer.startsWith("error=") && answer.contains("Richter isolation refused a marked write on an open connection to exit '127.0.0.1:"
                + outOfScope.port() + "'"), answer);
        assertEquals(3, outOfScope.count(), "the marked POST never reached the host");
        assertEquals("status=200 body=production-data", app.call("apache4", outOfScope.url("/customers"), "GET", false,
                null), "the pool still serves unmarked work");
        assertEquals(4, outOfScope.count());
    }

    @Test
    @Order(4)
    void refusalsAreStampedOnTheSpansOfTheMarkedRequests() throws Exception {
        List<Span> spans = app.stopAndReadSpans();
        List<Span> refused = spans.stream().filter(s -> s.attributes().getOrDefault("richter.refused", "")
                .contains("refused at the network")).toList();
        assertTrue(refused.size() >= 4, "spans with the network refusal: " + refused);
        for (Span s : refused) {
            assertEquals("true", s.attributes().get("richter.isolation.active"), s.toString());
            assertTrue(s.attributes().get("richter.isolation.modules").contains("richter-network"), s.toString());
        }
    }
}
