package dev.richter.agent.it;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.ContentType;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;

/**
 * {@link IsolationTestApp}'s calls with the asynchronous and reactive HTTP clients, as a service makes them (no Richter
 * code); each answers {@code status=<code> body=<body>}, or {@code error=<the exception's message>}. POST sends {@code
 * {"amount":1}}.
 * <ul>
 *   <li>{@code reactor-netty}: reactor-netty's {@code HttpClient} ({@code request(method).uri(target).send(body)
 *       .responseSingle(...)}), subscribed by {@code block()} on the request's thread; with {@code async}, the
 *       {@code Mono} built on the request's thread and subscribed on a thread that never carries the request's
 *       context ({@link ContextFreeSubscriber});</li>
 *   <li>{@code webclient}: Spring's {@code WebClient} over {@code ReactorClientHttpConnector} ({@code WebClient
 *       .create()}), {@code retrieve().toEntity(String.class)}; with {@code async}, {@code retrieve()
 *       .bodyToMono(String.class)} ({@code status=-}: that API gives the body only);</li>
 *   <li>{@code apache-async}: Apache HttpClient 5's async client ({@code HttpAsyncClients.createDefault()}), {@code
 *       execute(SimpleHttpRequest, null).get()}; with {@code async}, {@code execute(request, callback)}, the answer
 *       from the {@code FutureCallback} ({@code error=... (FutureCallback.failed)} on a failure).</li>
 * </ul>
 */
final class ReactiveClients {
    private static final String BODY = "{\"amount\":1}";
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final HttpClient REACTOR = HttpClient.create().responseTimeout(TIMEOUT);
    private static final WebClient WEB = WebClient.create();
    private static final CloseableHttpAsyncClient APACHE_ASYNC = HttpAsyncClients.createDefault();
    private static final ContextFreeSubscriber ELSEWHERE = new ContextFreeSubscriber();

    static {
        APACHE_ASYNC.start();
    }

    private ReactiveClients() {}

    /** The call of {@code client} ({@code reactor-netty}, {@code webclient}, {@code apache-async}), its second way when {@code async}. */
    static String call(String client, String target, String method, boolean async) throws Exception {
        return switch (client) {
            case "reactor-netty" -> reactorNetty(target, method, async);
            case "webclient" -> webClient(target, method, async);
            case "apache-async" -> apacheAsync(target, method, async);
            default -> "error=no client " + client;
        };
    }

    private static String reactorNetty(String target, String method, boolean elsewhere) throws Exception {
        HttpClient.RequestSender request = REACTOR.request(io.netty.handler.codec.http.HttpMethod.valueOf(method))
                .uri(target);
        HttpClient.ResponseReceiver<?> sent = method.equals("GET") ? request
                : request.send(ByteBufFlux.fromString(Mono.just(BODY)));
        Mono<String> answer = sent.responseSingle((response, bytes) -> bytes.asString().defaultIfEmpty("")
                .map(body -> "status=" + response.status().code() + " body=" + body));
        if (!elsewhere) {
            return answer.block(TIMEOUT);
        }
        return (String) ELSEWHERE.block(answer);
    }

    private static String webClient(String target, String method, boolean bodyOnly) {
        WebClient.RequestBodySpec request = WEB.method(HttpMethod.valueOf(method)).uri(target);
        if (!method.equals("GET")) {
            request.contentType(org.springframework.http.MediaType.APPLICATION_JSON).bodyValue(BODY);
        }
        if (bodyOnly) {
            return "status=- body=" + request.retrieve().bodyToMono(String.class).block(TIMEOUT);
        }
        ResponseEntity<String> response = request.retrieve().toEntity(String.class).block(TIMEOUT);
        return "status=" + response.getStatusCode().value() + " body=" + response.getBody();
    }

    private static String apacheAsync(String target, String method, boolean withCallback) throws Exception {
        SimpleRequestBuilder builder = SimpleRequestBuilder.create(method).setUri(target);
        if (!method.equals("GET")) {
            builder.setBody(BODY, ContentType.APPLICATION_JSON);
        }
        SimpleHttpRequest request = builder.build();
        if (!withCallback) {
            Future<SimpleHttpResponse> future = APACHE_ASYNC.execute(request, null);
            SimpleHttpResponse response = future.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            return "status=" + response.getCode() + " body=" + response.getBodyText();
        }
        CompletableFuture<String> answer = new CompletableFuture<>();
        APACHE_ASYNC.execute(request, new FutureCallback<SimpleHttpResponse>() {
            @Override
            public void completed(SimpleHttpResponse response) {
                answer.complete("status=" + response.getCode() + " body=" + response.getBodyText());
            }

            @Override
            public void failed(Exception e) {
                answer.complete("error=" + e.getMessage() + " (FutureCallback.failed)");
            }

            @Override
            public void cancelled() {
                answer.complete("error=cancelled (FutureCallback.cancelled)");
            }
        });
        return answer.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }
}
