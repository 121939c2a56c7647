package dev.richter.loaddriver;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A local JDK HttpServer that records every request and answers 200 after {@code delayMs}, except the shedding paths of
 * {@link Shedding} (429/503 with or without {@code Retry-After}).
 */
final class TestServer implements AutoCloseable {
    record Seen(long arrivalNanos, String method, String path, String baggage, byte[] body) {}

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    final List<Seen> seen = new CopyOnWriteArrayList<>();

    TestServer(long delayMs) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 512);
        server.createContext("/", exchange -> {
            long arrival = System.nanoTime();
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            seen.add(new Seen(arrival, exchange.getRequestMethod(), exchange.getRequestURI().toString(),
                    exchange.getRequestHeaders().getFirst("baggage"), body));
            try {
                Thread.sleep(delayMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            byte[] ok = "ok".getBytes();
            Shedding.Answer answer = Shedding.answer(exchange.getRequestURI().getPath(), System.currentTimeMillis());
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
