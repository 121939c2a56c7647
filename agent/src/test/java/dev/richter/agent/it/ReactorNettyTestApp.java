package dev.richter.agent.it;

import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * A service on reactor-netty's {@code HttpServer} (1.2, what Spring WebFlux and Spring Cloud Gateway run on) with no
 * Richter code, for {@link ServerGatesIT}: one handler on an ephemeral port (prints {@code READY <port>}) answering
 * {@code GET /work} (counted, then the exit called as {@link GateExit#call()} does: {@code exit=<body>}) and
 * {@code GET /counts} ({@code handler=<n>}, the {@code /work} requests the handler was applied to).
 */
public final class ReactorNettyTestApp {
    private static final AtomicInteger HANDLED = new AtomicInteger();

    private ReactorNettyTestApp() {}

    public static void main(String[] args) {
        DisposableServer server = HttpServer.create().host("127.0.0.1").port(0)
                .handle((request, response) -> {
                    String body;
                    if ("/counts".equals(request.fullPath())) {
                        body = "handler=" + HANDLED.get();
                    } else {
                        HANDLED.incrementAndGet();
                        // on the event loop, in the request's context (a test app: a real one would not block here)
                        body = "exit=" + GateExit.call();
                    }
                    return response.header("Content-Type", "text/plain").sendString(Mono.just(body)).then();
                })
                .bindNow();
        System.out.println("READY " + server.port());
        server.onDispose().block();
    }
}
