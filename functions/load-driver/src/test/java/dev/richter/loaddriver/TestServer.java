package dev.richter.loaddriver;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A local JDK HttpServer that records every request and answers 200 after {@code delayMs}, except the shedding paths of
 * {@link Shedding} (429/503 with or without {@code Retry-After}) and the {@link #routes} a test sets.
 */
final class TestServer implements AutoCloseable {
    /** One request as it arrived: {@code path} is its raw path and query. */
    record Seen(long arrivalNanos, String method, String path, String baggage, byte[] body, Headers headers) {}

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    final List<Seen> seen = new CopyOnWriteArrayList<>();
    /** Answers by exact raw path and query (e.g. a redirect) in place of the default ones; set before the requests. */
    final Map<String, Shedding.Answer> routes = new ConcurrentHashMap<>();

    TestServer(long delayMs) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 512);
        server.createContext("/", exchange -> {
            long arrival = System.nanoTime();
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            String target = exchange.getRequestURI().toString();
            seen.add(new Seen(arrival, exchange.getRequestMethod(), target,
                    exchange.getRequestHeaders().getFirst("baggage"), body, new Headers(exchange.getRequestHeaders())));
            try {
                Thread.sleep(delayMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            byte[] ok = "ok".getBytes();
            Shedding.Answer answer = routes.getOrDefault(target, Shedding.answer(exchange.getRequestURI().getPath(), System.currentTimeMillis()));
            answer.headers().forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
            try {
                exchange.sendResponseHeaders(answer.status(), ok.length);
                exchange.getResponseBody().write(ok);
            } catch (IOException ignored) {
                // client gave up (timeout)
            }
            exchange.close();
        });
        server.setExecutor(executor);
        server.start();
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
