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
 * The isolation at OkHttp 5, Apache HttpClient 5 (classic) and Spring's {@code RestClient} over Apache HttpClient 5,
 * in one child JVM ({@link ChildJvm}) running {@link IsolationTestApp} (no Richter code), its document read from a
 * file (enforce mode): a mocked exit and an out-of-scope host on loopback, each counting the requests that reach it.
 * Each client makes its calls both ways ({@link OtherClients}: OkHttp {@code execute} and {@code enqueue}; Apache
 * {@code execute(request, handler)} and {@code executeOpen}; Spring twice). The tests run in order; the last one stops
 * the child and reads its spans.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HttpClientsIsolationIT {
    private static final String MOCKED = "status=201 body={\"id\":\"ch_mock\"}";
    private static final List<String> CLIENTS = List.of("okhttp", "apache", "spring");
    /** The agent's instrumentation scopes: Spring's calls are Apache HttpClient's. */
    private static final String OKHTTP_SCOPE = "io.opentelemetry.okhttp-3.0";
    private static final String APACHE_SCOPE = "io.opentelemetry.apache-httpclient-5.0";

    private CountingServer mockedExit;
    private CountingServer outOfScope;
    private ChildJvm app;

    @BeforeAll
    void startChild() throws Exception {
        mockedExit = new CountingServer(200, "real-charge");
        outOfScope = new CountingServer(200, "production-data");
        Path document = Files.writeString(Files.createTempFile(Files.createDirectories(Path.of("target", "it-logs")),
                "isolation", ".json"), """
                {"mode": "enforce",
                 "mocks": [{"exit": "127.0.0.1:%d POST /charge", "status": 201, "body": "{\\"id\\":\\"ch_mock\\"}",
                            "headers": {"Content-Type": "application/json"}, "latencyMs": 20}]}
                """.formatted(mockedExit.port()));
        app = new ChildJvm(List.of("-Drichter.isolation.file=" + document));
    }

    @AfterAll
    void stopAll() {
        ChildJvm.closeAll(app, mockedExit, outOfScope);
    }

    @Test
    @Order(1)
    void markedCallsToTheMockedExitAreAnsweredByTheMockAndNeverReachIt() throws Exception {
        for (String client : CLIENTS) {
            for (boolean async : new boolean[] {false, true}) {
                assertEquals(MOCKED, app.call(client, mockedExit.url("/charge"), "POST", async, MARKED),
                        client + " async=" + async);
            }
        }

        assertEquals(0, mockedExit.count(), "a marked call reached the mocked exit");
    }

    @Test
    @Order(2)
    void unmarkedCallsToTheMockedExitAllReachIt() throws Exception {
        for (String client : CLIENTS) {
            for (boolean async : new boolean[] {false, true}) {
                assertEquals("status=200 body=real-charge",
                        app.call(client, mockedExit.url("/charge"), "POST", async, null), client + " async=" + async);
            }
        }

        assertEquals(2 * CLIENTS.size(), mockedExit.count());
    }

    @Test
    @Order(3)
    void markedCallOutsideTheScopeIsRefusedWithTheClientsOwnErrorNamingTheExitAndNeverReachesTheHost()
            throws Exception {
        String refusal = "Richter isolation refused a marked call to exit '127.0.0.1:" + outOfScope.port()
                + " GET /customers': 127.0.0.1:" + outOfScope.port() + " is outside the test's scope";
        for (String client : CLIENTS) {
            for (boolean async : new boolean[] {false, true}) {
                String answer = app.call(client, outOfScope.url("/customers"), "GET", async, MARKED);
                assertTrue(answer.startsWith("error=") && answer.contains(refusal), client + " async=" + async + ": "
                        + answer);
            }
        }
        assertEquals(0, outOfScope.count(), "a refused call reached the host");

        for (String client : CLIENTS) {
            assertEquals("status=200 body=production-data",
                    app.call(client, outOfScope.url("/customers"), "GET", false, null), client);
        }
        assertEquals(CLIENTS.size(), outOfScope.count(), "the unmarked calls to the same host reach it");
    }

    @Test
    @Order(4)
    void everyDecisionIsStampedOnTheAgentsOwnClientSpan() throws Exception {
        List<Span> spans = app.stopAndReadSpans();
        String mockedUrl = mockedExit.url("/charge");
        String refusedUrl = outOfScope.url("/customers");

        for (String scope : List.of(OKHTTP_SCOPE, APACHE_SCOPE)) {
            // Spring's RestClient runs on Apache HttpClient: its calls are that scope's too
            int calls = scope.equals(OKHTTP_SCOPE) ? 2 : 4;
            List<Span> clients = spans.stream().filter(s -> s.scope().equals(scope) && s.kind() == Span.CLIENT).toList();
            List<Span> mocked = clients.stream().filter(s -> "true".equals(s.attributes().get("richter.mock"))).toList();
            assertEquals(calls, mocked.size(), scope + " mocked spans: " + mocked);
            for (Span s : mocked) {
                assertEquals("127.0.0.1:" + mockedExit.port() + " POST /charge", s.attributes().get("richter.mock.exit"));
                assertEquals(mockedUrl, s.attributes().get("url.full"), s.toString());
                assertEquals("POST", s.attributes().get("http.request.method"), s.toString());
                assertEquals("201", s.attributes().get("http.response.status_code"), s.toString());
            }
            List<Span> refused = clients.stream().filter(s -> s.attributes().containsKey("richter.refused")).toList();
            assertEquals(calls, refused.size(), scope + " refused spans: " + refused);
            for (Span s : refused) {
                assertTrue(s.attributes().get("richter.refused").startsWith("Richter isolation refused a marked call"
                        + " to exit '127.0.0.1:" + outOfScope.port() + " GET /customers'"), s.toString());
                assertEquals(refusedUrl, s.attributes().get("url.full"), s.toString());
                assertEquals("java.io.IOException", s.attributes().get("error.type"), s.toString());
            }
            List<Span> untouched = clients.stream().filter(s -> s.attributes().keySet().stream()
                    .noneMatch(k -> k.startsWith("richter."))).toList();
            assertEquals(calls + calls / 2, untouched.size(), scope + " untouched spans: " + untouched);
            assertTrue(untouched.stream().allMatch(s -> "200".equals(s.attributes().get("http.response.status_code"))),
                    untouched.toString());
            assertEquals(3 * calls + calls / 2, clients.size(), scope + " client spans: " + clients);
        }
    }
}
