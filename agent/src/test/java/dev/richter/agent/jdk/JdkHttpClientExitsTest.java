package dev.richter.agent.jdk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.RecordingGuard;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The JDK client's helper with a guard installed by hand: no agent, no network. */
class JdkHttpClientExitsTest {
    private static final ExitDecision.Mock MOCK = new ExitDecision.Mock("pay.example/charge", 201,
            Map.of("Content-Type", "application/json"), "{\"id\":\"ch_1\"}", 0);

    private RecordingGuard guard;

    private void install(ExitDecision answer) {
        guard = RecordingGuard.install(answer);
    }

    @AfterEach
    void uninstall() {
        IsolationBridge.install(null);
    }

    private static HttpRequest post(String uri) {
        return HttpRequest.newBuilder(URI.create(uri)).POST(HttpRequest.BodyPublishers.ofString("{}")).build();
    }

    @Test
    void asksWithTheSchemesDefaultPortAndThePathWithoutQuery() {
        install(ExitDecision.PASS);

        assertNull(JdkHttpClientExits.beforeSend(post("https://pay.example?x=1"), HttpResponse.BodyHandlers.ofString()));
        assertNull(JdkHttpClientExits.beforeSend(post("http://pay.example:8080/a/b?x=1"), HttpResponse.BodyHandlers.ofString()));

        assertEquals(List.of("POST pay.example:443 /", "POST pay.example:8080 /a/b"), guard.asked);
        assertEquals(List.of(ExitDecision.PASS, ExitDecision.PASS), guard.recorded);
    }

    @Test
    void aMockIsAnsweredThroughTheCallersBodyHandler() throws IOException {
        install(MOCK);

        HttpResponse<?> asString = (HttpResponse<?>) JdkHttpClientExits.beforeSend(post("https://pay.example/charge"),
                HttpResponse.BodyHandlers.ofString());
        HttpResponse<?> asBytes = (HttpResponse<?>) JdkHttpClientExits.beforeSend(post("https://pay.example/charge"),
                HttpResponse.BodyHandlers.ofByteArray());
        HttpResponse<?> asStream = (HttpResponse<?>) JdkHttpClientExits.beforeSend(post("https://pay.example/charge"),
                HttpResponse.BodyHandlers.ofInputStream());

        assertEquals(201, asString.statusCode());
        assertEquals("{\"id\":\"ch_1\"}", asString.body());
        assertEquals("application/json", asString.headers().firstValue("content-type").orElseThrow());
        assertEquals("13", asString.headers().firstValue("Content-Length").orElseThrow());
        assertArrayEquals("{\"id\":\"ch_1\"}".getBytes(StandardCharsets.UTF_8), (byte[]) asBytes.body());
        try (InputStream in = (InputStream) asStream.body()) {
            assertEquals("{\"id\":\"ch_1\"}", new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        assertEquals(URI.create("https://pay.example/charge"), asString.uri());
        assertEquals(List.of(MOCK, MOCK, MOCK), guard.recorded);
    }

    @Test
    void aRefusalBecomesAnIOExceptionNamingTheExit() throws InterruptedException {
        install(new ExitDecision.Refuse("crm:443 GET /c", "outside"));

        Object sync = JdkHttpClientExits.beforeSend(post("https://crm/c"), HttpResponse.BodyHandlers.ofString());
        CompletableFuture<?> async = JdkHttpClientExits.beforeSendAsync(post("https://crm/c"),
                HttpResponse.BodyHandlers.ofString());

        assertEquals("Richter isolation refused a marked call to exit 'crm:443 GET /c': outside",
                assertInstanceOf(IOException.class, sync).getMessage());
        ExecutionException failed = assertThrows(ExecutionException.class, async::get);
        assertInstanceOf(IOException.class, failed.getCause());
    }

    @Test
    void anAsyncMockCompletesAfterItsLatencyAndReportModePasses() throws Exception {
        install(new ExitDecision.Mock("pay.example", 200, Map.of(), "", 50));
        long start = System.nanoTime();

        HttpResponse<?> r = (HttpResponse<?>) JdkHttpClientExits.beforeSendAsync(post("https://pay.example/x"),
                HttpResponse.BodyHandlers.ofString()).get();

        assertTrue(System.nanoTime() - start >= 50_000_000L);
        assertEquals(200, r.statusCode());
        assertEquals("", r.body());
        install(new ExitDecision.WouldRefuse("crm:443 GET /c", "outside"));
        assertNull(JdkHttpClientExits.beforeSendAsync(post("https://crm/c"), HttpResponse.BodyHandlers.ofString()));
    }
}
