package dev.richter.agent.it;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/** A loopback HTTP server on an ephemeral port answering every request the same, counting the requests that reach it. */
final class CountingServer implements AutoCloseable {
    final HttpServer server;
    private final AtomicInteger requests = new AtomicInteger();

    CountingServer(int status, String body) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            requests.incrementAndGet();
            answer(exchange, status, body);
        });
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    int count() {
        return requests.get();
    }

    String url(String path) {
        return "http://127.0.0.1:" + port() + path;
    }

    static void answer(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
