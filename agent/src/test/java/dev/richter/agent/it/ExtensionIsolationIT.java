package dev.richter.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The extension in a real child JVM: {@code java -javaagent:opentelemetry-javaagent.jar
 * -Dotel.javaagent.extensions=richter-otel-extension.jar} running {@link IsolationTestApp} (no Richter code), spans
 * exported with {@code logging-otlp} into the child's output. The test serves the isolation document itself (first
 * 503, so the child starts without a configuration; then enforce; then report) and runs three loopback servers: the
 * mocked exit, an out-of-scope host, and an in-scope service; each counts the requests that reach it. One child JVM
 * serves every case, so the tests run in order; the last one stops it and reads its spans. Needs {@code mvn package}
 * first (failsafe, {@code mvn verify -pl agent}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ExtensionIsolationIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MARKED = "richter-loadtest=1";
    private static final String TOKEN = "it-token";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final AtomicReference<String> document = new AtomicReference<>();
    private final AtomicReference<String> authorization = new AtomicReference<>("");
    private CountingServer config;
    private CountingServer mockedExit;
    private CountingServer outOfScope;
    private CountingServer inScope;
    private Process child;
    private Path output;
    private int app;
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
        output = Files.createTempFile("richter-extension-it", ".log");
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-javaagent:" + property("richter.agent.jar"),
                "-Dotel.javaagent.extensions=" + property("richter.extension.jar"),
                "-Dotel.traces.exporter=logging-otlp", "-Dotel.metrics.exporter=none", "-Dotel.logs.exporter=none",
                "-Dotel.bsp.schedule.delay=200", "-Dotel.service.name=isolation-test-app",
                "-Drichter.isolation.url=http://127.0.0.1:" + config.port() + "/isolation",
                "-Drichter.isolation.token=" + TOKEN, "-Drichter.isolation.refresh-s=1",
                "-Xmx256m", "-cp", Path.of(IsolationTestApp.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                        .toString(), IsolationTestApp.class.getName());
        child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (app == 0) {
            Optional<String> ready = Files.readAllLines(output).stream().filter(l -> l.startsWith("READY ")).findFirst();
            if (ready.isPresent()) {
                app = Integer.parseInt(ready.get().substring(6).trim());
            } else if (!child.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("test app did not start:\n" + Files.readString(output));
            } else {
                Thread.sleep(100);
            }
        }
    }

    @AfterAll
    void stopAll() {
        if (child != null) {
            child.destroyForcibly();
        }
        for (CountingServer s : new CountingServer[] {config, mockedExit, outOfScope, inScope}) {
            if (s != null) {
                s.server.stop(0);
            }
        }
    }

    @Test
    @Order(1)
    void markedInboundRequestIsAnswered503AndNeverReachesTheHandlerBeforeTheConfigurationLoads() throws Exception {
        HttpResponse<String> refused = get("/call?target=" + enc(inScope.url("/x")), MARKED);

        assertEquals(503, refused.statusCode());
        assertTrue(refused.body().contains("isolation configuration not loaded"), refused.body());
        assertTrue(refused.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
        assertEquals("0", get("/calls", null).body(), "the service's handler ran for a refused request");
        assertEquals(0, inScope.count());
    }

    @Test
    @Order(2)
    void unmarkedRequestsReachTheHandlerAndTheExitBeforeTheConfigurationLoads() throws Exception {
        HttpResponse<String> passed = get(callTo(mockedExit.url("/charge"), "POST", false), null);

        assertEquals("status=200 body=real-charge", passed.body());
        assertEquals("1", get("/calls", null).body());
        assertEquals(1, mockedExit.count());
    }

    @Test
    @Order(3)
    void markedCallsToTheMockedExitAreAnsweredByTheMockAndNeverReachIt() throws Exception {
        loadConfiguration("enforce");
        int before = mockedExit.count();

        for (int i = 0; i < 3; i++) {
            assertEquals("status=201 body={\"id\":\"ch_mock\"}",
                    get(callTo(mockedExit.url("/charge"), "POST", false), MARKED).body());
        }
        for (int i = 0; i < 2; i++) {
            assertEquals("status=201 body={\"id\":\"ch_mock\"}",
                    get(callTo(mockedExit.url("/charge"), "POST", true), MARKED).body());
        }

        assertEquals(before, mockedExit.count(), "a marked call reached the mocked exit");
        assertEquals("Bearer " + TOKEN, authorization.get());
    }

    @Test
    @Order(4)
    void unmarkedCallsToTheMockedExitAllReachIt() throws Exception {
        int before = mockedExit.count();

        for (int i = 0; i < 3; i++) {
            assertEquals("status=200 body=real-charge", get(callTo(mockedExit.url("/charge"), "POST", i == 2), null).body());
        }

        assertEquals(before + 3, mockedExit.count());
    }

    @Test
    @Order(5)
    void markedCallOutsideTheScopeIsRefusedWithAnErrorNamingTheExitAndNeverReachesTheHostWhileUnmarkedOnesDo() throws Exception {
        String exit = "127.0.0.1:" + outOfScope.port() + " GET /customers";

        String sync = get(callTo(outOfScope.url("/customers"), "GET", false), MARKED).body();
        String async = get(callTo(outOfScope.url("/customers"), "GET", true), MARKED).body();

        for (String answer : List.of(sync, async)) {
            assertTrue(answer.startsWith("error=Richter isolation refused a marked call to exit '" + exit + "'"), answer);
            assertTrue(answer.contains("outside the test's scope"), answer);
        }
        assertEquals(0, outOfScope.count());
        assertEquals("status=200 body=production-data", get(callTo(outOfScope.url("/customers"), "GET", false), null).body());
        assertEquals(1, outOfScope.count(), "an unmarked call to the same host reaches it");
    }

    @Test
    @Order(6)
    void markedCallToTheMockedHostWithAnotherMethodIsNotMockedButRefused() throws Exception {
        int before = mockedExit.count();

        String answer = get(callTo(mockedExit.url("/charge"), "GET", false), MARKED).body();

        assertTrue(answer.contains("exit '127.0.0.1:" + mockedExit.port() + " GET /charge'"), answer);
        assertEquals(before, mockedExit.count());
    }

    @Test
    @Order(7)
    void markedCallInsideTheScopePasses() throws Exception {
        assertEquals("status=200 body=in-scope", get(callTo(inScope.url("/stock"), "GET", false), MARKED).body());
        assertEquals(1, inScope.count());
    }

    @Test
    @Order(8)
    void reportModeLetsTheOutOfScopeCallThroughAndRecordsIt() throws Exception {
        document.set(isolationDocument("report"));
        // the child reloads every second: the first call that passes is the one in report mode
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        String answer = get(callTo(outOfScope.url("/customers"), "GET", false), MARKED).body();
        while (answer.startsWith("error=") && System.nanoTime() < deadline) {
            refusedWhileReloading++;
            Thread.sleep(200);
            answer = get(callTo(outOfScope.url("/customers"), "GET", false), MARKED).body();
        }

        assertEquals("status=200 body=production-data", answer);
        assertEquals(2, outOfScope.count(), "the unmarked call of the enforce test, and this one");
        assertTrue(Files.readString(output).contains("Richter isolation would refuse a marked call to exit '127.0.0.1:"
                + outOfScope.port() + " GET /customers' (report mode)"));
    }

    @Test
    @Order(9)
    void everyDecisionIsStampedOnTheExportedSpans() throws Exception {
        child.destroy(); // SIGTERM: the agent's shutdown hook flushes the last spans
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        List<Span> spans = spans();
        String mockedExitId = "127.0.0.1:" + mockedExit.port() + " POST /charge";

        List<Span> mocked = spans.stream().filter(s -> "true".equals(s.attributes().get("richter.mock"))).toList();
        assertEquals(5, mocked.size(), "mocked spans: " + mocked);
        for (Span s : mocked) {
            assertEquals(mockedExitId, s.attributes().get("richter.mock.exit"));
            assertEquals(Span.CLIENT, s.kind(), s.toString());
            assertEquals("POST", s.attributes().get("http.request.method"), s.toString());
            assertEquals("201", s.attributes().get("http.response.status_code"), s.toString());
        }
        List<Span> refusedClients = spans.stream()
                .filter(s -> s.kind() == Span.CLIENT && s.attributes().containsKey("richter.refused")).toList();
        assertEquals(3 + refusedWhileReloading, refusedClients.size(), "refused client spans: " + refusedClients);
        assertTrue(refusedClients.stream().allMatch(s -> s.attributes().get("richter.refused")
                .startsWith("Richter isolation refused a marked call to exit '127.0.0.1:")));
        // the refused /call of the first test (the /calls polls while loading are refused too, and not counted here)
        List<Span> refusedServers = spans.stream().filter(s -> s.kind() == Span.SERVER
                && s.attributes().containsKey("richter.refused") && "/call".equals(s.attributes().get("url.path"))).toList();
        assertEquals(1, refusedServers.size(), "refused server spans: " + refusedServers);
        assertEquals("503", refusedServers.get(0).attributes().get("http.response.status_code"));
        List<Span> reported = spans.stream().filter(s -> s.attributes().containsKey("richter.would_refuse")).toList();
        assertEquals(1, reported.size(), "report-mode spans: " + reported);
        assertTrue(reported.get(0).attributes().get("richter.would_refuse").contains("exit '127.0.0.1:"
                + outOfScope.port() + " GET /customers' (report mode)"));
        assertEquals("200", reported.get(0).attributes().get("http.response.status_code"));
        assertEquals(0, spans.stream().filter(s -> s.attributes().getOrDefault("url.full", "").endsWith("/isolation"))
                .count(), "the configuration's fetches are not traced");
        assertTrue(spans.stream().filter(s -> s.kind() == Span.CLIENT && !s.attributes().containsKey("richter.mock")
                        && !s.attributes().containsKey("richter.refused") && !s.attributes().containsKey("richter.would_refuse"))
                .count() >= 5, "untouched client spans of the unmarked and in-scope calls");
    }

    private void loadConfiguration(String mode) throws Exception {
        document.set(isolationDocument(mode));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        // a marked request stops being refused once the child has loaded the document (it reloads every second)
        while (get("/calls", MARKED).statusCode() == 503) {
            assertTrue(System.nanoTime() < deadline, "configuration not loaded:\n" + Files.readString(output));
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
                """.formatted(mode, app, inScope.port(), mockedExit.port());
    }

    private String callTo(String target, String method, boolean async) {
        return "/call?target=" + enc(target) + "&method=" + method + "&async=" + async;
    }

    private HttpResponse<String> get(String pathAndQuery, String baggage) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app + pathAndQuery))
                .timeout(Duration.ofSeconds(15));
        if (baggage != null) {
            request.header("baggage", baggage);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String property(String name) {
        String v = System.getProperty(name);
        if (v == null || !Files.isRegularFile(Path.of(v))) {
            throw new IllegalStateException(name + " must name a built jar (run through mvn verify), got " + v);
        }
        return v;
    }

    /** One exported span: its kind (OTLP: 2 server, 3 client) and its attributes, every value as text. */
    record Span(int kind, String name, Map<String, String> attributes) {
        static final int SERVER = 2;
        static final int CLIENT = 3;
    }

    /** The spans of every {@code logging-otlp} line (one OTLP {@code ResourceSpans} JSON each) in the output. */
    private List<Span> spans() throws IOException {
        List<Span> out = new ArrayList<>();
        for (String line : Files.readAllLines(output)) {
            int json = line.indexOf("{\"resource\"");
            if (json < 0) {
                continue;
            }
            for (JsonNode scope : JSON.readTree(line.substring(json)).path("scopeSpans")) {
                for (JsonNode span : scope.path("spans")) {
                    Map<String, String> attributes = new HashMap<>();
                    for (JsonNode a : span.path("attributes")) {
                        attributes.put(a.path("key").asText(), a.path("value").elements().next().asText());
                    }
                    out.add(new Span(span.path("kind").asInt(), span.path("name").asText(), attributes));
                }
            }
        }
        return out;
    }

    /** A loopback HTTP server on an ephemeral port answering every request the same, counting them. */
    private static final class CountingServer {
        final HttpServer server;
        final AtomicInteger requests = new AtomicInteger();

        CountingServer(int status, String body) throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/", exchange -> {
                requests.incrementAndGet();
                answer(exchange, status, body);
            });
            server.start();
        }

        int port() {
            return server.getAddress().getPort();
        }

        int count() {
            return requests.get();
        }

        String url(String path) {
            return "http://127.0.0.1:" + port() + path;
        }

        static void answer(HttpExchange exchange, int status, String body) throws IOException {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }
}
