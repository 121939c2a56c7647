package dev.richter.local;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A real HTTP service on loopback without a deadline of its own: one worker thread serves every request in arrival
 * order, {@code POST /orders} taking {@link #serviceMs} each, so above {@code 1000 / serviceMs} requests a second its
 * queue, and with it every response time, grows until clients give up. {@code GET /actuator/health} waits in the same
 * queue, as a health endpoint on a saturated server does.
 */
final class QueueingTarget implements AutoCloseable {
    final long serviceMs;
    private final ExecutorService worker = Executors.newSingleThreadExecutor();
    private final HttpServer server;

    QueueingTarget(long serviceMs) throws IOException {
        this.serviceMs = serviceMs;
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 4096);
        OwnershipTokens.serve(server);
        server.setExecutor(worker);
        server.createContext("/orders", ex -> {
            try (ex) {
                ex.getRequestBody().readAllBytes();
                Thread.sleep(serviceMs);
                byte[] body = "{\"orderId\":\"o-1\"}".getBytes(StandardCharsets.UTF_8);
                ex.getResponseHeaders().set("Content-Type", "application/json");
                ex.sendResponseHeaders(201, body.length);
                ex.getResponseBody().write(body);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException clientGone) {
                // the client's deadline passed while the request waited: nothing to answer
            }
        });
        server.createContext("/actuator/health", ShedTarget::healthUp);
        server.start();
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        worker.shutdownNow();
    }
}
