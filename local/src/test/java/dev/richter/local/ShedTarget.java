package dev.richter.local;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A real HTTP service on loopback that sheds load the way a well-defended one does: {@code POST /orders} serves
 * {@link #capacityPerS} requests per wall-clock second with 201, and answers the rest at once, in turn, with 429 and
 * {@code Retry-After: 120}, 503 with {@code Retry-After} as an IMF-fixdate 120 s after its {@code Date} (corpus bug 28),
 * and 429 without {@code Retry-After}. {@code GET /actuator/health} is always UP.
 */
final class ShedTarget implements AutoCloseable {
    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

    final int capacityPerS;
    /** Answers by kind: served, shed with seconds, with an HTTP-date, without Retry-After. */
    final AtomicInteger served = new AtomicInteger();
    final AtomicInteger shedSeconds = new AtomicInteger();
    final AtomicInteger shedDate = new AtomicInteger();
    final AtomicInteger shedNone = new AtomicInteger();
    private final AtomicLong second = new AtomicLong();
    private final AtomicInteger inSecond = new AtomicInteger();
    private final AtomicInteger shedTurn = new AtomicInteger();
    private final HttpServer server;

    ShedTarget(int capacityPerS) throws IOException {
        this.capacityPerS = capacityPerS;
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 512);
        OwnershipTokens.serve(server);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/orders", ex -> {
            try (ex) {
                ex.getRequestBody().readAllBytes();
                long now = System.currentTimeMillis();
                if (admit(now / 1000)) {
                    served.incrementAndGet();
                    byte[] body = "{\"orderId\":\"o-1\"}".getBytes(StandardCharsets.UTF_8);
                    ex.getResponseHeaders().set("Content-Type", "application/json");
                    ex.sendResponseHeaders(201, body.length);
                    ex.getResponseBody().write(body);
                    return;
                }
                int status = 429;
                switch (shedTurn.getAndIncrement() % 3) {
                    case 0 -> {
                        shedSeconds.incrementAndGet();
                        ex.getResponseHeaders().set("Retry-After", "120");
                    }
                    case 1 -> {
                        shedDate.incrementAndGet();
                        status = 503;
                        ex.getResponseHeaders().set("Date", IMF_FIXDATE.format(Instant.ofEpochMilli(now)));
                        ex.getResponseHeaders().set("Retry-After", IMF_FIXDATE.format(Instant.ofEpochMilli(now).plusSeconds(120)));
                    }
                    default -> shedNone.incrementAndGet();
                }
                ex.sendResponseHeaders(status, -1);
            }
        });
        server.createContext("/actuator/health", ShedTarget::healthUp);
        server.start();
    }

    /** Answers a Spring Boot Actuator health request: 200, status UP; a client that gave up gets nothing. */
    static void healthUp(com.sun.net.httpserver.HttpExchange ex) {
        try (ex) {
            byte[] body = "{\"status\":\"UP\"}".getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/vnd.spring-boot.actuator.v3+json");
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
        } catch (IOException clientGone) {
            // the probe's deadline passed
        }
    }

    /** Whether a request arriving in {@code epochSecond} is within that second's capacity. */
    private synchronized boolean admit(long epochSecond) {
        if (second.get() != epochSecond) {
            second.set(epochSecond);
            inSecond.set(0);
        }
        return inSecond.incrementAndGet() <= capacityPerS;
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
