package dev.richter.loaddriver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.Counters;
import dev.richter.common.model.HistogramCodec;
import dev.richter.common.model.Marker;
import dev.richter.common.model.ReplayRequest;
import dev.richter.common.model.Scenario;
import dev.richter.common.model.WorkerResult;
import dev.richter.common.model.WorkerTask;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.HdrHistogram.Histogram;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class LoadDriverTest {
    private static final long MS = 1_000_000L;

    static WorkerTask task(String baseUrl, double qps, int durationS, int k, int n, long startEpochMs, int timeoutMs,
                           int maxInFlight, int lateMs) {
        ReplayRequest get = new ReplayRequest("GET", "/api/orders?page=1", Map.of("baggage", "lt.route=GET%20%2Fapi%2Forders"), null);
        return new WorkerTask("run-1", "team-a", "formal", 2, qps, durationS, k, n, startEpochMs, timeoutMs, maxInFlight,
                lateMs, Marker.DEFAULT, List.of(new Scenario("browse", "order-svc", baseUrl, 1, List.of(get))));
    }

    /** Both transports run the real-socket tests. */
    static Stream<Supplier<HttpTransport>> transports() {
        return Stream.of(JdkHttpTransport::new, () -> new NettyHttpTransport(1, Duration.ofSeconds(2)));
    }

    private static LoadDriver driver(HttpTransport transport, ResultSink sink, LoadDriver.AbortSource abort, MonotonicClock clock) {
        return new LoadDriver(transport, sink, abort, clock, System::currentTimeMillis, LoadDriver.Config.DEFAULT,
                LoadDriver.SendObserver.NONE);
    }

    /** A transport on virtual time: every response arrives {@code latencyNanos} after its send. */
    private static final class VirtualTransport implements HttpTransport {
        final VirtualClock clock;
        final long latencyNanos;
        final List<Long> starts = new ArrayList<>();

        VirtualTransport(VirtualClock clock, long latencyNanos) {
            this.clock = clock;
            this.latencyNanos = latencyNanos;
        }

        @Override
        public PreparedRequest prepare(OutboundRequest request) {
            return () -> {
                CompletableFuture<HttpTransport.ResponseHead> f = new CompletableFuture<>();
                long now = clock.nanoTime();
                starts.add(now);
                clock.at(now + latencyNanos, () -> f.complete(HttpTransport.ResponseHead.of(200)));
                return f;
            };
        }

        @Override
        public void close() {}
    }

    /**
     * Corpus case 17 (grafana/k6#2308): 1 QPS for 30 s, each iteration 1.9 s. Open model on virtual time:
     * 30 starts at t = 0..29 s; with the concurrency capped at 1 (k6's single VU) 15 start and 15 are
     * counted dropped — never 15 reported as the plan.
     */
    @Test
    void corpusCase17_lowRateSlowIterations_virtualTime() {
        for (int maxInFlight : new int[] {64, 1}) {
            VirtualClock clock = new VirtualClock(0);
            VirtualTransport transport = new VirtualTransport(clock, 1_900 * MS);
            ResultSink.InMemory sink = new ResultSink.InMemory();
            WorkerResult r = driver(transport, sink, id -> false, clock)
                    .run(task("http://h", 1, 30, 0, 1, 0, 5000, maxInFlight, 10));
            Counters c = r.counters();
            assertEquals(30, c.due());
            if (maxInFlight == 64) {
                assertEquals(30, c.sent());
                assertEquals(0, c.dropped());
                for (int i = 0; i < 30; i++) {
                    assertEquals(i * 1000 * MS, (long) transport.starts.get(i), "start " + i + " at " + i + " s");
                }
                Histogram h = HistogramCodec.decode(r.latencyFromIntendedHist());
                assertTrue(h.valuesAreEquivalent(1_900_000, h.getValueAtPercentile(50)), "latency 1.9 s");
                assertEquals(29_000, r.lastSentAtMs() - r.startedAtMs(), "the last send at t = 29 s, not its answer's 30.9 s");
            } else {
                assertEquals(15, c.sent());
                assertEquals(15, c.dropped());
                assertEquals(2000 * MS, (long) transport.starts.get(1));
                assertEquals(28_000, r.lastSentAtMs() - r.startedAtMs(), "the 15th send at t = 28 s");
            }
            assertEquals(c.sent(), c.ok());
            assertEquals(0, c.late());
            assertEquals(c.sent(), c.marked());
            assertEquals(1, sink.results().size());
        }
    }

    /**
     * Send lateness on virtual time: 100 QPS for 1 s (due every 10 ms), the 11th send stalls the scheduler's thread for
     * 25 ms. Requests 11 and 12 (due at 110 and 120 ms) leave at 125 ms, 15 and 5 ms late; the others on time. The
     * histogram given at the end holds exactly those 100 values, in microseconds.
     */
    @Test
    void sendLatenessIsEachSendTimeMinusItsDueTime_virtualTime() {
        VirtualClock clock = new VirtualClock(0);
        List<Long> sendTimes = new ArrayList<>();
        HttpTransport stalling = new HttpTransport() {
            @Override
            public PreparedRequest prepare(OutboundRequest request) {
                return () -> {
                    sendTimes.add(clock.nanoTime());
                    if (sendTimes.size() == 11) {
                        clock.advance(25 * MS);
                    }
                    return CompletableFuture.completedFuture(HttpTransport.ResponseHead.of(200));
                };
            }

            @Override
            public void close() {}
        };
        Histogram[] lateness = new Histogram[1];
        LoadDriver.SendObserver observer = new LoadDriver.SendObserver() {
            @Override
            public void onSend(long index, long dueNanos, long sendNanos) {
            }

            @Override
            public void onSendLateness(Histogram sendLatenessUs) {
                lateness[0] = sendLatenessUs;
            }
        };
        WorkerResult r = new LoadDriver(stalling, new ResultSink.InMemory(), id -> false, clock, System::currentTimeMillis,
                LoadDriver.Config.DEFAULT, observer).run(task("http://h", 100, 1, 0, 1, 0, 5000, 64, 10));
        assertEquals(100, r.counters().sent());
        assertEquals(125 * MS, (long) sendTimes.get(11), "request 11 (due at 110 ms) leaves when the stall ends");
        assertEquals(125 * MS, (long) sendTimes.get(12), "request 12 (due at 120 ms) too");
        assertEquals(130 * MS, (long) sendTimes.get(13), "request 13 on time");
        Histogram h = lateness[0];
        assertEquals(100, h.getTotalCount());
        assertEquals(98, h.getCountAtValue(0), "98 sends on time");
        assertEquals(1, h.getCountAtValue(15_000), "request 11: 15 ms late");
        assertEquals(1, h.getCountAtValue(5_000), "request 12: 5 ms late");
        assertEquals(1, r.counters().late(), "only request 11 is over the 10 ms tolerance");
    }

    /** Corpus case 17 on real sockets, time scaled by 1/10: 10 QPS for 3 s against a server taking 190 ms. */
    @ParameterizedTest
    @MethodSource("transports")
    void corpusCase17_lowRateSlowIterations_realServerScaled(Supplier<HttpTransport> transports) throws Exception {
        try (TestServer server = new TestServer(190); HttpTransport transport = transports.get()) {
            ResultSink.InMemory sink = new ResultSink.InMemory();
            WorkerResult r = driver(transport, sink, id -> false, MonotonicClock.system())
                    .run(task(server.baseUrl(), 10, 3, 0, 1, 0, 2000, 64, 50));
            assertEquals(30, server.seen.size(), "30 starts in 3 s although each takes 190 ms");
            assertEquals(30, r.counters().ok());
            assertEquals(0, r.counters().dropped());
            long spanMs = (server.seen.get(29).arrivalNanos() - server.seen.get(0).arrivalNanos()) / MS;
            // on real sockets the span tells an open model from its two failures, not the schedule's precision (exact on
            // virtual time above, and a shared machine's scheduling moves the first arrival): a burst spans ~0 s, a
            // sender waiting for each 190 ms answer (a closed model) 5.7 s
            assertTrue(spanMs > 2000 && spanMs < 4500, "starts spread over ~2.9 s, was " + spanMs);
            long windowed = sink.windows().stream().mapToLong(Window::count).sum();
            assertEquals(30, windowed, "every outcome is in exactly one per-second window");
            for (Window w : sink.windows()) {
                assertTrue(w.sortKey().matches("window#formal#002#\\d{10}#0000#0000"), w.sortKey());
                assertEquals(w.count(), HistogramCodec.decode(w.hist()).getTotalCount());
            }
        }
    }

    /** Three workers of one step against a real server: exact total, marker merged on every request, binary body intact. */
    @ParameterizedTest
    @MethodSource("transports")
    void threeWorkerStepSendsExactCountsWithTheMarker(Supplier<HttpTransport> transports) throws Exception {
        byte[] binary = new byte[256];
        for (int i = 0; i < 256; i++) {
            binary[i] = (byte) i;
        }
        try (TestServer server = new TestServer(0); HttpTransport transport = transports.get()) {
            ResultSink.InMemory sink = new ResultSink.InMemory();
            long start = System.currentTimeMillis() + 300;
            List<ReplayRequest> reqs = List.of(
                    new ReplayRequest("GET", "/a?x=1", Map.of("baggage", "lt.route=GET%20%2Fa, bad member"), null),
                    new ReplayRequest("POST", "/b", Map.of("content-type", "application/octet-stream",
                            "Content-Length", "999", "Host", "elsewhere"), Base64.getEncoder().encodeToString(binary)));
            ExecutorService pool = Executors.newFixedThreadPool(3);
            List<Future<WorkerResult>> futures = new ArrayList<>();
            for (int k = 0; k < 3; k++) {
                WorkerTask t = new WorkerTask("run-3", "team-a", "formal", 0, 30, 2, k, 3, start, 2000, 64, 50,
                        Marker.DEFAULT, List.of(new Scenario("mix", "svc", server.baseUrl() + "/", 1, reqs)));
                futures.add(pool.submit(() -> driver(transport, sink, id -> false, MonotonicClock.system()).run(t)));
            }
            Counters total = Counters.ZERO;
            for (Future<WorkerResult> f : futures) {
                WorkerResult r = f.get();
                assertEquals(20, r.counters().sent(), "each worker sends qps/n x duration");
                total = total.plus(r.counters());
            }
            pool.shutdown();
            // exact counts and the marker on real sockets; `late` (sends past the plan's lateMs) measures this shared
            // machine's scheduling, not the driver's accounting: it is held at 0 on virtual time (the tests above)
            assertEquals(new Counters(60, 60, 60, Map.of(), 0, 0, 0, total.late(), 60), total);
            assertEquals(60, server.seen.size());
            for (TestServer.Seen s : server.seen) {
                List<Baggage.Member> members = Baggage.parse(s.baggage());
                assertEquals("richter-loadtest", members.get(0).key(), "marker on every request: " + s.baggage());
                assertEquals("1", members.get(0).value());
                if (s.method().equals("GET")) {
                    assertEquals("/a?x=1", s.path());
                    assertEquals(2, members.size(), "existing member kept, only the bad one dropped");
                    assertEquals("GET /a", members.get(1).value());
                } else {
                    assertEquals("/b", s.path());
                    assertArrayEquals(binary, s.body());
                }
            }
            assertEquals(3, sink.results().size());
            // merged stream is uniform: 60 arrivals over ~1.95 s, no two workers bunched together
            List<Long> arrivals = server.seen.stream().map(TestServer.Seen::arrivalNanos).sorted().toList();
            long spanMs = (arrivals.get(59) - arrivals.get(0)) / MS;
            // paced over the step's 2 s rather than sent at once; each send's due time is held exactly on virtual time
            assertTrue(spanMs > 1500 && spanMs < 2600, "span " + spanMs);
        }
    }

    /** A hanging server: the in-flight cap turns further due requests into counted drops; the stuck ones time out. */
    @ParameterizedTest
    @MethodSource("transports")
    void inFlightCapCountsDropsAndDeadlinesCountTimeouts(Supplier<HttpTransport> transports) throws Exception {
        try (TestServer server = new TestServer(60_000); HttpTransport transport = transports.get()) {
            ResultSink.InMemory sink = new ResultSink.InMemory();
            long t = System.nanoTime();
            WorkerResult r = driver(transport, sink, id -> false, MonotonicClock.system())
                    .run(task(server.baseUrl(), 20, 1, 0, 1, 0, 1500, 2, 50));
            long tookMs = (System.nanoTime() - t) / MS;
            Counters c = r.counters();
            assertEquals(20, c.due());
            assertEquals(2, c.sent());
            assertEquals(18, c.dropped());
            assertEquals(2, c.timeouts());
            assertEquals(0, c.ok());
            assertEquals(c.due(), c.sent() + c.dropped(), "nothing silently skipped");
            assertEquals(2, r.inFlightCap(), "the task's cap, reported");
            assertEquals(2, r.peakInFlight(), "the cap bound: the peak in flight reached it");
            Histogram h = HistogramCodec.decode(r.latencyFromIntendedHist());
            assertEquals(2, h.getTotalCount(), "timeouts recorded at their deadline");
            assertTrue(h.getMinValue() >= 1_500_000, "min " + h.getMinValue());
            assertTrue(tookMs < 3500, "waited for in-flight up to the deadline only: " + tookMs);
        }
    }

    /**
     * Over HTTP/1.1 a connection carries one request at a time, so a transport of 3 connections per host carries 3 in
     * flight: with a task cap of 10 against a hanging server, the worker keeps 3 in flight and counts the rest dropped,
     * and every request it counts sent reached the server (it used to count 10 sent, 7 of them waiting in the
     * transport for a connection, never written, then timed out). The result reports the cap it kept and its peak.
     */
    @Test
    void theInFlightCapIsWhatTheConnectionsCarryAndEverySentRequestReachesTheServer() throws Exception {
        try (TestServer server = new TestServer(60_000);
             HttpTransport transport = new NettyHttpTransport(1, Duration.ofSeconds(2), 3)) {
            WorkerResult r = driver(transport, new ResultSink.InMemory(), id -> false, MonotonicClock.system())
                    .run(task(server.baseUrl(), 20, 1, 0, 1, 0, 1500, 10, 50));
            Counters c = r.counters();
            assertEquals(20, c.due());
            assertEquals(3, c.sent());
            assertEquals(17, c.dropped());
            assertEquals(3, server.seen.size(), "every request counted sent was written");
            assertEquals(3, c.timeouts());
            assertEquals(3, r.inFlightCap(), "the task's 10, lowered to the 3 connections");
            assertEquals(3, r.peakInFlight());
        }
    }

    /** Little's law for the connections a worker opens: rate × latency in flight, at least 1, at most the cap. */
    @Test
    void expectedInFlightIsRateTimesLatencyWithinTheCap() {
        assertEquals(2000, LoadDriver.expectedInFlight(10_000, 200, 5000), "10 000 QPS at 200 ms");
        assertEquals(100, LoadDriver.expectedInFlight(10_000, LoadDriver.ASSUMED_LATENCY_MS, 2000), "at 10 ms");
        assertEquals(900, LoadDriver.expectedInFlight(10_000, 200, 900), "the cap bounds it");
        assertEquals(1, LoadDriver.expectedInFlight(0.5, 1, 10), "at least one");
        assertEquals(3, LoadDriver.expectedInFlight(30, 100, 10), "3.0 is 3, not 4");
        assertEquals(0, LoadDriver.observedNeed(0, 100), "nothing in flight: nothing to open");
        assertEquals(11, LoadDriver.observedNeed(8, 100), "8 seen: a quarter more plus one");
        assertEquals(900, LoadDriver.observedNeed(2000, 900));
    }

    /** Sends later than the tolerance are counted late; latency from due includes the lateness, from send does not. */
    @Test
    void lateSendsAreCountedAndCoordinatedOmissionIsCorrected() throws Exception {
        MonotonicClock overshooting = new MonotonicClock() {
            @Override
            public long nanoTime() {
                return System.nanoTime();
            }

            @Override
            public void parkUntil(long deadlineNanos) {
                MonotonicClock.system().parkUntil(deadlineNanos + 30 * MS);
            }
        };
        try (TestServer server = new TestServer(0); JdkHttpTransport transport = new JdkHttpTransport()) {
            // warm the client: the very first send (connection, class loading) can make its successor late
            driver(transport, new ResultSink.InMemory(), id -> false, MonotonicClock.system())
                    .run(task(server.baseUrl(), 10, 1, 0, 1, 0, 2000, 64, 50));
            for (int toleranceMs : new int[] {10, 200}) {
                // one park per request (no slices), so every park overshoots its due time by exactly 30 ms
                LoadDriver.Config oneParkPerRequest = new LoadDriver.Config(500, 1000, 10_000 * MS, 1000);
                WorkerResult r = new LoadDriver(transport, new ResultSink.InMemory(), id -> false, overshooting,
                        System::currentTimeMillis, oneParkPerRequest, LoadDriver.SendObserver.NONE)
                        .run(task(server.baseUrl(), 10, 1, 0, 1, System.currentTimeMillis() + 500, 2000, 64, toleranceMs));
                assertEquals(10, r.counters().sent());
                assertEquals(toleranceMs == 10 ? 10 : 0, r.counters().late(), "tolerance " + toleranceMs);
                Histogram fromDue = HistogramCodec.decode(r.latencyFromIntendedHist());
                Histogram fromSend = HistogramCodec.decode(r.latencyFromSendHist());
                // 30 ms of lateness, less the few ms a shared machine's timers and the start's wall-clock millisecond move
                assertTrue(fromDue.getMinValue() >= 25_000, "from due includes the lateness: " + fromDue.getMinValue());
                assertTrue(fromSend.getValueAtPercentile(50) < fromDue.getValueAtPercentile(50) - 25_000,
                        "from send " + fromSend.getValueAtPercentile(50) + " from due " + fromDue.getValueAtPercentile(50));
            }
        }
    }

    @Test
    void abortStopsSendingWithinASecondAndKeepsResults() throws Exception {
        try (TestServer server = new TestServer(0); JdkHttpTransport transport = new JdkHttpTransport()) {
            ResultSink.InMemory sink = new ResultSink.InMemory();
            long t0 = System.nanoTime();
            LoadDriver.AbortSource flag = id -> System.nanoTime() - t0 > 1000 * MS;
            WorkerResult r = driver(transport, sink, flag, MonotonicClock.system())
                    .run(task(server.baseUrl(), 10, 10, 0, 1, 0, 2000, 64, 50));
            long tookMs = (System.nanoTime() - t0) / MS;
            assertTrue(r.aborted());
            // the flag is read every second; the bound is the 10 s plan, which an ignored flag would run out (the abort
            // latency itself is measured end to end by the local stack's ITs, not on a shared machine's timer here)
            assertTrue(tookMs < 4000, "stopped soon after the flag, long before the plan's 10 s: " + tookMs);
            assertTrue(r.counters().sent() >= 10 && r.counters().sent() < 40, "sent some, far fewer than the plan's 100: "
                    + r.counters().sent());
            assertEquals(r.counters().sent(), r.counters().ok());
            assertEquals(1, sink.results().size());
            assertTrue(sink.results().get(0).aborted());
        }
    }

    /**
     * An interrupted worker thread (the local Lambda host cuts a crashed or timed-out invocation so) stops sending within
     * one park slice, whether the arrivals run on its thread or on the transport's send loop, and stores no result: the
     * invocation it would return to is gone.
     */
    @ParameterizedTest
    @MethodSource("transports")
    void anInterruptedWorkerStopsSendingAndStoresNothingMore(Supplier<HttpTransport> transports) throws Exception {
        java.util.concurrent.atomic.AtomicBoolean cleanup = new java.util.concurrent.atomic.AtomicBoolean();
        try (TestServer server = new TestServer(0); HttpTransport transport = transports.get()) {
            ResultSink.InMemory sink = new ResultSink.InMemory();
            java.util.concurrent.atomic.AtomicReference<Throwable> thrown = new java.util.concurrent.atomic.AtomicReference<>();
            Thread worker = new Thread(() -> {
                try {
                    driver(transport, sink, id -> cleanup.get(), MonotonicClock.system())
                            .run(task(server.baseUrl(), 50, 10, 0, 1, 0, 2000, 64, 50));
                } catch (Throwable t) {
                    thrown.set(t);
                }
            }, "worker");
            worker.start();
            long waitUntil = System.nanoTime() + 10_000 * MS;
            while (server.seen.size() < 25 && System.nanoTime() < waitUntil) {
                Thread.sleep(20);
            }
            worker.interrupt();
            Thread.sleep(200);   // one 50 ms park slice, with room for a loaded machine
            int atStop = server.seen.size();
            Thread.sleep(500);
            boolean onSendLoop = transport instanceof NettyHttpTransport n && n.nativeTransport();
            assertTrue(server.seen.size() <= atStop + 1, "no sends after the interrupt (send loop: " + onSendLoop + "): "
                    + atStop + " then " + server.seen.size());
            assertTrue(atStop >= 25 && atStop < 100, "sent until the interrupt: " + atStop);
            worker.join(5000);
            assertFalse(worker.isAlive(), "the worker returned (send loop: " + onSendLoop + ")");
            assertTrue(thrown.get() instanceof java.util.concurrent.CancellationException, String.valueOf(thrown.get()));
            assertEquals(0, sink.results().size(), "no result stored");
        } finally {
            cleanup.set(true);
        }
    }

    @Test
    void abortFlagIsCheckedBeforeStarting() throws Exception {
        try (TestServer server = new TestServer(0); JdkHttpTransport transport = new JdkHttpTransport()) {
            ResultSink.InMemory sink = new ResultSink.InMemory();
            WorkerResult r = driver(transport, sink, id -> true, MonotonicClock.system())
                    .run(task(server.baseUrl(), 10, 10, 0, 1, 0, 2000, 64, 50));
            assertTrue(r.aborted());
            assertEquals(Counters.ZERO, r.counters());
            assertEquals(0, server.seen.size());
            assertEquals(1, sink.results().size());
        }
    }

    @Test
    void aPollThatFailsAfterTheFlagWasReadIsNotAnAbort() throws Exception {
        try (TestServer server = new TestServer(0); JdkHttpTransport transport = new JdkHttpTransport()) {
            java.util.concurrent.atomic.AtomicInteger polls = new java.util.concurrent.atomic.AtomicInteger();
            WorkerResult r = driver(transport, new ResultSink.InMemory(), id -> {
                if (polls.incrementAndGet() > 1) {
                    throw new IllegalStateException("dynamodb down");
                }
                return false;
            }, MonotonicClock.system()).run(task(server.baseUrl(), 10, 1, 0, 1, 0, 2000, 64, 50));
            assertFalse(r.aborted(), "1 s of failed polls is within the 1.5 s a worker tolerates");
            assertEquals(10, r.counters().ok());
        }
    }

    @Test
    void aWorkerThatCannotReadTheFlagWhenItStartsNeverSends() throws Exception {
        try (TestServer server = new TestServer(0); JdkHttpTransport transport = new JdkHttpTransport()) {
            List<String> reasons = new java.util.concurrent.CopyOnWriteArrayList<>();
            LoadDriver.AbortSource unreadable = new LoadDriver.AbortSource() {
                @Override
                public boolean isAbortRequested(String runId) {
                    throw new IllegalStateException("ProvisionedThroughputExceededException");
                }

                @Override
                public void requestAbort(String runId, String reason) {
                    reasons.add(reason);
                }
            };
            WorkerResult r = driver(transport, new ResultSink.InMemory(), unreadable, MonotonicClock.system())
                    .run(task(server.baseUrl(), 10, 5, 0, 1, 0, 2000, 64, 50));
            assertTrue(r.aborted());
            assertEquals(0, r.counters().sent());
            assertEquals(0, server.seen.size(), "nothing reached the target");
            assertEquals(1, reasons.size(), reasons.toString());
            assertTrue(reasons.get(0).startsWith("monitoring lost: abort flag: unreadable for 1."), reasons.get(0));
        }
    }

    @Test
    void aFlagUnreadableForTwoSecondsStopsTheWorkerAndSetsTheFlagWithWhy() throws Exception {
        try (TestServer server = new TestServer(0); JdkHttpTransport transport = new JdkHttpTransport()) {
            List<String> reasons = new java.util.concurrent.CopyOnWriteArrayList<>();
            java.util.concurrent.atomic.AtomicInteger polls = new java.util.concurrent.atomic.AtomicInteger();
            LoadDriver.AbortSource unreadable = new LoadDriver.AbortSource() {
                @Override
                public boolean isAbortRequested(String runId) {
                    if (polls.incrementAndGet() > 1) {   // read once before the first send, then throttled
                        throw new IllegalStateException("ProvisionedThroughputExceededException");
                    }
                    return false;
                }

                @Override
                public void requestAbort(String runId, String reason) {
                    reasons.add(reason);
                }
            };
            long t0 = System.nanoTime();
            WorkerResult r = driver(transport, new ResultSink.InMemory(), unreadable, MonotonicClock.system())
                    .run(task(server.baseUrl(), 10, 6, 0, 1, 0, 2000, 64, 50));
            long tookMs = (System.nanoTime() - t0) / MS;
            assertTrue(r.aborted());
            // unreadable since the read before the first send (polls every 500 ms): stopped 1.5-2.0 s into a 6 s leg
            assertTrue(tookMs >= 1500 && tookMs < 3000, "stopped after " + tookMs + " ms");
            assertTrue(r.counters().sent() >= 14 && r.counters().sent() <= 22, "sent " + r.counters().sent());
            assertEquals(1, reasons.size(), reasons.toString());
            assertTrue(reasons.get(0).matches("monitoring lost: abort flag: unreadable for (1\\.[5-9]|2\\.0) s: .*"), reasons.get(0));
            assertTrue(reasons.get(0).endsWith("ProvisionedThroughputExceededException"), reasons.get(0));
        }
    }

    /** A sink whose window writes fail while {@code failing} says so; what it stores is kept by sort key. */
    private static final class FlakySink implements ResultSink {
        final java.util.function.IntPredicate failing;
        final java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        final Map<String, Window> stored = new java.util.concurrent.ConcurrentHashMap<>();
        final List<String> writes = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<WorkerResult> results = new java.util.concurrent.CopyOnWriteArrayList<>();

        FlakySink(java.util.function.IntPredicate failing) {
            this.failing = failing;
        }

        @Override
        public void putWindows(List<Window> windows) {
            if (failing.test(calls.incrementAndGet())) {
                throw new IllegalStateException("ProvisionedThroughputExceededException");
            }
            windows.forEach(w -> {
                stored.put(w.sortKey(), w);
                writes.add(w.sortKey());
            });
        }

        @Override
        public void putResult(WorkerResult result) {
            results.add(result);
        }

        @Override
        public void putOverload(dev.richter.common.model.OverloadResponses overload) {
        }
    }

    @Test
    void windowsAFlushCouldNotStoreAreOfferedAgainAndStoredOnce() throws Exception {
        try (TestServer server = new TestServer(0); JdkHttpTransport transport = new JdkHttpTransport()) {
            FlakySink sink = new FlakySink(call -> call <= 2);   // the first two flushes fail
            WorkerResult r = driver(transport, sink, id -> false, MonotonicClock.system())
                    .run(task(server.baseUrl(), 10, 4, 0, 1, 0, 2000, 64, 200));
            assertEquals(40, r.counters().sent());
            assertEquals(List.of(), r.unstoredWindowSeconds());
            assertEquals(40, sink.stored.values().stream().mapToLong(Window::sent).sum(), "every send is in a stored window");
            assertEquals(sink.writes.size(), new java.util.HashSet<>(sink.writes).size(), "no window written twice");
        }
    }

    @Test
    void windowsThatCannotBeStoredAreNamedInTheResultWhoseCountsStayExact() throws Exception {
        try (TestServer server = new TestServer(0); JdkHttpTransport transport = new JdkHttpTransport()) {
            FlakySink sink = new FlakySink(call -> true);
            WorkerResult r = driver(transport, sink, id -> false, MonotonicClock.system())
                    .run(task(server.baseUrl(), 10, 3, 0, 1, 0, 2000, 64, 200));
            assertEquals(30, r.counters().sent());
            assertEquals(30, r.counters().ok());
            assertTrue(r.unstoredWindowSeconds().size() >= 3 && r.unstoredWindowSeconds().size() <= 5,
                    "the 3 s leg's seconds (plus the response tail): " + r.unstoredWindowSeconds());
            long first = r.startedAtMs() / 1000;
            assertEquals(first, r.unstoredWindowSeconds().get(0));
            assertEquals(r.unstoredWindowSeconds(), sink.results.get(0).unstoredWindowSeconds(), "stored with the result");
        }
    }

    @Test
    void aStopReasonOfTheWatchStopsTheWorker() throws Exception {
        try (TestServer server = new TestServer(0); JdkHttpTransport transport = new JdkHttpTransport()) {
            long t0Ms = System.currentTimeMillis();
            LoadDriver.AbortSource watch = new LoadDriver.AbortSource() {
                @Override
                public boolean isAbortRequested(String runId) {
                    return false;
                }

                @Override
                public java.util.Optional<String> stopReason(WorkerTask task, long nowMs) {
                    // the monitor's last decision was at the start; the bound is 1 s
                    return dev.richter.common.MonitorHeartbeat.late(nowMs, t0Ms, t0Ms, java.util.OptionalLong.of(t0Ms), 1_000);
                }
            };
            WorkerResult r = driver(transport, new ResultSink.InMemory(), watch, MonotonicClock.system())
                    .run(task(server.baseUrl(), 10, 5, 0, 1, 0, 2000, 64, 50));
            assertTrue(r.aborted());
            assertTrue(r.counters().sent() >= 10 && r.counters().sent() <= 17, "sent " + r.counters().sent());
        }
    }

    @ParameterizedTest
    @MethodSource("transports")
    void connectionRefusedIsCountedAsConnectError(Supplier<HttpTransport> transports) throws Exception {
        int port;
        try (var s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (HttpTransport transport = transports.get()) {
            WorkerResult r = driver(transport, new ResultSink.InMemory(), id -> false, MonotonicClock.system())
                    .run(task("http://127.0.0.1:" + port, 5, 1, 0, 1, 0, 1000, 64, 50));
            assertEquals(5, r.counters().connectErrors());
            assertEquals(5, r.counters().errors());
        }
    }

    @Test
    void withoutHistogramsNullsOnlyTheHistograms() {
        WorkerResult r = new WorkerResult("r", "formal", 1, 2, 3, 10, 5, 6, Counters.ZERO, "a", "b", true);
        WorkerResult s = LoadDriver.withoutHistograms(r);
        assertNull(s.latencyFromIntendedHist());
        assertNull(s.latencyFromSendHist());
        assertEquals(r.sortKey(), s.sortKey());
        assertTrue(s.aborted());
    }
}
