package dev.richter.agent.it;

import static dev.richter.agent.it.ChildJvm.MARKED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * The isolation at reactor-netty's {@code HttpClient} (1.2.11), Spring's {@code WebClient} over it (spring-webflux
 * 6.2.12) and Apache HttpClient 5's async client (5.5.1), in one child JVM ({@link ChildJvm}) running {@link
 * IsolationTestApp} (no Richter code; the calls are {@link ReactiveClients}'), its document read from a file (enforce
 * mode): a mocked exit ({@code POST /charge}, 20 ms), an in-scope host, an out-of-scope host and a closed port on
 * loopback, each server counting the requests that reach it. Each client makes its calls both ways: reactor-netty
 * subscribed on the request's thread and on a thread that never carries its context; WebClient's {@code toEntity} and
 * {@code bodyToMono}; the async client's {@code Future} and {@code FutureCallback}. A second child, {@link
 * WebFluxTestApp}, calls with {@code WebClient} from a WebFlux handler without blocking, on the server's event loop and
 * after a hop to another thread. Every marked call has its unmarked control, counted at the same server. The tests run
 * in order; the seventh stops the first child and reads its spans.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReactiveHttpClientsIsolationIT {
    private static final String MOCK_BODY = "{\"id\":\"ch_mock\"}";
    private static final List<String> CLIENTS = List.of("reactor-netty", "webclient", "apache-async");
    private static final String REACTOR_SCOPE = "io.opentelemetry.reactor-netty-1.0";
    private static final String WEBFLUX_SCOPE = "io.opentelemetry.spring-webflux-5.0";

    private CountingServer mockedExit;
    private CountingServer inScope;
    private CountingServer outOfScope;
    private int closedPort;
    private ChildJvm app;
    private ChildJvm webFlux;

    @BeforeAll
    void startChild() throws Exception {
        mockedExit = new CountingServer(200, "real-charge");
        inScope = new CountingServer(200, "in-scope");
        outOfScope = new CountingServer(200, "production-data");
        closedPort = StorageIsolationIT.freePort();
        Path document = Files.writeString(Files.createTempFile(Files.createDirectories(Path.of("target", "it-logs")),
                "isolation", ".json"), """
                {"mode": "enforce", "scope": ["127.0.0.1:%d"],
                 "mocks": [{"exit": "127.0.0.1:%d POST /charge", "status": 201, "body": "{\\"id\\":\\"ch_mock\\"}",
                            "headers": {"Content-Type": "application/json", "X-Mock": "yes"}, "latencyMs": 20}]}
                """.formatted(inScope.port(), mockedExit.port()));
        app = new ChildJvm(List.of("-Drichter.isolation.file=" + document));
        app.warmUp(CLIENTS.toArray(new String[0]));
        webFlux = new ChildJvm(List.of("-Drichter.isolation.file=" + document), WebFluxTestApp.class, List.of());
        webFlux.warmUp("webflux");
    }

    @AfterAll
    void stopAll() {
        ChildJvm.closeAll(app, webFlux, mockedExit, inScope, outOfScope);
    }

    /** What a call answers for a response: WebClient's {@code bodyToMono} (async) gives the body only. */
    private static String answer(String client, boolean async, int status, String body) {
        return (client.equals("webclient") && async ? "status=-" : "status=" + status) + " body=" + body;
    }

    private static String refusal(String exit, String reason) {
        return "Richter isolation refused a marked call to exit '" + exit + "': " + reason;
    }

    private void assertRefused(String target, String exit, String reason) throws Exception {
        for (String client : CLIENTS) {
            for (boolean async : new boolean[] {false, true}) {
                String answer = app.call(client, target, target.endsWith("/charge") ? "POST" : "GET", async, MARKED);
                assertTrue(answer.startsWith("error=") && answer.contains(refusal(exit, reason)),
                        client + " async=" + async + ": " + answer);
                if (client.equals("apache-async") && async) {
                    assertTrue(answer.endsWith("(FutureCallback.failed)"), answer);
                }
            }
        }
    }

    /** Each client's calls both ways to {@code target} are answered {@code status} and {@code body}. */
    private void assertEachAnswers(String target, String method, String baggage, int status, String body)
            throws Exception {
        for (String client : CLIENTS) {
            for (boolean async : new boolean[] {false, true}) {
                assertEquals(answer(client, async, status, body), app.call(client, target, method, async, baggage),
                        client + " async=" + async);
            }
        }
    }

    @Test
    @Order(1)
    void markedCallsToTheMockedExitAreAnsweredByTheMockThroughTheClientsOwnResponseAndNeverReachIt() throws Exception {
        assertEachAnswers(mockedExit.url("/charge"), "POST", MARKED, 201, MOCK_BODY);

        assertEquals(0, mockedExit.count(), "a marked call reached the mocked exit");
    }

    @Test
    @Order(2)
    void unmarkedCallsToTheMockedExitAllReachIt() throws Exception {
        assertEachAnswers(mockedExit.url("/charge"), "POST", null, 200, "real-charge");

        assertEquals(2 * CLIENTS.size(), mockedExit.count());
    }

    @Test
    @Order(3)
    void markedCallsToAnUnmappedPathOfTheExitsHostAreRefusedUnsentAndTheirControlsReachIt() throws Exception {
        int before = mockedExit.count();
        String exit = "127.0.0.1:" + mockedExit.port();

        assertRefused(mockedExit.url("/customers"), exit + " GET /customers", exit + " is outside the test's scope");
        assertEquals(before, mockedExit.count(), "a refused call reached the host");

        for (String client : CLIENTS) {
            assertEquals(answer(client, false, 200, "real-charge"),
                    app.call(client, mockedExit.url("/customers"), "GET", false, null), client);
        }
        assertEquals(before + CLIENTS.size(), mockedExit.count(), "the unmarked calls to the same path reach it");
    }

    @Test
    @Order(4)
    void markedCallsOutsideTheScopeAreRefusedUnsentAndTheirControlsReachTheHost() throws Exception {
        String exit = "127.0.0.1:" + outOfScope.port();

        assertRefused(outOfScope.url("/customers"), exit + " GET /customers", exit + " is outside the test's scope");
        assertEquals(0, outOfScope.count(), "a refused call reached the host");

        for (String client : CLIENTS) {
            assertEquals(answer(client, false, 200, "production-data"),
                    app.call(client, outOfScope.url("/customers"), "GET", false, null), client);
        }
        assertEquals(CLIENTS.size(), outOfScope.count(), "the unmarked calls to the same host reach it");
    }

    @Test
    @Order(5)
    void aMarkedCallToAClosedPortIsRefusedBeforeAnyConnectIsTried() throws Exception {
        String exit = "127.0.0.1:" + closedPort;

        assertRefused("http://" + exit + "/customers", exit + " GET /customers", exit + " is outside the test's scope");
    }

    @Test
    @Order(6)
    void markedCallsInScopePassAndReachTheHost() throws Exception {
        assertEachAnswers(inScope.url("/stock"), "GET", MARKED, 200, "in-scope");

        assertEquals(2 * CLIENTS.size(), inScope.count());
    }

    @Test
    @Order(7)
    void theDecisionsAreStampedOnTheSpanCurrentWhereTheCallIsMadeAndAMocksClientSpanEndsWithItsStatus()
            throws Exception {
        List<Span> spans = app.stopAndReadSpans();
        String mockExit = "127.0.0.1:" + mockedExit.port() + " POST /charge";

        // reactor-netty's client span starts when the request is sent: a marked one to the mocked exit (the agent
        // leaves some out under WebClient's) ends with the mock's status
        List<Span> reactor = spans.stream().filter(s -> s.scope().equals(REACTOR_SCOPE) && s.kind() == Span.CLIENT)
                .filter(s -> mockedExit.url("/charge").equals(s.attributes().get("url.full")))
                .filter(s -> s.attributes().containsKey("richter.isolation.active")).toList();
        assertFalse(reactor.isEmpty(), "no marked reactor-netty client span to the mocked exit");
        reactor.forEach(s -> assertEquals("201", s.attributes().get("http.response.status_code"), s.toString()));
        // WebClient's decisions: on the agent's WebClient span, current where reactor-netty's Mono is subscribed
        List<Span> webClient = spans.stream().filter(s -> s.scope().equals(WEBFLUX_SCOPE) && s.kind() == Span.CLIENT)
                .toList();
        assertEquals(2, stamped(webClient, "richter.mock").size(), webClient.toString());
        stamped(webClient, "richter.mock").forEach(s -> assertEquals(mockExit, s.attributes().get("richter.mock.exit")));
        assertEquals(6, stamped(webClient, "richter.refused").size(), webClient.toString());
        // the async client's and reactor-netty's subscribed on the request's thread: on the request's span; the ones
        // subscribed on a thread with no context have no span to be stamped on
        List<Span> servers = spans.stream().filter(s -> s.kind() == Span.SERVER).toList();
        assertEquals(2 + 1, stamped(servers, "richter.mock").size(), "apache-async twice, reactor-netty once");
        assertEquals(6 + 3, stamped(servers, "richter.refused").size(), "apache-async 6 times, reactor-netty 3 times");
    }

    @Test
    @Order(8)
    void aWebFluxHandlersWebClientCallsAreDecidedWhereWebFluxSubscribesThemAlsoAfterAHopToAnotherThread()
            throws Exception {
        int exitBefore = mockedExit.count();
        int outBefore = outOfScope.count();
        String exit = "127.0.0.1:" + outOfScope.port();
        for (boolean hop : new boolean[] {false, true}) {
            assertEquals("status=201 body=" + MOCK_BODY,
                    webFlux.call("webflux", mockedExit.url("/charge"), "POST", hop, MARKED), "hop=" + hop);
            String refused = webFlux.call("webflux", outOfScope.url("/customers"), "GET", hop, MARKED);
            assertTrue(refused.startsWith("error=") && refused.contains(refusal(exit + " GET /customers",
                    exit + " is outside the test's scope")), "hop=" + hop + ": " + refused);
        }
        assertEquals(exitBefore, mockedExit.count(), "a marked call reached the mocked exit");
        assertEquals(outBefore, outOfScope.count(), "a refused call reached the host");

        for (boolean hop : new boolean[] {false, true}) {
            assertEquals("status=200 body=real-charge",
                    webFlux.call("webflux", mockedExit.url("/charge"), "POST", hop, null), "hop=" + hop);
            assertEquals("status=200 body=production-data",
                    webFlux.call("webflux", outOfScope.url("/customers"), "GET", hop, null), "hop=" + hop);
        }
        assertEquals(exitBefore + 2, mockedExit.count(), "the unmarked calls reach the exit");
        assertEquals(outBefore + 2, outOfScope.count(), "the unmarked calls reach the host");
    }

    private static List<Span> stamped(List<Span> spans, String attribute) {
        return spans.stream().filter(s -> s.attributes().containsKey(attribute)).toList();
    }
}
