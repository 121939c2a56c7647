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
 * The isolation at Apache HttpClient 4.5 (4.5.14, pooled, through {@code CloseableHttpClient.execute}), issue 40
 * item 1: a marked call to a mocked exit is answered by its mock, one in scope passes, any other is refused by the
 * client's own module (not only by the network catch-all), each counted at the receiving server. One child JVM ({@link
 * ChildJvm}, the services' Java 17) runs {@link IsolationTestApp}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ApacheHttpClient4IsolationIT {
    private static final String SCOPE = "io.opentelemetry.apache-httpclient-4.0";

    private CountingServer mockedExit;
    private CountingServer inScope;
    private CountingServer outOfScope;
    private ChildJvm app;

    @BeforeAll
    void startChild() throws Exception {
        mockedExit = new CountingServer(200, "real-charge");
        inScope = new CountingServer(200, "in-scope");
        outOfScope = new CountingServer(200, "production-data");
        Path document = Files.writeString(Files.createTempFile(Files.createDirectories(Path.of("target", "it-logs")),
                "isolation", ".json"), """
                {"mode": "enforce", "scope": ["127.0.0.1:%d"],
                 "mocks": [{"exit": "127.0.0.1:%d POST /charge", "status": 201, "body": "{\\"id\\":\\"ch_mock\\"}",
                            "headers": {"Content-Type": "application/json"}, "latencyMs": 20}]}
                """.formatted(inScope.port(), mockedExit.port()));
        app = new ChildJvm(List.of("-Drichter.isolation.file=" + document));
    }

    @AfterAll
    void stopAll() {
        ChildJvm.closeAll(app, mockedExit, inScope, outOfScope);
    }

    @Test
    @Order(1)
    void aMarkedCallToTheMockedExitIsAnsweredByTheMockAndNeverReachesIt() throws Exception {
        assertEquals("status=201 body={\"id\":\"ch_mock\"}",
                app.call("apache4", mockedExit.url("/charge"), "POST", false, MARKED));
        assertEquals("status=200 body=real-charge", app.call("apache4", mockedExit.url("/charge"), "POST", false, null));
        assertEquals(1, mockedExit.count(), "the unmarked call only");
    }

    @Test
    @Order(2)
    void aMarkedCallOutOfScopeIsRefusedByTheModuleNamingTheExitAndOneInScopePasses() throws Exception {
        String answer = app.call("apache4", outOfScope.url("/customers"), "GET", false, MARKED);
        assertTrue(answer.startsWith("error=") && answer.contains("Richter isolation refused a marked call to exit"
                + " '127.0.0.1:" + outOfScope.port() + " GET /customers': 127.0.0.1:" + outOfScope.port()
                + " is outside the test's scope"), answer);
        assertEquals(0, outOfScope.count(), "a refused call reached the host");
        assertEquals("status=200 body=in-scope", app.call("apache4", inScope.url("/stock"), "GET", false, MARKED));
        assertEquals(1, inScope.count());
        assertEquals("status=200 body=production-data",
                app.call("apache4", outOfScope.url("/customers"), "GET", false, null));
        assertEquals(1, outOfScope.count(), "the unmarked call only");
    }

    @Test
    @Order(3)
    void theDecisionsAreStampedOnTheAgentsApacheHttpClient4Spans() throws Exception {
        List<Span> clients = app.stopAndReadSpans().stream()
                .filter(s -> s.scope().equals(SCOPE) && s.kind() == Span.CLIENT).toList();
        List<Span> mocked = clients.stream().filter(s -> "true".equals(s.attributes().get("richter.mock"))).toList();
        assertEquals(1, mocked.size(), "mocked spans: " + clients);
        assertEquals("127.0.0.1:" + mockedExit.port() + " POST /charge", mocked.get(0).attributes().get("richter.mock.exit"));
        assertEquals("201", mocked.get(0).attributes().get("http.response.status_code"), mocked.toString());
        List<Span> refused = clients.stream().filter(s -> s.attributes().containsKey("richter.refused")).toList();
        assertEquals(1, refused.size(), "refused spans: " + clients);
        assertEquals(outOfScope.url("/customers"), refused.get(0).attributes().get("url.full"), refused.toString());
        assertEquals(5, clients.size(), "client spans: " + clients);
    }
}
