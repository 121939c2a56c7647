package dev.richter.agent.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IsolationConfigSourceTest {
    private static final String ENFORCE = "{\"scope\":[\"a.internal\"],\"mocks\":[{\"exit\":\"x.example/p\",\"status\":200}]}";

    @Test
    void loadsAFileAndKeepsTheLastGoodConfigurationWhenTheFileTurnsBad(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("isolation.json");
        Files.writeString(file, ENFORCE);
        IsolationConfigSource source = new IsolationConfigSource(new IsolationSettings(Optional.empty(), "",
                Optional.of(file), 30));

        assertEquals(30, source.nextRefreshS(), "the settings' refresh until a document names one");
        assertTrue(source.refresh());
        assertEquals(30, source.nextRefreshS());
        long firstGood = source.state().lastGoodEpochMs();
        Files.writeString(file, "{\"mode\":\"strict\",\"mocks\":[]}");
        assertFalse(source.refresh());

        assertEquals(IsolationMode.ENFORCE, source.current().orElseThrow().mode());
        IsolationConfigSource.State state = source.state();
        assertTrue(state.loaded());
        assertEquals("IllegalArgumentException: mode: must be \"enforce\" or \"report\", got 'strict'", state.lastError());
        assertEquals(firstGood, state.lastGoodEpochMs());
        assertEquals(1, state.loadsOk());
        assertEquals(1, state.loadsFailed());
    }

    @Test
    void theDocumentsRefreshTakesOverFromTheSettings(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("isolation.json"), "{\"refreshS\":7,\"mocks\":[]}");
        IsolationConfigSource source = new IsolationConfigSource(new IsolationSettings(Optional.empty(), "",
                Optional.of(file), 30));

        assertTrue(source.refresh());

        assertEquals(7, source.nextRefreshS());
    }

    @Test
    void fetchesTheUrlWithTheBearerTokenAndCountsANon200AsAFailure() throws IOException {
        AtomicReference<String> auth = new AtomicReference<>();
        AtomicInteger status = new AtomicInteger(503);
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/isolation", exchange -> {
            auth.set(exchange.getRequestHeaders().getFirst("Authorization"));
            byte[] body = ENFORCE.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status.get(), body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        try {
            URI url = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/isolation");
            IsolationConfigSource source = new IsolationConfigSource(new IsolationSettings(Optional.of(url), "t0k",
                    Optional.empty(), 30));

            assertFalse(source.refresh());
            assertEquals(Optional.empty(), source.current());
            assertEquals("IOException: HTTP 503 from " + url, source.state().lastError());
            status.set(200);
            assertTrue(source.refresh());
            assertEquals("Bearer t0k", auth.get());
            assertEquals(1, source.current().orElseThrow().scope().size());
            assertEquals("", source.state().lastError());
        } finally {
            server.stop(0);
        }
    }

    @Test
    void withoutASourceNothingLoadsAndTheStateSaysWhatToSet() {
        try (IsolationConfigSource source = IsolationConfigSource.start(IsolationSettings.from(
                Map.of(), Map.of()))) {
            assertEquals(Optional.empty(), source.current());
            assertFalse(source.state().loaded());
            assertEquals("no source configured: set -Drichter.isolation.url or -Drichter.isolation.file",
                    source.state().lastError());
        }
    }
}
