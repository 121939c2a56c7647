package dev.richter.local;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP service on loopback for the integration tests and bench/own-faults: {@code POST /orders} answers
 * {@link #orderStatus} and records the {@code baggage} header of every request;
 * {@code GET /actuator/health} answers Spring Boot Actuator JSON with {@link #healthStatus}.
 */
public final class FakeTarget implements AutoCloseable {
    /** The status {@code POST /orders} answers; 201 until a test sets another. */
    public final AtomicInteger orderStatus = new AtomicInteger(201);
    /** The Actuator status {@code GET /actuator/health} answers ({@code UP}: 200, else 503). */
    public volatile String healthStatus = "UP";
    /** The {@code baggage} header of every {@code POST /orders}, in arrival order ("null" when absent). */
    public final List<String> baggage = new CopyOnWriteArrayList<>();
    /** How long {@code POST /orders} waits before it answers, milliseconds; 0 until a test sets another. */
    public volatile long delayMs = 0;
    /** Arrival time of every {@code POST /orders}, epoch milliseconds. */
    public final List<Long> arrivalsMs = new CopyOnWriteArrayList<>();
    private final HttpServer server;

    /** Starts the service on an ephemeral loopback port. */
    public FakeTarget() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 512);
        OwnershipTokens.serve(server);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/orders", ex -> {
            try (ex) {
                arrivalsMs.add(System.currentTimeMillis());
                ex.getRequestBody().readAllBytes();
                baggage.add(String.valueOf(ex.getRequestHeaders().getFirst("baggage")));
                long delay = delayMs;
                if (delay > 0) {
                    try {
                        Thread.sleep(delay);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                byte[] body = "{\"orderId\":\"o-1\"}".getBytes(StandardCharsets.UTF_8);
                ex.getResponseHeaders().set("Content-Type", "application/json");
                ex.sendResponseHeaders(orderStatus.get(), body.length);
                ex.getResponseBody().write(body);
            }
        });
        server.createContext("/actuator/health", ex -> {
            try (ex) {
                String status = healthStatus;
                byte[] body = ("{\"status\":\"" + status + "\",\"components\":{\"db\":{\"status\":\"" + status + "\"}}}")
                        .getBytes(StandardCharsets.UTF_8);
                ex.getResponseHeaders().set("Content-Type", "application/vnd.spring-boot.actuator.v3+json");
                ex.sendResponseHeaders("UP".equals(status) ? 200 : 503, body.length);
                ex.getResponseBody().write(body);
            }
        });
        server.start();
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Epoch ms of the last {@code POST /orders}, 0 before the first. */
    public long lastArrivalMs() {
        return arrivalsMs.stream().mapToLong(Long::longValue).max().orElse(0);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
