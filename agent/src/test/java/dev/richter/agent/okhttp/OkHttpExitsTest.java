package dev.richter.agent.okhttp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.RecordingGuard;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * OkHttp's helper called where the advice calls it (before OkHttp's own interceptors: here, the last application
 * interceptor), with a guard installed by hand and no agent. The target is port 1 of loopback, where nothing listens:
 * a mocked or refused call that tried to connect would fail with a connection error instead.
 */
class OkHttpExitsTest {
    private static final String TARGET = "http://127.0.0.1:1/v1/charges?x=1";
    private final List<String> network = new ArrayList<>();

    @AfterEach
    void uninstall() {
        IsolationBridge.install(null);
    }

    /** A client whose last application interceptor is the advice, and whose network interceptor notes each call. */
    private OkHttpClient client() {
        Interceptor advice = chain -> {
            Object answer = OkHttpExits.beforeNetwork(chain);
            if (answer instanceof IOException e) {
                throw e;
            }
            return answer instanceof Response r ? r : chain.proceed(chain.request());
        };
        Interceptor noting = chain -> {
            network.add(chain.request().method() + " connection=" + chain.connection());
            return chain.proceed(chain.request().newBuilder().header("traceparent", "set-by-network").build());
        };
        return new OkHttpClient.Builder().addInterceptor(advice).addNetworkInterceptor(noting).build();
    }

    private static Request post() {
        return new Request.Builder().url(TARGET).post(RequestBody.create("{}", null)).build();
    }

    @Test
    void aMockIsAnsweredAsOkHttpsOwnResponseThroughTheNetworkInterceptorsWithoutConnecting() throws IOException {
        ExitDecision.Mock mock = new ExitDecision.Mock("127.0.0.1:1 POST /v1/charges", 201,
                Map.of("Content-Type", "application/json", "X-Mock", "yes"), "{\"id\":\"ch_1\"}", 0);
        RecordingGuard guard = RecordingGuard.install(mock);

        try (Response response = client().newCall(post()).execute()) {
            assertEquals(201, response.code());
            assertEquals("{\"id\":\"ch_1\"}", response.body().string());
            assertEquals("application/json", response.header("Content-Type"));
            assertEquals("yes", response.header("X-Mock"));
            assertEquals("13", response.header("Content-Length"));
            assertEquals("set-by-network", response.request().header("traceparent"), "the request the network saw");
        }
        assertEquals(List.of("POST 127.0.0.1:1 /v1/charges"), guard.asked);
        assertEquals(List.of(mock), guard.recorded);
        assertEquals(List.of("POST connection=null"), network);
    }

    @Test
    void aRefusalIsTheCallsIOExceptionNamingTheExit() {
        ExitDecision.Refuse refuse = new ExitDecision.Refuse("127.0.0.1:1 POST /v1/charges", "outside the scope");
        RecordingGuard guard = RecordingGuard.install(refuse);

        IOException e = assertThrows(IOException.class, () -> client().newCall(post()).execute());

        assertEquals(refuse.message(), e.getMessage());
        assertEquals(List.of(refuse), guard.recorded);
        assertEquals(List.of("POST connection=null"), network);
    }

    @Test
    void aPassIsCalledForRealAndRecordsNothing() {
        RecordingGuard guard = RecordingGuard.install(ExitDecision.PASS);

        IOException e = assertThrows(IOException.class, () -> client().newCall(post()).execute());

        assertTrue(e.getMessage().contains("127.0.0.1"), "a real connection attempt: " + e);
        assertEquals(List.of(), guard.recorded);
        assertEquals(List.of(), network, "the connection failed before the network interceptors");
    }
}
