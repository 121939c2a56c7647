package dev.richter.loaddriver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.richter.common.Json;
import dev.richter.common.model.Counters;
import dev.richter.common.model.Expectation;
import dev.richter.common.model.Marker;
import dev.richter.common.model.ReplayRequest;
import dev.richter.common.model.Scenario;
import dev.richter.common.model.WorkerTask;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A worker against a real loopback order service that answers as the demo shop's does (examples/shop/order): a placed
 * order is {@code 201 {"status":"PLACED"}}, the fallback when inventory fails {@code 200 {"status":"ACCEPTED",
 * "degraded":true}}, and one answer is a body past the 64 KiB the driver keeps. Every answer is 2xx, so without
 * expectations all would be ok; with them, exactly the degraded ones are {@code check-failed}, in the step's counters
 * and in the windows, and the one past the limit is {@code unchecked} (Richter's limit, not the target's failure), on
 * both transports (Netty and the JDK client, HTTP/1.1).
 */
class DegradedAnswersTest {
    /** The shop plan's expectation (examples/shop/plan.json). */
    private static final Expectation SHOP = new Expectation(List.of(201),
            List.of(new Expectation.JsonCheck("$.status", Expectation.CheckKind.EQUALS, Json.read("\"PLACED\"", JsonNode.class))),
            Map.of(), 0);
    /** Any 200 or 201 that is not degraded. */
    private static final Expectation NOT_DEGRADED = new Expectation(List.of(200, 201),
            List.of(new Expectation.JsonCheck("$.degraded", Expectation.CheckKind.ABSENT, null)), Map.of(), 0);

    static Stream<Supplier<HttpTransport>> transports() {
        return Stream.of(JdkHttpTransport::new, () -> new NettyHttpTransport(1, Duration.ofSeconds(2)));
    }

    /** Answers by the request's {@code x-answer} header: placed, degraded or big (a degraded 200 of 70 000 bytes). */
    private static HttpServer orderService(ExecutorService executor) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 128);
        server.createContext("/orders", exchange -> {
            try (InputStream in = exchange.getRequestBody()) {
                in.readAllBytes();
            }
            String answer = exchange.getRequestHeaders().getFirst("x-answer");
            int status = "placed".equals(answer) ? 201 : 200;
            String body = switch (answer) {
                case "placed" -> ResponseCheckTest.PLACED;
                case "degraded" -> ResponseCheckTest.DEGRADED;
                default -> "{\"status\":\"ACCEPTED\",\"degraded\":true,\"pad\":\"" + "x".repeat(70_000 - 50) + "\"}";
            };
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        server.setExecutor(executor);
        server.start();
        return server;
    }

    private static ReplayRequest order(String answer, Expectation expect) {
        return new ReplayRequest("POST", "/orders", Map.of("x-answer", answer, "content-type", "application/json"),
                java.util.Base64.getEncoder().encodeToString("{\"sku\":\"sku-1\",\"qty\":1}".getBytes(StandardCharsets.UTF_8)),
                expect);
    }

    @ParameterizedTest
    @MethodSource("transports")
    void exactlyTheDegradedAnswersAreCheckFailed(Supplier<HttpTransport> transports) throws Exception {
        ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
        HttpServer server = orderService(executor);
        try (HttpTransport transport = transports.get()) {
            String base = "http://127.0.0.1:" + server.getAddress().getPort();
            // round-robin over 6 requests, 30 QPS for 2 s: 10 of each
            List<ReplayRequest> requests = List.of(order("placed", SHOP), order("degraded", SHOP),
                    order("placed", NOT_DEGRADED), order("degraded", NOT_DEGRADED), order("big", NOT_DEGRADED),
                    order("degraded", Expectation.NONE));
            WorkerTask task = new WorkerTask("run-d", "team-a", "formal", 0, 30, 2, 0, 1, System.currentTimeMillis() + 300,
                    2000, 64, 200, Marker.DEFAULT, List.of(new Scenario("orders", "order", base, 1, requests)));
            ResultSink.InMemory sink = new ResultSink.InMemory();
            new LoadDriver(transport, sink, runId -> false).run(task);

            Counters c = sink.results().get(0).counters();
            assertEquals(60, c.sent());
            assertEquals(40, c.ok(), c.toString());
            assertEquals(10, c.unchecked(), "the big bodies: over Richter's kept-body limit, not the target's failure");
            assertEquals(20, c.checkFailed(), c.toString());
            assertEquals(Map.of(), c.httpErrors());
            assertEquals(Map.of("status 200, expected 201", 10L,
                    "$.degraded is present (true), expected absent", 10L), c.checkFailures());
            assertEquals(20, c.errors());
            List<Window> windows = sink.windows();
            assertEquals(20, windows.stream().mapToLong(Window::checkFailed).sum());
            assertEquals(20, windows.stream().mapToLong(Window::errors).sum());
            assertEquals(60, windows.stream().mapToLong(Window::count).sum());
        } finally {
            server.stop(0);
            executor.shutdownNow();
        }
    }
}
