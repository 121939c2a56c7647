package dev.richter.loaddriver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.Counters;
import dev.richter.common.model.Marker;
import dev.richter.common.model.ReplayRequest;
import dev.richter.common.model.Scenario;
import dev.richter.common.model.WorkerResult;
import dev.richter.common.model.WorkerTask;
import io.netty.handler.ssl.ApplicationProtocolNames;
import java.net.URI;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class NettyHttpTransportTest {
    private static WorkerResult run(HttpTransport transport, String url, double qps, int timeoutMs) {
        return new LoadDriver(transport, new ResultSink.InMemory(), id -> false)
                .run(LoadDriverTest.task(url, qps, 1, 0, 1, 0, timeoutMs, 64, 1000));
    }

    /** A loopback socket server that accepts every connection and never answers; its sockets are the test's to read. */
    private static final class Acceptor implements AutoCloseable {
        final java.net.ServerSocket server;
        final List<java.net.Socket> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final Thread thread;

        Acceptor() throws java.io.IOException {
            server = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
            thread = Thread.ofVirtual().start(() -> {
                try {
                    while (true) accepted.add(server.accept());
                } catch (java.io.IOException closed) {
                    // the test ends
                }
            });
        }

        String url() {
            return "http://127.0.0.1:" + server.getLocalPort() + "/";
        }

        /** Waits up to {@code seconds} for {@code n} connections, then 200 ms more for any beyond them. */
        void awaitConnections(int n, int seconds) throws InterruptedException {
            long deadline = System.nanoTime() + seconds * 1_000_000_000L;
            while (accepted.size() < n && System.nanoTime() < deadline) Thread.sleep(10);
            Thread.sleep(200);
        }

        @Override
        public void close() throws Exception {
            server.close();
            thread.join(1000);
            for (java.net.Socket s : accepted) s.close();
        }
    }

    /**
     * preconnect for 20 in flight over HTTP/1.1 opens 20 connections, although at most 8 attempts run at once: each
     * one ready opens the next (it stopped at the first 8).
     */
    @Test
    void preconnectOpensOneConnectionPerRequestInFlightPastTheAttemptsAtOnce() throws Exception {
        try (Acceptor server = new Acceptor();
             NettyHttpTransport transport = new NettyHttpTransport(1, Duration.ofSeconds(1), 30)) {
            HttpTransport.PreparedRequest r = transport.prepare(new OutboundRequest(URI.create(server.url()), "GET",
                    Map.of(), new byte[0], 2000));
            assertEquals(30, r.inFlightCapacity(), "HTTP/1.1: one request per connection, 30 connections");
            r.preconnect(20);
            server.awaitConnections(20, 5);
            assertEquals(20, server.accepted.size(), "one connection per request in flight, none more");
        }
    }

    /**
     * preconnect opens the connections a worker asks for in its lead, each at most once, within the per-host cap, and
     * sends nothing on them; the first request then goes out on one of them instead of opening another.
     */
    @Test
    void preconnectOpensIdleConnectionsWithoutSendingAndTheFirstRequestUsesOne() throws Exception {
        try (Acceptor server = new Acceptor();
             NettyHttpTransport transport = new NettyHttpTransport(1, Duration.ofSeconds(1), 3)) {
            List<java.net.Socket> accepted = server.accepted;
            HttpTransport.PreparedRequest r = transport.prepare(new OutboundRequest(URI.create(server.url()), "GET",
                    Map.of(), new byte[0], 2000));
            r.preconnect(5);
            r.preconnect(5); // idempotent: already open or opening
            server.awaitConnections(3, 2);
            long deadline = System.nanoTime();
            assertEquals(3, accepted.size(), "5 asked for, 3 allowed per host, none twice");
            for (java.net.Socket s : accepted) {
                assertEquals(0, s.getInputStream().available(), "nothing is sent on a preconnected connection");
            }
            var answer = r.send();
            byte[] buf = new byte[256];
            java.net.Socket carrier = null;
            while (carrier == null && System.nanoTime() < deadline + 2_000_000_000L) {
                for (java.net.Socket s : accepted) {
                    if (s.getInputStream().available() > 0) carrier = s;
                }
                Thread.sleep(5);
            }
            assertTrue(carrier != null, "the request went out on a preconnected connection");
            int n = carrier.getInputStream().read(buf);
            assertTrue(new String(buf, 0, n, java.nio.charset.StandardCharsets.US_ASCII).startsWith("GET / HTTP/1.1\r\n"));
            carrier.getOutputStream().write("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            assertEquals(200, answer.get(2, java.util.concurrent.TimeUnit.SECONDS).status());
            assertEquals(3, accepted.size(), "no further connection opened");
        }
    }

    /**
     * {@code n} requests sent at once to one target, each awaited to its outcome: per request its status, or the class
     * of the exception it failed with.
     */
    private static List<Object> sendAtOnce(NettyHttpTransport transport, String url, int n, int timeoutMs) throws Exception {
        HttpTransport.PreparedRequest r = transport.prepare(new OutboundRequest(URI.create(url + "/"), "GET", Map.of(),
                new byte[0], timeoutMs));
        List<java.util.concurrent.CompletableFuture<HttpTransport.ResponseHead>> sent = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            sent.add(r.send());
        }
        List<Object> outcomes = new java.util.ArrayList<>();
        for (var f : sent) {
            try {
                outcomes.add(f.get(timeoutMs + 5000, java.util.concurrent.TimeUnit.MILLISECONDS).status());
            } catch (java.util.concurrent.ExecutionException e) {
                outcomes.add(e.getCause().getClass());
            }
        }
        return outcomes;
    }

    /**
     * With one connection allowed, requests sent at once queue for it within their deadline instead of opening more
     * (the load driver keeps no more in flight than the connections carry, {@link HttpTransport.PreparedRequest#inFlightCapacity};
     * requests still wait while a connection opens, or when workers share a transport).
     */
    @Test
    void requestsWaitForAFreeConnectionUnderTheCap() throws Exception {
        try (TestServer server = new TestServer(50);
             NettyHttpTransport transport = new NettyHttpTransport(1, Duration.ofSeconds(1), 1)) {
            long t0 = System.nanoTime();
            List<Object> outcomes = sendAtOnce(transport, server.baseUrl(), 20, 3000);
            long tookMs = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(java.util.Collections.nCopies(20, 200), outcomes, "20 requests served one at a time (50 ms each)");
            assertTrue(tookMs >= 1000, "serialized on one connection: " + tookMs);
        }
    }

    /** Requests that wait longer than their deadline time out; nothing is lost. */
    @Test
    void waitingRequestsTimeOutAtTheirDeadline() throws Exception {
        try (TestServer server = new TestServer(200);
             NettyHttpTransport transport = new NettyHttpTransport(1, Duration.ofSeconds(1), 1)) {
            List<Object> outcomes = sendAtOnce(transport, server.baseUrl(), 20, 300);
            long ok = outcomes.stream().filter(o -> o.equals(200)).count();
            long timeouts = outcomes.stream().filter(o -> o.equals(java.net.http.HttpTimeoutException.class)).count();
            assertEquals(20, ok + timeouts, outcomes.toString());
            assertEquals(1, ok, "the first, served in 200 ms; the next waits for it and then 200 ms more, past 300 ms");
        }
    }

    /**
     * Deadlines out of send order on one target: a request with a 200 ms deadline sent after one with 5 s still times
     * out at its own deadline (the pool's deadline queue holds requests in deadline order; this one gets its own timer),
     * while the first, answered after 1 s, succeeds.
     */
    @Test
    void aShorterDeadlineBehindALongerOneStillTimesOutFirst() throws Exception {
        try (TestServer server = new TestServer(1000); NettyHttpTransport transport = new NettyHttpTransport()) {
            URI uri = URI.create(server.baseUrl() + "/");
            var slow = transport.prepare(new OutboundRequest(uri, "GET", Map.of(), new byte[0], 5000)).send();
            var fast = transport.prepare(new OutboundRequest(uri, "GET", Map.of(), new byte[0], 200)).send();
            var failure = assertThrows(java.util.concurrent.ExecutionException.class, fast::get);
            assertTrue(failure.getCause() instanceof java.net.http.HttpTimeoutException, failure.toString());
            assertTrue(!slow.isDone(), "the 5 s request is still waiting for its 1 s answer when the 200 ms one timed out");
            assertEquals(200, slow.get().status());
        }
    }

    /** A connection that never opens frees its slot: with 2 allowed, 40 refused requests are 40 connect errors. */
    @Test
    void refusedConnectionsNeverUseUpTheCap() throws Exception {
        int port;
        try (var s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (NettyHttpTransport transport = new NettyHttpTransport(1, Duration.ofSeconds(1), 2)) {
            Counters c = run(transport, "http://127.0.0.1:" + port, 40, 2000).counters();
            assertEquals(40, c.connectErrors(), c.toString());
            assertEquals(0, c.timeouts(), c.toString());
        }
    }

    /** The native epoll transport loads where the Lambda runs (Linux x86_64); elsewhere NIO serves. */
    @Test
    void nativeTransportOnLinuxX86_64() {
        Assumptions.assumeTrue(System.getProperty("os.name").toLowerCase().contains("linux")
                && System.getProperty("os.arch").matches("amd64|x86_64"));
        try (NettyHttpTransport transport = new NettyHttpTransport()) {
            assertTrue(transport.nativeTransport(), "epoll: " + io.netty.channel.epoll.Epoll.unavailabilityCause());
        }
    }

    private static final byte[] BINARY = new byte[256];

    static {
        for (int i = 0; i < 256; i++) {
            BINARY[i] = (byte) i;
        }
    }

    /** GET with an existing baggage member and query, POST with a binary body, 30 QPS for 1 s. */
    private static WorkerTask mixTask(String baseUrl, int timeoutMs) {
        List<ReplayRequest> reqs = List.of(
                new ReplayRequest("GET", "/a?x=1", Map.of("baggage", "lt.route=GET%20%2Fa"), null),
                new ReplayRequest("POST", "/b", Map.of("content-type", "application/octet-stream", "Host", "elsewhere",
                        "Connection", "keep-alive"), Base64.getEncoder().encodeToString(BINARY)));
        return new WorkerTask("run-h2", "team-a", "formal", 0, 30, 1, 0, 1, 0, timeoutMs, 256, 1000, Marker.DEFAULT,
                List.of(new Scenario("mix", "svc", baseUrl, 1, reqs)));
    }

    private static void assertMixSeen(Http2TestServer server, String protocol) {
        assertEquals(30, server.seen.size());
        for (Http2TestServer.Seen s : server.seen) {
            assertEquals(protocol, s.protocol());
            List<Baggage.Member> members = Baggage.parse(s.baggage());
            assertEquals("richter-loadtest", members.get(0).key(), "marker on every request: " + s.baggage());
            if (s.method().equals("GET")) {
                assertEquals("/a?x=1", s.path());
                assertEquals("GET /a", members.get(1).value());
                assertEquals(0, s.body().length);
            } else {
                assertEquals("POST", s.method());
                assertEquals("/b", s.path());
                org.junit.jupiter.api.Assertions.assertArrayEquals(BINARY, s.body());
            }
        }
    }

    private static NettyHttpTransport.Options options() {
        return NettyHttpTransport.Options.DEFAULT;
    }

    /** h2c with prior knowledge: every request on one connection, marker, query and binary body intact. */
    @Test
    void h2cCarriesTheMixOnOneConnection() throws Exception {
        try (Http2TestServer server = new Http2TestServer(0, null);
             NettyHttpTransport transport = new NettyHttpTransport(1, options().withCleartext(NettyHttpTransport.Protocol.HTTP_2))) {
            WorkerResult r = new LoadDriver(transport, new ResultSink.InMemory(), id -> false).run(mixTask(server.baseUrl(), 2000));
            assertEquals(30, r.counters().ok(), r.counters().toString());
            assertMixSeen(server, "h2");
            assertEquals(1, server.connections.get());
        }
    }

    /** https offering h2: ALPN picks h2 where the server has it, http/1.1 where it has only that. */
    @Test
    void httpsSpeaksWhatAlpnPicks() throws Exception {
        for (List<String> serverAlpn : List.of(List.of(ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1),
                List.of(ApplicationProtocolNames.HTTP_1_1))) {
            try (Http2TestServer server = new Http2TestServer(0, serverAlpn);
                 NettyHttpTransport transport = new NettyHttpTransport(1, options()
                         .withTls(NettyHttpTransport.Protocol.HTTP_2).withTrust(server.trust()))) {
                WorkerResult r = new LoadDriver(transport, new ResultSink.InMemory(), id -> false)
                        .run(mixTask(server.baseUrl(), 3000));
                assertEquals(30, r.counters().ok(), serverAlpn + " " + r.counters());
                assertMixSeen(server, serverAlpn.size() == 2 ? "h2" : "http/1.1");
            }
        }
    }

    /** https offering http/1.1 only speaks it to an h2-capable server; an untrusted certificate is a connect error. */
    @Test
    void httpsOffersOnlyHttp11WhenAskedAndChecksTheCertificate() throws Exception {
        List<String> both = List.of(ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1);
        try (Http2TestServer server = new Http2TestServer(0, both);
             NettyHttpTransport transport = new NettyHttpTransport(1, options()
                     .withTls(NettyHttpTransport.Protocol.HTTP_1_1).withTrust(server.trust()));
             NettyHttpTransport untrusting = new NettyHttpTransport(1, options().withTls(NettyHttpTransport.Protocol.HTTP_2))) {
            WorkerResult r = new LoadDriver(transport, new ResultSink.InMemory(), id -> false).run(mixTask(server.baseUrl(), 3000));
            assertEquals(30, r.counters().ok(), r.counters().toString());
            assertMixSeen(server, "http/1.1");
            Counters c = run(untrusting, server.baseUrl(), 5, 3000).counters();
            assertEquals(5, c.connectErrors(), c.toString());
        }
    }

    /** Streams above the server's MAX_CONCURRENT_STREAMS (100) wait for free ones on the one allowed connection. */
    @Test
    void h2StreamsOverTheServerLimitWaitForAFreeOne() throws Exception {
        try (Http2TestServer server = new Http2TestServer(500, null);
             NettyHttpTransport transport = new NettyHttpTransport(1, options()
                     .withCleartext(NettyHttpTransport.Protocol.HTTP_2).withMaxConnectionsPerHost(1))) {
            Counters c = new LoadDriver(transport, new ResultSink.InMemory(), id -> false)
                    .run(LoadDriverTest.task(server.baseUrl() + "/slow", 300, 1, 0, 1, 0, 5000, 1000, 1000)).counters();
            assertEquals(300, c.ok(), c.toString());
            assertEquals(1, server.connections.get());
        }
    }

    /** A deadline resets its stream, not the connection; HTTP errors are counted by status. */
    @Test
    void h2DeadlinesResetStreamsAndStatusesAreCounted() throws Exception {
        try (Http2TestServer server = new Http2TestServer(2000, null);
             NettyHttpTransport transport = new NettyHttpTransport(1, options().withCleartext(NettyHttpTransport.Protocol.HTTP_2))) {
            Counters slow = run(transport, server.baseUrl() + "/slow", 10, 300).counters();
            assertEquals(10, slow.timeouts(), slow.toString());
            Counters fail = run(transport, server.baseUrl() + "/fail", 10, 2000).counters();
            assertEquals(Map.of("503", 10L), fail.httpErrors(), fail.toString());
            assertEquals(1, server.connections.get(), "the connection outlived the reset streams");
        }
    }

    /**
     * A server that ends each connection with GOAWAY after 25 streams: requests it never processed start again
     * elsewhere, so all 200 are answered, and each connection after the first follows a GOAWAY. How many streams one
     * connection carries past its 25th (those the client opened before the GOAWAY reached it) depends on timing, so
     * the number of connections is bounded by the GOAWAYs, not by 200 / 25.
     */
    @Test
    void h2RequestsAboveAGoAwayStartAgainOnANewConnection() throws Exception {
        try (Http2TestServer server = new Http2TestServer(0, null);
             NettyHttpTransport transport = new NettyHttpTransport(1, options().withCleartext(NettyHttpTransport.Protocol.HTTP_2))) {
            server.goAwayAfterStreams = 25;
            Counters c = new LoadDriver(transport, new ResultSink.InMemory(), id -> false)
                    .run(LoadDriverTest.task(server.baseUrl(), 200, 1, 0, 1, 0, 2000, 1000, 1000)).counters();
            assertEquals(200, c.ok(), c.toString());
            int goAways = server.goAways.get();
            int connections = server.connections.get();
            assertTrue(goAways >= 2, "GOAWAYs " + goAways);
            assertTrue(connections == goAways || connections == goAways + 1,
                    "connections " + connections + " after " + goAways + " GOAWAYs");
        }
    }

    /**
     * RFC 9113 §8.7: a stream the server refused with {@code REFUSED_STREAM} was not processed, so the client may start
     * it again. The server refuses the first 6 of 60: all 60 are answered, the server processed each once, and the
     * worker's counters count the 6 exchanges started again.
     */
    @Test
    void h2StreamsTheServerRefusedStartAgainAndAreCounted() throws Exception {
        try (Http2TestServer server = new Http2TestServer(0, null);
             NettyHttpTransport transport = new NettyHttpTransport(1, options().withCleartext(NettyHttpTransport.Protocol.HTTP_2))) {
            server.refuseStreams.set(6);
            Counters c = new LoadDriver(transport, new ResultSink.InMemory(), id -> false)
                    .run(LoadDriverTest.task(server.baseUrl(), 60, 1, 0, 1, 0, 2000, 1000, 1000)).counters();
            assertEquals(60, c.ok(), c.toString());
            assertEquals(0, c.connectErrors() + c.timeouts(), c.toString());
            assertEquals(6, server.refused.get());
            assertEquals(60, server.seen.size(), "each request processed once");
            assertEquals(6, c.retried(), c.toString());
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

    /**
     * A prepared request's encoded bytes are freed with it, never reported as a leak: a worker drops its prepared
     * requests at the end of a run, and a redirect whose Location changes each time is encoded per send. Netty's leak
     * detector at PARANOID tracks every buffer its allocators hand out; each one collected unreleased is a LEAK report
     * (the records of this test's own call stack are reported once per JVM, so earlier tests cannot hide them).
     */
    @Test
    void droppedPreparedRequestsAreNeverReportedAsLeaks() throws Exception {
        java.lang.reflect.Field field = io.netty.buffer.AbstractByteBuf.class.getDeclaredField("leakDetector");
        field.setAccessible(true);
        @SuppressWarnings("unchecked")
        io.netty.util.ResourceLeakDetector<io.netty.buffer.ByteBuf> detector =
                (io.netty.util.ResourceLeakDetector<io.netty.buffer.ByteBuf>) field.get(null);
        List<String> leaks = new java.util.concurrent.CopyOnWriteArrayList<>();
        io.netty.util.ResourceLeakDetector.Level level = io.netty.util.ResourceLeakDetector.getLevel();
        io.netty.util.ResourceLeakDetector.setLevel(io.netty.util.ResourceLeakDetector.Level.PARANOID);
        detector.setLeakListener((type, records) -> leaks.add(records));
        try (NettyHttpTransport transport = new NettyHttpTransport(1, Duration.ofSeconds(1), 1)) {
            for (int i = 0; i < 200; i++) {
                transport.prepare(new OutboundRequest(URI.create("http://127.0.0.1:9/orders/" + i), "POST",
                        Map.of("content-type", "application/json"), ("{\"n\":" + i + "}").getBytes(), 1000));
            }
            // a leak is reported when the detector next tracks a buffer after the collection queued it
            for (int round = 0; round < 10; round++) {
                System.gc();
                Thread.sleep(20);
                io.netty.buffer.Unpooled.directBuffer(1).release();
            }
        } finally {
            detector.setLeakListener(null);
            io.netty.util.ResourceLeakDetector.setLevel(level);
        }
        List<String> ours = leaks.stream().filter(r -> r.contains("droppedPreparedRequestsAreNeverReportedAsLeaks")).toList();
        assertEquals(List.of(), ours, "LEAK reports of prepared requests");
    }
}
