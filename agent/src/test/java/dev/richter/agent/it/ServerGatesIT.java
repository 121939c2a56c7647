package dev.richter.agent.it;

import static dev.richter.agent.it.ChildJvm.MARKED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.it.ChildJvm.Span;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import reactor.netty.http.server.HttpServer;

/**
 * The inbound gate of the servers the demo shop runs on, each in a real child JVM with the agent and the built
 * extension: embedded Tomcat 10.1.48 ({@link TomcatTestApp}: an application filter and a servlet), embedded Tomcat
 * 9.0.83 ({@code javax.servlet}, {@link Tomcat9TestApp}: the same, in a child JVM with a class path of its own) and
 * reactor-netty 1.2.11 ({@link ReactorNettyTestApp}: one handler), all with no Richter code. The test serves the isolation document
 * itself, answering 503 until a test sets it, and runs the exit the handlers call (counting the calls that reach it).
 * Marked requests are answered 503 until the document loads and reach neither filter nor handler; unmarked ones
 * always pass; once loaded, the handlers see marked requests marked (their exit call is mocked). Tests run in order;
 * the last one stops both children and reads their spans.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ServerGatesIT {
    private static final String NOT_LOADED = "Richter isolation: isolation configuration not loaded";

    private final AtomicReference<String> document = new AtomicReference<>();
    private CountingServer config;
    private CountingServer exit;
    private ChildJvm tomcat;
    private ChildJvm netty;
    private ChildJvm tomcat9;
    /** The marked requests each child refused while the test waited for it to load the document. */
    private int tomcatRefusedWhileLoading;
    private int nettyRefusedWhileLoading;
    private int tomcat9RefusedWhileLoading;

    @BeforeAll
    void startChildren() throws Exception {
        config = new CountingServer(200, "");
        config.server.removeContext("/");
        config.server.createContext("/isolation", exchange -> {
            String doc = document.get();
            CountingServer.answer(exchange, doc == null ? 503 : 200, doc == null ? "not yet" : doc);
        });
        exit = new CountingServer(200, "real-stock");
        List<String> flags = List.of("-Drichter.isolation.url=" + config.url("/isolation"),
                "-Drichter.isolation.refresh-s=1", "-Dapp.exit=" + exit.url("/stock"));
        tomcat = new ChildJvm(flags, TomcatTestApp.class, List.of(Tomcat.class));
        netty = new ChildJvm(flags, ReactorNettyTestApp.class, List.of(HttpServer.class));
        tomcat9 = ChildJvm.ownClassPath(flags, Tomcat9TestApp.class, tomcat9Jars());
    }

    @AfterAll
    void stopAll() {
        ChildJvm.closeAll(tomcat, netty, tomcat9, config, exit);
    }

    /** Tomcat 9's jars, which agent/pom.xml copies to {@code richter.tomcat9.dir}. */
    private static List<String> tomcat9Jars() throws Exception {
        Path dir = Path.of(System.getProperty("richter.tomcat9.dir", "target/otel/tomcat9"));
        try (Stream<Path> jars = Files.list(dir)) {
            List<String> found = jars.filter(j -> j.toString().endsWith(".jar")).map(Path::toString).sorted().toList();
            assertTrue(found.stream().anyMatch(j -> j.contains("tomcat-embed-core")), "no Tomcat 9 in " + dir);
            return found;
        }
    }

    @Test
    @Order(1)
    void markedRequestsAreAnswered503WithTheReasonAndReachNoFilterOrHandlerBeforeTheDocumentLoads() throws Exception {
        for (ChildJvm app : List.of(tomcat, tomcat9, netty)) {
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> refused = app.get("/work", MARKED);

                assertEquals(503, refused.statusCode());
                assertTrue(refused.body().startsWith(NOT_LOADED), refused.body());
                assertTrue(refused.body().endsWith("; marked requests are refused until it loads\n"), refused.body());
                // Tomcat writes it without the space
                assertEquals("text/plain;charset=utf-8",
                        refused.headers().firstValue("Content-Type").orElse("").replace(" ", ""));
            }
        }
        // with other baggage members around the marker, and a member property
        assertEquals(503, tomcat.get("/work", "tenant=a," + MARKED + ";p=1").statusCode());
        assertEquals(503, netty.get("/work", "tenant=a, " + MARKED).statusCode());
        assertEquals(503, tomcat9.get("/work", "tenant=a," + MARKED + ";p=1").statusCode());

        assertEquals("filter=0 servlet=0", tomcat.get("/counts", null).body());
        assertEquals("filter=0 servlet=0", tomcat9.get("/counts", null).body());
        assertEquals("handler=0", netty.get("/counts", null).body());
        assertEquals(0, exit.count());
    }

    @Test
    @Order(2)
    void unmarkedRequestsReachTheApplicationBeforeTheDocumentLoads() throws Exception {
        for (ChildJvm app : List.of(tomcat, tomcat9, netty)) {
            HttpResponse<String> passed = app.get("/work", "tenant=a");
            assertEquals(200, passed.statusCode());
            assertEquals("exit=real-stock", passed.body());
            assertEquals("exit=real-stock", app.get("/work", null).body());
        }

        assertEquals("filter=2 servlet=2", tomcat.get("/counts", null).body());
        assertEquals("filter=2 servlet=2", tomcat9.get("/counts", null).body());
        assertEquals("handler=2", netty.get("/counts", null).body());
        assertEquals(6, exit.count());
    }

    @Test
    @Order(3)
    void onceLoadedMarkedRequestsReachTheApplicationMarked() throws Exception {
        document.set("""
                {"mode": "enforce", "scope": [],
                 "mocks": [{"exit": "127.0.0.1:%d GET /stock", "status": 200, "body": "mocked-stock"}]}
                """.formatted(exit.port()));
        tomcatRefusedWhileLoading = awaitLoaded(tomcat);
        nettyRefusedWhileLoading = awaitLoaded(netty);
        tomcat9RefusedWhileLoading = awaitLoaded(tomcat9);

        for (ChildJvm app : List.of(tomcat, tomcat9, netty)) {
            for (int i = 0; i < 2; i++) {
                HttpResponse<String> passed = app.get("/work", MARKED);
                assertEquals(200, passed.statusCode());
                assertEquals("exit=mocked-stock", passed.body(), "the handler ran unmarked");
            }
            assertEquals("exit=real-stock", app.get("/work", null).body());
        }

        // /counts polls while loading: 2 unmarked before, the loading poll that passed, 2 marked, 1 unmarked
        assertEquals("filter=6 servlet=6", tomcat.get("/counts", null).body());
        assertEquals("filter=6 servlet=6", tomcat9.get("/counts", null).body());
        assertEquals("handler=6", netty.get("/counts", null).body());
        assertEquals(9, exit.count(), "the 6 unmarked calls before, the 3 unmarked ones now; no marked one");
    }

    @Test
    @Order(4)
    void theRefusalsAreOnTheAgentsServerSpans() throws Exception {
        assertRefusedServerSpans(tomcat.stopAndReadSpans(), 4 + tomcatRefusedWhileLoading);
        assertRefusedServerSpans(netty.stopAndReadSpans(), 4 + nettyRefusedWhileLoading);
        assertRefusedServerSpans(tomcat9.stopAndReadSpans(), 4 + tomcat9RefusedWhileLoading);
    }

    private static void assertRefusedServerSpans(List<Span> spans, int expected) {
        List<Span> refused = spans.stream()
                .filter(s -> s.kind() == Span.SERVER && s.attributes().containsKey("richter.refused")).toList();
        assertEquals(expected, refused.size(), "refused server spans: " + refused);
        for (Span s : refused) {
            assertTrue(s.attributes().get("richter.refused").startsWith(NOT_LOADED), s.toString());
            assertEquals("503", s.attributes().get("http.response.status_code"), s.toString());
            assertEquals("/work", s.attributes().get("url.path"), s.toString());
        }
        assertEquals(0, spans.stream().filter(s -> s.kind() == Span.SERVER && !s.attributes().containsKey("richter.refused")
                && "503".equals(s.attributes().get("http.response.status_code"))).count(), "a 503 without its reason");
    }

    /** Polls {@code /work} marked until it is no longer refused; answers how many times it was. */
    private int awaitLoaded(ChildJvm app) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int refused = 0;
        while (app.get("/work", MARKED).statusCode() == 503) {
            refused++;
            assertTrue(System.nanoTime() < deadline, "document not loaded:\n" + app.output());
            Thread.sleep(200);
        }
        return refused;
    }
}
