package dev.richter.agent.it;

import java.time.Duration;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * A Spring WebFlux service with no Richter code: a functional endpoint on reactor-netty's {@code HttpServer} (an
 * ephemeral port, printed as {@code READY <port>}) whose handler calls an exit with Spring's {@code WebClient} without
 * blocking, as WebFlux services do: the call's {@code Mono} is the response's, subscribed by WebFlux on the server's
 * event loop, the request's context carried there by the agent.
 * <ul>
 *   <li>{@code GET /call?client=webflux&target=<url>&method=<GET|POST>&async=<true|false>}: {@code retrieve()
 *       .toEntity(String.class)}, answered {@code status=<code> body=<body>} or {@code error=<the exception's
 *       message>}; with {@code async}, the call made after a hop to Reactor's parallel scheduler ({@code
 *       Mono.delay}), so it is built and subscribed on another thread than the request's.</li>
 * </ul>
 */
public final class WebFluxTestApp {
    private static final WebClient WEB = WebClient.create();

    private WebFluxTestApp() {}

    public static void main(String[] args) {
        DisposableServer server = HttpServer.create().host("127.0.0.1").port(0)
                .handle(new ReactorHttpHandlerAdapter(RouterFunctions.toHttpHandler(
                        RouterFunctions.route().GET("/call", WebFluxTestApp::call).build())))
                .bindNow();
        System.out.println("READY " + server.port());
        server.onDispose().block();
    }

    private static Mono<ServerResponse> call(ServerRequest request) {
        String target = request.queryParam("target").orElseThrow();
        String method = request.queryParam("method").orElse("GET");
        Mono<String> answer = Mono.defer(() -> {
            WebClient.RequestBodySpec call = WEB.method(HttpMethod.valueOf(method)).uri(target);
            if (!method.equals("GET")) {
                call.contentType(org.springframework.http.MediaType.APPLICATION_JSON).bodyValue("{\"amount\":1}");
            }
            return call.retrieve().toEntity(String.class)
                    .map(e -> "status=" + e.getStatusCode().value() + " body=" + e.getBody());
        });
        if (Boolean.parseBoolean(request.queryParam("async").orElse("false"))) {
            answer = Mono.delay(Duration.ofMillis(5)).then(answer);
        }
        return answer.onErrorResume(e -> Mono.just("error=" + e.getMessage()))
                .flatMap(body -> ServerResponse.ok().bodyValue(body));
    }
}
