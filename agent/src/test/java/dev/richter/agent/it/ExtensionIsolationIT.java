package dev.richter.agent.it;

import static dev.richter.agent.it.ChildJvm.MARKED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.it.ChildJvm.Span;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The extension in a real child JVM ({@link ChildJvm}) running {@link IsolationTestApp}, which has no Richter code.
 * The test serves the isolation document itself (first 503, so the child starts without a configuration; then
 * enforce; then report) and runs three loopback servers: the mocked exit, an out-of-scope host, and an in-scope
 * service; each counts the requests that reach it. One child JVM serves every case, so the tests run in order; the
 * last one stops it and reads its spans. The child runs on the services' Java ({@link ChildJvm#serviceJava()}, Java
 * 17); {@link ExtensionIsolationOnLatestJavaIT} runs every case again on the newest ({@link ChildJvm#latestJava()}).
 * Needs {@code mvn package} first (failsafe: {@code mvn verify -pl agent}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ExtensionIsolationIT {
    private static final String TOKEN = "it-token";
    private static final String MOCKED = "status=201 body={\"id\":\"ch_mock\"}";

    private final AtomicReference<String> document = new AtomicReference<>();
    private final AtomicReference<String> authorization = new AtomicReference<>("");
    private CountingServer config;
    private CountingServer mockedExit;
    private CountingServer outOfScope;
    private CountingServer inScope;
    private ChildJvm app;
    /** Marked calls refused while the child had not yet reloaded the report-mode document. */
    private int refusedWhileReloading;

    @BeforeAll
    void startChild() throws Exception {
        config = new CountingServer(200, "");
        config.server.removeContext("/");
        config.server.createContext("/isolation", exchange -> {
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            authorization.set(auth == null ? "" : auth);
            String doc = document.get();
            CountingServer.answer(exchange, doc == null ? 503 : 200, doc == null ? "not yet" : doc);
        });
        mockedExit = new CountingServer(200, "real-charge");
        outOfScope = new CountingServer(200, "production-data");
        inScope = new CountingServer(200, "in-scope");
        // -XshowSettings:properties: the child prints its system properties (java.home) and runs on
        app = new ChildJvm(java(), List.of("-XshowSettings:properties",
                "-Drichter.isolation.url=" + config.url("/isolation"), "-Drichter.isolation.token=" + TOKEN,
                "-Drichter.isolation.refresh-s=1"), IsolationTestApp.class, List.of());
    }

    /** The {@code java} the child runs on. */
    String java() {
        return ChildJvm.serviceJava();
    }

    @AfterAll
    void stopAll() {
        ChildJvm.closeAll(app, config, mockedExit, outOfScope, inScope);
    }

    @Test
    @Order(0)
    void theServiceRunsOnTheJavaConfigured() throws Exception {
        String home = Path.of(java()).toRealPath().getParent().getParent().toString();

        assertTrue(app.output().contains("java.home = " + home + "\n"), "expected java.home = " + home + " in\n"
                + app.output());
    }

    @Test
    @Order(1)
    void markedInboundRequestIsAnswered503AndNeverReachesTheHandlerBeforeTheConfigurationLoads() throws Exception {
        HttpResponse<String> refused = app.get("/call?target=" + inScope.url("/x"), MARKED);

        assertEquals(503, refused.statusCode());
        assertTrue(refused.body().contains("isolation configuration not loaded"), refused.body());
        assertTrue(refused.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
        assertEquals("0", app.get("/calls", null).body(), "the service's handler ran for a refused request");
        assertEquals(0, inScope.count());
    }

    @Test
    @Order(2)
    void unmarkedRequestsReachTheHandlerAndTheExitBeforeTheConfigurationLoads() throws Exception {
        assertEquals("status=200 body=real-charge", app.call(mockedExit.url("/charge"), "POST", false, null));
        assertEquals("1", app.get("/calls", null).body());
        assertEquals(1, mockedExit.count());
    }

    @Test
    @Order(3)
    void markedCallsToTheMockedExitAreAnsweredByTheMockAndNeverReachIt() throws Exception {
        loadConfiguration();
        int before = mockedExit.count();

        for (int i = 0; i < 3; i++) {
            assertEquals(MOCKED, app.call(mockedExit.url("/charge"), "POST", false, MARKED));
        }
        for (int i = 0; i < 2; i++) {
            assertEquals(MOCKED, app.call(mockedExit.url("/charge"), "POST", true, MARKED));
        }

        assertEquals(before, mockedExit.count(), "a marked call reached the mocked exit");
        assertEquals("Bearer " + TOKEN, authorization.get());
    }

    @Test
    @Order(4)
    void unmarkedCallsToTheMockedExitAllReachIt() throws Exception {
        int before = mockedExit.count();

        for (int i = 0; i < 3; i++) {
            assertEquals("status=200 body=real-charge", app.call(mockedExit.url("/charge"), "POST", i == 2, null));
        }

        assertEquals(before + 3, mockedExit.count());
    }

    @Test
    @Order(5)
    void markedCallOutsideTheScopeIsRefusedWithAnErrorNamingTheExitAndNeverReachesTheHostWhileUnmarkedOnesDo()
            throws Exception {
        String exit = "127.0.0.1:" + outOfScope.port() + " GET /customers";

        String sync = app.call(outOfScope.url("/customers"), "GET", false, MARKED);
        String async = app.call(outOfScope.url("/customers"), "GET", true, MARKED);

        for (String answer : List.of(sync, async)) {
            assertTrue(answer.startsWith("error=Richter isolation refused a marked call to exit '" + exit + "'"), answer);
            assertTrue(answer.contains("outside the test's scope"), answer);
        }
        assertEquals(0, outOfScope.count());
        assertEquals("status=200 body=production-data", app.call(outOfScope.url("/customers"), "GET", false, null));
        assertEquals(1, outOfScope.count(), "an unmarked call to the same host reaches it");
    }

    @Test
    @Order(6)
    void markedCallToTheMockedHostWithAnotherMethodIsNotMockedButRefused() throws Exception {
        int before = mockedExit.count();

        String answer = app.call(mockedExit.url("/charge"), "GET", false, MARKED);

        assertTrue(answer.contains("exit '127.0.0.1:" + mockedExit.port() + " GET /charge'"), answer);
        assertEquals(before, mockedExit.count());
    }

    @Test
    @Order(7)
    void markedCallInsideTheScopePasses() throws Exception {
        assertEquals("status=200 body=in-scope", app.call(inScope.url("/stock"), "GET", false, MARKED));
        assertEquals(1, inScope.count());
    }

    @Test
    @Order(8)
    void reportModeLetsTheOutOfScopeCallThroughAndRecordsIt() throws Exception {
        document.set(isolationDocument("report"));
        // the child reloads every second: the first call that passes is the one in report mode
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        String answer = app.call(outOfScope.url("/customers"), "GET", false, MARKED);
        while (answer.startsWith("error=") && System.nanoTime() < deadline) {
            refusedWhileReloading++;
            Thread.sleep(200);
            answer = app.call(outOfScope.url("/customers"), "GET", false, MARKED);
        }

        assertEquals("status=200 body=production-data", answer);
        assertEquals(2, outOfScope.count(), "the unmarked call of the enforce test, and this one");
        assertTrue(app.output().contains("Richter isolation would refuse a marked call to exit '127.0.0.1:"
                + outOfScope.port() + " GET /customers' (report mode)"));
    }

    @Test
    @Order(9)
    void everyDecisionIsStampedOnTheExportedSpans() throws Exception {
        List<Span> spans = app.stopAndReadSpans();

        List<Span> mocked = spans.stream().filter(s -> "true".equals(s.attributes().get("richter.mock"))).toList();
        assertEquals(5, mocked.size(), "mocked spans: " + mocked);
        for (Span s : mocked) {
            assertEquals("127.0.0.1:" + mockedExit.port() + " POST /charge", s.attributes().get("richter.mock.exit"));
            assertEquals(Span.CLIENT, s.kind(), s.toString());
            assertEquals("POST", s.attributes().get("http.request.method"), s.toString());
            assertEquals("201", s.attributes().get("http.response.status_code"), s.toString());
        }
        List<Span> refusedClients = spans.stream()
                .filter(s -> s.kind() == Span.CLIENT && s.attributes().containsKey("richter.refused")).toList();
        assertEquals(3 + refusedWhileReloading, refusedClients.size(), "refused client spans: " + refusedClients);
        assertTrue(refusedClients.stream().allMatch(s -> s.attributes().get("richter.refused")
                .startsWith("Richter isolation refused a marked call to exit '127.0.0.1:")));
        assertTrue(refusedClients.stream().allMatch(s -> "java.io.IOException".equals(s.attributes().get("error.type"))));
        // the refused /call of the first test (the /calls polls while loading are refused too, and not counted here)
        List<Span> refusedServers = spans.stream().filter(s -> s.kind() == Span.SERVER
                && s.attributes().containsKey("richter.refused") && "/call".equals(s.attributes().get("url.path"))).toList();
        assertEquals(1, refusedServers.size(), "refused server spans: " + refusedServers);
        assertEquals("503", refusedServers.get(0).attributes().get("http.response.status_code"));
        List<Span> reported = spans.stream().filter(s -> s.attributes().containsKey("richter.would_refuse")).toList();
        assertEquals(1, reported.size(), "report-mode spans: " + reported);
        assertEquals("200", reported.get(0).attributes().get("http.response.status_code"));
        assertTrue(reported.get(0).attributes().get("richter.would_refuse").contains("exit '127.0.0.1:"
                + outOfScope.port() + " GET /customers' (report mode)"), reported.get(0).toString());
        assertEquals("report", reported.get(0).attributes().get("richter.isolation.mode"),
                "a decision taken in report mode says so on its span");
        // the proof that isolation is on, on every marked span: the mocked and refused ones of enforce mode, the 503
        // before any document loaded, the one report mode let through; never on an unmarked span
        List<Span> markedSpans = new java.util.ArrayList<>(mocked);
        markedSpans.addAll(refusedClients);
        markedSpans.addAll(refusedServers);
        markedSpans.addAll(reported);
        for (Span s : markedSpans) {
            assertEquals("true", s.attributes().get("richter.isolation.active"), s.toString());
            assertTrue(s.attributes().getOrDefault("richter.isolation.modules", "").contains("richter-java-http-client"),
                    s.toString());
        }
        assertEquals("none", refusedServers.get(0).attributes().get("richter.isolation.document"),
                "no document had loaded");
        assertTrue(mocked.get(0).attributes().get("richter.isolation.document").matches("sha256:[0-9a-f]{16}"),
                mocked.get(0).toString());
        assertEquals("enforce", mocked.get(0).attributes().get("richter.isolation.mode"));
        assertEquals(0, spans.stream().filter(s -> s.attributes().containsKey("richter.isolation.active")
                && s.kind() == Span.CLIENT && !s.attributes().containsKey("richter.mock")
                && !s.attributes().containsKey("richter.refused") && !s.attributes().containsKey("richter.would_refuse")
                && !s.attributes().getOrDefault("url.full", "").contains("/stock")).count(),
                "an unmarked call's span carries no proof: " + spans);
        assertEquals(0, spans.stream().filter(s -> s.attributes().getOrDefault("url.full", "").endsWith("/isolation"))
                .count(), "the configuration's fetches are not traced");
        assertTrue(spans.stream().filter(s -> s.kind() == Span.CLIENT && !s.attributes().containsKey("richter.mock")
                        && !s.attributes().containsKey("richter.refused") && !s.attributes().containsKey("richter.would_refuse"))
                .count() >= 5, "untouched client spans of the unmarked and in-scope calls");
    }

    private void loadConfiguration() throws Exception {
        document.set(isolationDocument("enforce"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        // a marked request stops being refused once the child has loaded the document (it reloads every second)
        while (app.get("/calls", MARKED).statusCode() == 503) {
            assertTrue(System.nanoTime() < deadline, "configuration not loaded:\n" + app.output());
            Thread.sleep(200);
        }
    }

    private String isolationDocument(String mode) {
        return """
                {"mode": "%s",
                 "scope": ["127.0.0.1:%d", "127.0.0.1:%d"],
                 "mocks": [{"exit": "127.0.0.1:%d POST /charge", "status": 201, "body": "{\\"id\\":\\"ch_mock\\"}",
                            "headers": {"Content-Type": "application/json"}, "latencyMs": 20},
                           {"exit": "payment POST /charge", "status": 200}]}
                """.formatted(mode, app.port(), inScope.port(), mockedExit.port());
    }
}
