package dev.richter.agent.reactornettyclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.RecordingGuard;
import io.netty.handler.codec.http.HttpMethod;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.Connection;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.client.HttpClientConfig;
import reactor.netty.http.client.HttpClientResponse;

/** reactor-netty's helper with a guard installed by hand: no agent, no network (nothing listens at the URIs). */
class ReactorNettyClientExitsTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @AfterEach
    void uninstall() {
        IsolationBridge.install(null);
    }

    /** The connection {@code answered} gives a subscriber whose context carries the tag of a marked assembly. */
    private static Mono<Connection> decided(HttpClient request, AtomicBoolean answered) {
        HttpClientConfig config = request.configuration();
        Mono<Connection> decided = Mono.from(subscriber -> answered.set(ReactorNettyClientExits.answered(config,
                (reactor.core.CoreSubscriber<? super Connection>) subscriber)));
        return decided.contextWrite(reactor.util.context.Context.of(ReactorNettyClientExits.MARKED_AT_ASSEMBLY, true));
    }

    @Test
    void asksWithTheFinalUriTheSchemesDefaultPortAndThePathWithoutQuery() {
        RecordingGuard guard = RecordingGuard.install(ExitDecision.PASS);
        AtomicBoolean answered = new AtomicBoolean();

        decided((HttpClient) HttpClient.create().baseUrl("https://pay.example").post().uri("/v1/charges?x=1"), answered)
                .subscribe();
        decided((HttpClient) HttpClient.create().get().uri("http://other.example:8080"), answered).subscribe();

        assertFalse(answered.get(), "a pass is sent for real");
        assertEquals(List.of("POST pay.example:443 /v1/charges", "GET other.example:8080 /"), guard.asked);
    }

    @Test
    void aMockIsAnsweredThroughTheClientsOwnResponsePathWithNothingSent() {
        ExitDecision.Mock mock = new ExitDecision.Mock("pay.example/charge", 201,
                Map.of("Content-Type", "application/json", "X-Mock", "yes"), "{\"id\":\"ch_é\"}", 10);
        RecordingGuard guard = RecordingGuard.install(mock);
        AtomicBoolean answered = new AtomicBoolean();
        HttpClient request = (HttpClient) HttpClient.create().responseTimeout(TIMEOUT).request(HttpMethod.POST)
                .uri("http://127.0.0.1:9/charge")
                .send(ByteBufFlux.fromString(Mono.just("{\"amount\":1}")));

        Connection connection = decided(request, answered).block(TIMEOUT);
        HttpClientResponse response = assertInstanceOf(HttpClientResponse.class, connection);

        assertTrue(answered.get());
        assertEquals(201, response.status().code());
        assertEquals("yes", response.responseHeaders().get("X-Mock"));
        assertEquals("14", response.responseHeaders().get("Content-Length"));
        assertEquals("{\"id\":\"ch_é\"}", connection.inbound().receive().aggregate().asString().block(TIMEOUT));
        assertEquals(List.of(mock), guard.recorded);
    }

    @Test
    void aRefusalFailsTheSubscriptionWithAnIOExceptionNamingTheExit() {
        ExitDecision.Refuse refuse = new ExitDecision.Refuse("pay.example:443 GET /x", "outside the scope");
        RecordingGuard.install(refuse);
        AtomicBoolean answered = new AtomicBoolean();

        RuntimeException e = assertThrows(RuntimeException.class,
                () -> decided((HttpClient) HttpClient.create().get().uri("https://pay.example/x"), answered)
                        .block(TIMEOUT));

        assertTrue(answered.get());
        IOException cause = assertInstanceOf(IOException.class, e.getCause());
        assertEquals(refuse.message(), cause.getMessage());
    }
}
