package dev.richter.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Against a real local JDK HttpServer serving the team's mock configuration. */
class ExitMocksTest {
    static final String MARKED = "tenant=a,richter-loadtest=1;ttl=5";
    static final String DOC = """
            {"mocks":[
              {"exit":"payment POST /charge","status":201,"body":"{\\"chargeId\\":\\"mock-1\\"}",
               "headers":{"content-type":"application/json"},"latencyMs":80},
              {"exit":"api.stripe.com/v1/charges","status":200,"body":"{}"},
              {"exit":"127.0.0.1:18083/charge","status":202}
            ]}""";

    HttpServer server;
    final AtomicReference<String> body = new AtomicReference<>(DOC);
    final AtomicInteger status = new AtomicInteger(200);
    final AtomicInteger fetches = new AtomicInteger();
    ExitMocks mocks;

    @BeforeEach
    void serve() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/teams/team-a/mocks", ex -> {
            fetches.incrementAndGet();
            byte[] b = body.get().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("content-type", "application/json");
            ex.sendResponseHeaders(status.get(), b.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(b);
            }
        });
        server.start();
    }

    @AfterEach
    void stop() {
        if (mocks != null) {
            mocks.close();
        }
        server.stop(0);
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/teams/team-a/mocks");
    }

    @Test
    void markedCallGetsTheConfiguredResponseAfterTheSimulatedLatency() {
        mocks = ExitMocks.start(ExitMocksConfig.of(url()));
        long t0 = System.nanoTime();
        Optional<MockResponse> m = mocks.forExit("payment POST /charge", MARKED);
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(m.isPresent());
        assertEquals(201, m.get().status());
        assertEquals("{\"chargeId\":\"mock-1\"}", m.get().body());
        assertEquals(Map.of("content-type", "application/json"), m.get().headers());
        assertTrue(tookMs >= 80, "waited " + tookMs + " ms");
        assertTrue(mocks.state().loaded());
        assertEquals(3, mocks.state().mocks());
    }

    @Test
    void unmarkedTrafficIsNeverMockedNorDelayed() {
        mocks = ExitMocks.start(ExitMocksConfig.of(url()));
        long t0 = System.nanoTime();
        assertEquals(Optional.empty(), mocks.forExit("payment POST /charge", (String) null));
        assertEquals(Optional.empty(), mocks.forExit("payment POST /charge", "tenant=a"));
        assertEquals(Optional.empty(), mocks.forExit("payment POST /charge", "richter-loadtest=0"));
        assertEquals(Optional.empty(), mocks.forExit("payment POST /charge", Marked.UNMARKED));
        assertEquals(Optional.empty(), mocks.forHttpCall(URI.create("https://api.stripe.com/v1/charges"), Marked.UNMARKED));
        assertTrue((System.nanoTime() - t0) / 1_000_000 < 80, "no latency for unmarked traffic");
        assertEquals(Optional.empty(), mocks.forExit("inventory POST /reserve", MARKED), "exit without a mock");
    }

    @Test
    void httpCallsMatchHostPortAndPath() {
        mocks = ExitMocks.start(ExitMocksConfig.of(url()));
        assertEquals(200, mocks.forHttpCall(URI.create("https://api.stripe.com/v1/charges"), Marked.MARKED)
                .orElseThrow().status());
        assertEquals(202, mocks.forHttpCall(URI.create("http://127.0.0.1:18083/charge"), Marked.MARKED)
                .orElseThrow().status());
        assertTrue(mocks.forHttpCall(URI.create("http://127.0.0.1:18084/charge"), Marked.MARKED).isEmpty());
    }

    @Test
    void refreshesPeriodicallyAndKeepsTheLastGoodConfigurationOnFailure() throws Exception {
        mocks = ExitMocks.start(ExitMocksConfig.of(url()).withRefreshInterval(Duration.ofMillis(50)));
        body.set("{\"mocks\":[{\"exit\":\"payment POST /charge\",\"status\":503}]}");
        waitFor(() -> mocks.forExit("payment POST /charge", Marked.MARKED).map(MockResponse::status).orElse(0) == 503);

        status.set(500); // server error: keep 503 mock
        int before = fetches.get();
        waitFor(() -> fetches.get() >= before + 2 && mocks.state().fetchesFailed() >= 1);
        assertEquals(503, mocks.forExit("payment POST /charge", Marked.MARKED).orElseThrow().status());
        assertTrue(mocks.state().lastError().startsWith("HTTP 500"), mocks.state().lastError());

        status.set(200);
        body.set("{\"mocks\":[{\"exit\":\"payment POST /charge\",\"status\":\"oops\"}]}"); // malformed: keep
        long failed = mocks.state().fetchesFailed();
        waitFor(() -> mocks.state().fetchesFailed() > failed
                && mocks.state().lastError().contains("mocks[0].status: must be 100-599"));
        assertEquals(503, mocks.forExit("payment POST /charge", Marked.MARKED).orElseThrow().status());

        server.stop(0); // unreachable: keep
        long failed2 = mocks.state().fetchesFailed();
        waitFor(() -> mocks.state().fetchesFailed() > failed2);
        assertEquals(503, mocks.forExit("payment POST /charge", Marked.MARKED).orElseThrow().status());
    }

    @Test
    void startWithUnreachableConfigHasNoMocksAndSaysSo() {
        server.stop(0);
        mocks = ExitMocks.start(ExitMocksConfig.of(url()).withFetchTimeout(Duration.ofMillis(500)));
        assertFalse(mocks.state().loaded());
        assertEquals(Optional.empty(), mocks.forExit("payment POST /charge", MARKED));
    }

    @Test
    void customMarkerAndPercentEncodedBaggage() {
        mocks = ExitMocks.start(ExitMocksConfig.of(url()).withMarker("lt.mark", "yes please"));
        assertTrue(mocks.forExit("api.stripe.com/v1/charges", "lt.mark=yes%20please").isPresent());
        assertTrue(mocks.forExit("api.stripe.com/v1/charges", "richter-loadtest=1").isEmpty());
        assertEquals(Marked.MARKED, Marked.fromBaggage("bad=%zz, richter-loadtest = 1", "richter-loadtest", "1"));
    }

    @Test
    void mockAttributeConstantsMatchWhatTheChecksLookFor() {
        // dev.richter.checks.safety.MockedExitsCheck recognizes mocked calls by these (no dependency either way)
        assertEquals("richter.mock", ExitMocks.MOCK_ATTRIBUTE);
        assertEquals("true", ExitMocks.MOCK_ATTRIBUTE_VALUE);
        assertEquals("richter.mock.exit", ExitMocks.MOCK_EXIT_ATTRIBUTE);
    }

    private static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 5 s");
            }
            Thread.sleep(10);
        }
    }
}
