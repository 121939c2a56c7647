package dev.richter.agent.apacheasync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.RecordingGuard;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hc.client5.http.HttpRoute;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.client5.http.async.AsyncExecChain;
import org.apache.hc.client5.http.async.AsyncExecRuntime;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.concurrent.ComplexFuture;
import org.apache.hc.core5.http.EntityDetails;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.nio.AsyncDataConsumer;
import org.apache.hc.core5.http.nio.CapacityChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Apache HttpClient 5's async helper with a guard installed by hand: no agent, no client, no network. */
class ApacheHttpAsyncClientExitsTest {

    @AfterEach
    void uninstall() {
        IsolationBridge.install(null);
    }

    /** What the exchange's callback was told, in order: the response, the body, the end. */
    static final class Callback implements AsyncExecCallback, AsyncDataConsumer {
        final List<String> events = new ArrayList<>();
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        HttpResponse response;
        EntityDetails details;
        Exception failure;

        @Override
        public AsyncDataConsumer handleResponse(HttpResponse response, EntityDetails details) {
            this.response = response;
            this.details = details;
            events.add("response");
            return this;
        }

        @Override
        public void handleInformationResponse(HttpResponse response) {
            events.add("information");
        }

        @Override
        public void completed() {
            events.add("completed");
        }

        @Override
        public void failed(Exception cause) {
            failure = cause;
            events.add("failed");
        }

        @Override
        public void updateCapacity(CapacityChannel channel) {
        }

        @Override
        public void consume(ByteBuffer src) {
            byte[] bytes = new byte[src.remaining()];
            src.get(bytes);
            body.writeBytes(bytes);
            events.add("body");
        }

        @Override
        public void streamEnd(List<? extends Header> trailers) {
            events.add("end");
        }

        @Override
        public void releaseResources() {
        }
    }

    private static boolean answered(HttpRequest request, Callback callback) {
        // no runtime is used: a call for real would need one, a decided one never leases a connection
        AsyncExecRuntime runtime = (AsyncExecRuntime) java.lang.reflect.Proxy.newProxyInstance(
                AsyncExecRuntime.class.getClassLoader(), new Class<?>[] {AsyncExecRuntime.class}, (p, m, a) -> {
                    throw new AssertionError("the exchange's runtime was used: " + m.getName());
                });
        AsyncExecChain.Scope scope = new AsyncExecChain.Scope("ex-1",
                new HttpRoute(new HttpHost("https", "pay.example", 443)), request, new ComplexFuture<Object>(null),
                HttpClientContext.create(), runtime);
        return ApacheHttpAsyncClientExits.answered(request, null, scope, callback);
    }

    @Test
    void asksWithTheRequestsAuthorityTheSchemesDefaultPortAndThePathWithoutQueryAndRunsAPassUntouched() {
        RecordingGuard guard = RecordingGuard.install(ExitDecision.PASS);
        Callback callback = new Callback();

        assertFalse(answered(SimpleRequestBuilder.post("https://pay.example?x=1").build(), callback));
        assertFalse(answered(SimpleRequestBuilder.get("http://pay.example:8080/a/b?x=1").build(), callback));

        assertEquals(List.of("POST pay.example:443 /", "GET pay.example:8080 /a/b"), guard.asked);
        assertEquals(List.of(), callback.events);
    }

    @Test
    void aMockIsAnsweredThroughTheExchangesCallbackWithItsStatusHeadersAndBody() {
        ExitDecision.Mock mock = new ExitDecision.Mock("pay.example/charge", 201,
                Map.of("Content-Type", "application/json", "X-Mock", "yes"), "{\"id\":\"ch_é\"}", 0);
        RecordingGuard guard = RecordingGuard.install(mock);
        Callback callback = new Callback();

        assertTrue(answered(SimpleRequestBuilder.post("https://pay.example/charge").build(), callback));

        assertEquals(List.of("response", "body", "end", "completed"), callback.events);
        assertEquals(201, callback.response.getCode());
        assertEquals("yes", callback.response.getFirstHeader("X-Mock").getValue());
        assertEquals("14", callback.response.getFirstHeader("Content-Length").getValue());
        assertEquals(14, callback.details.getContentLength());
        assertEquals("application/json", callback.details.getContentType());
        assertEquals("{\"id\":\"ch_é\"}", callback.body.toString(StandardCharsets.UTF_8));
        assertEquals(List.of(mock), guard.recorded);
    }

    @Test
    void aRefusalFailsTheExchangeWithAnIOExceptionNamingTheExit() {
        ExitDecision.Refuse refuse = new ExitDecision.Refuse("pay.example:443 GET /x", "outside the scope");
        RecordingGuard.install(refuse);
        Callback callback = new Callback();

        assertTrue(answered(SimpleRequestBuilder.get("https://pay.example/x").build(), callback));

        assertEquals(List.of("failed"), callback.events);
        assertEquals(refuse.message(), assertInstanceOf(java.io.IOException.class, callback.failure).getMessage());
    }
}
