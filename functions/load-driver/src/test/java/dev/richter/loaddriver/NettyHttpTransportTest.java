package dev.richter.loaddriver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.Counters;
import dev.richter.common.model.WorkerResult;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NettyHttpTransportTest {
    private static WorkerResult run(HttpTransport transport, String url, double qps, int timeoutMs) {
        return new LoadDriver(transport, new ResultSink.InMemory(), id -> false)
                .run(LoadDriverTest.task(url, qps, 1, 0, 1, 0, timeoutMs, 64, 1000));
    }

    /** With one connection allowed, requests queue for it within their deadline instead of opening more. */
    @Test
    void requestsWaitForAFreeConnectionUnderTheCap() throws Exception {
        try (TestServer server = new TestServer(50);
             NettyHttpTransport transport = new NettyHttpTransport(1, Duration.ofSeconds(1), 1)) {
            long t0 = System.nanoTime();
            Counters c = run(transport, server.baseUrl(), 20, 3000).counters();
            long tookMs = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(20, c.ok(), "20 requests at 20 QPS, served one at a time (50 ms each)");
            assertTrue(tookMs >= 1000, "serialized on one connection: " + tookMs);
        }
    }

    /** Requests that wait longer than their deadline time out; nothing is lost. */
    @Test
    void waitingRequestsTimeOutAtTheirDeadline() throws Exception {
        try (TestServer server = new TestServer(200);
             NettyHttpTransport transport = new NettyHttpTransport(1, Duration.ofSeconds(1), 1)) {
            Counters c = run(transport, server.baseUrl(), 20, 300).counters();
            assertEquals(20, c.sent());
            assertEquals(20, c.ok() + c.timeouts(), c.toString());
            assertTrue(c.timeouts() >= 10, c.toString());
            assertTrue(c.ok() >= 1, c.toString()); // a request served only if it waited < 100 ms
        }
    }

    @Test
    void httpsIsRejectedAtPrepare() {
        try (NettyHttpTransport transport = new NettyHttpTransport()) {
            assertThrows(IllegalArgumentException.class, () -> transport.prepare(new OutboundRequest(
                    URI.create("https://example.test/"), "GET", Map.of(), new byte[0], 1000)));
        }
    }

    @Test
    void schemeRoutingSendsHttpsToTheOtherTransport() {
        int[] calls = new int[2];
        HttpTransport a = new HttpTransport() {
            @Override
            public PreparedRequest prepare(OutboundRequest r) {
                calls[0]++;
                return null;
            }

            @Override
            public void close() {}
        };
        HttpTransport b = new HttpTransport() {
            @Override
            public PreparedRequest prepare(OutboundRequest r) {
                calls[1]++;
                return null;
            }

            @Override
            public void close() {}
        };
        SchemeRoutingTransport routing = new SchemeRoutingTransport(a, b);
        routing.prepare(new OutboundRequest(URI.create("http://h/"), "GET", Map.of(), new byte[0], 1));
        routing.prepare(new OutboundRequest(URI.create("https://h/"), "GET", Map.of(), new byte[0], 1));
        routing.prepare(new OutboundRequest(URI.create("HTTP://h/"), "GET", Map.of(), new byte[0], 1));
        assertEquals(2, calls[0]);
        assertEquals(1, calls[1]);
    }
}
