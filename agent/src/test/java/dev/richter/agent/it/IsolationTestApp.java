package dev.richter.agent.it;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A service with no Richter code at all, run by {@link ExtensionIsolationIT} in a child JVM under the OpenTelemetry
 * agent and the Richter extension. A JDK {@code HttpServer} on an ephemeral loopback port (printed as {@code READY
 * <port>}):
 * <ul>
 *   <li>{@code GET /call?target=<url>&method=<GET|POST>&async=<true|false>}: calls {@code target} with the JDK
 *       {@code HttpClient} ({@code send}, or {@code sendAsync(...).get()}) and answers 200 with {@code
 *       status=<code> body=<body>}, or {@code error=<exception message>};</li>
 *   <li>{@code GET /call?client=<okhttp|apache|spring>&...}: the same call with OkHttp, Apache HttpClient 5 or
 *       Spring's {@code RestClient} over Apache HttpClient 5 ({@link OtherClients}); {@code
 *       client=<reactor-netty|webclient|apache-async>}: with reactor-netty's {@code HttpClient}, Spring's {@code
 *       WebClient} or Apache HttpClient 5's async client ({@link ReactiveClients});</li>
 *   <li>{@code GET /calls}: how many times the {@code /call} handler ran.</li>
 * </ul>
 * Whatever marks a call comes in on the request ({@code baggage: richter-loadtest=1}) and reaches the outgoing call
 * through the agent's context, as in any instrumented service.
 */
public final class IsolationTestApp {
    private static final AtomicInteger CALLS = new AtomicInteger();
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private IsolationTestApp() {}

    public static void main(String[] args) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/call", IsolationTestApp::call);
        server.createContext("/calls", exchange -> answer(exchange, String.valueOf(CALLS.get())));
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.start();
        System.out.println("READY " + server.getAddress().getPort());
    }

    private static void call(HttpExchange exchange) throws IOException {
        CALLS.incrementAndGet();
        Map<String, String> query = new HashMap<>();
        for (String pair : exchange.getRequestURI().getRawQuery().split("&")) {
            int eq = pair.indexOf('=');
            query.put(pair.substring(0, eq), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        String method = query.getOrDefault("method", "GET");
        String client = query.getOrDefault("client", "jdk");
        if (!client.equals("jdk")) {
            answer(exchange, OtherClients.call(client, query.get("target"), method,
                    Boolean.parseBoolean(query.get("async"))));
            return;
        }
        HttpRequest request = HttpRequest.newBuilder(URI.create(query.get("target"))).timeout(Duration.ofSeconds(5))
                .method(method, method.equals("GET") ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString("{\"amount\":1}"))
                .build();
        String result;
        try {
            HttpResponse<String> response = Boolean.parseBoolean(query.get("async"))
                    ? CLIENT.sendAsync(request, HttpResponse.BodyHandlers.ofString()).get()
                    : CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
            result = "status=" + response.statusCode() + " body=" + response.body();
        } catch (ExecutionException e) {
            result = "error=" + e.getCause().getMessage();
        } catch (IOException e) {
            result = "error=" + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            result = "error=interrupted";
        }
        answer(exchange, result);
    }

    private static void answer(HttpExchange exchange, String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }
}
