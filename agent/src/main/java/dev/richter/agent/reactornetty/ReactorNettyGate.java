package dev.richter.agent.reactornetty;

import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.IsolationGuard;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import reactor.core.publisher.Mono;
import reactor.netty.channel.ChannelOperations;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import reactor.netty.http.server.HttpServerState;

/**
 * Fail closed at reactor-netty's {@code HttpServer} (1.0 to 1.3; what Spring WebFlux and Spring Cloud Gateway run
 * on): while the isolation configuration is not loaded, a marked inbound request (its {@code baggage} header holds
 * the marker) is answered {@code 503}, {@code Content-Type: text/plain; charset=utf-8}, the reason as the body, and
 * the application's handler (WebFlux's {@code ReactorHttpHandlerAdapter}, a gateway's) is never applied; unmarked
 * requests always pass. Once loaded, the handler is applied with the marker current ({@link
 * IsolationGuard#markInbound}; what it runs later, on other threads, carries the context the agent propagates).
 * Called by the advice of {@code otel.ReactorNettyServerInstrumentation} before {@code HttpServerHandle.onStateChange}
 * applies the handler. A helper injected next to reactor-netty; no lambdas.
 */
public final class ReactorNettyGate {
    /** What {@link #enter} answers for a request it refused and answered: skip applying the handler. */
    public static final Object REFUSED = new Object();

    private ReactorNettyGate() {}

    /**
     * Decides one request when its connection reaches {@code REQUEST_RECEIVED}.
     *
     * @param connection the request's {@code HttpServerOperations} (request, response and channel at once)
     * @param state      the connection's new state; every other state passes
     * @return {@link #REFUSED}: the 503 is being sent, do not apply the handler; a {@code MarkerScope} to close once
     *     the handler was applied; or {@code null}: pass
     */
    public static Object enter(Object connection, Object state) {
        if (state != HttpServerState.REQUEST_RECEIVED || !(connection instanceof HttpServerRequest)
                || !(connection instanceof HttpServerResponse)
                || !(connection instanceof ChannelOperations)) {
            return null;
        }
        HttpServerRequest request = (HttpServerRequest) connection;
        HttpServerResponse response = (HttpServerResponse) connection;
        ChannelOperations<?, ?> operations = (ChannelOperations<?, ?>) connection;
        List<String> values = request.requestHeaders().getAll("baggage");
        String baggage = values.isEmpty() ? "" : String.join(",", values);
        IsolationGuard guard = IsolationBridge.guard();
        Optional<String> refusal = guard.inboundRefusal(baggage);
        if (!refusal.isPresent()) {
            return baggage.isEmpty() ? null : guard.markInbound(baggage);
        }
        byte[] body = (refusal.get() + "\n").getBytes(StandardCharsets.UTF_8);
        response.status(503).header("Content-Type", "text/plain; charset=utf-8")
                .header("Content-Length", String.valueOf(body.length))
                .sendByteArray(Mono.just(body)).then().subscribe(operations.disposeSubscriber());
        return REFUSED;
    }
}
