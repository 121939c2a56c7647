package dev.richter.loaddriver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.Counters;
import dev.richter.common.model.Marker;
import dev.richter.common.model.OverloadResponses;
import dev.richter.common.model.ReplayRequest;
import dev.richter.common.model.Scenario;
import dev.richter.common.model.WorkerTask;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Over real sockets, the load driver keeps what the report's shedding verdict reads: every 429/503 with its
 * {@code Retry-After} form (seconds, HTTP-date with {@code Date}, absent) and latency, stored once per worker
 * ({@link OverloadResponses}); and the errors of every second by kind ({@link Window}), for each transport and protocol.
 */
class SheddingEvidenceTest {
    private static final List<String> PATHS = List.of("/ok", "/shed-seconds", "/shed-date", "/shed-none");

    /** A target and the transport that talks to it. */
    record Setup(String name, Function<String, HttpTransport> transport, boolean http2) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Setup> setups() {
        return Stream.of(
                new Setup("JDK HttpClient, HTTP/1.1", url -> new JdkHttpTransport(), false),
                new Setup("Netty, HTTP/1.1", url -> new NettyHttpTransport(1, NettyHttpTransport.Options.DEFAULT), false),
                new Setup("Netty, h2c", url -> new NettyHttpTransport(1, NettyHttpTransport.Options.DEFAULT
                        .withCleartext(NettyHttpTransport.Protocol.HTTP_2)), true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("setups")
    void everyShedAnswerIsRecordedWithItsRetryAfterForm(Setup setup) throws Exception {
        try (AutoCloseable server = setup.http2() ? new Http2TestServer(0, null) : new TestServer(0)) {
            String url = server instanceof TestServer t ? t.baseUrl() : ((Http2TestServer) server).baseUrl();
            ResultSink.InMemory sink = new ResultSink.InMemory();
            try (HttpTransport transport = setup.transport().apply(url)) {
                List<ReplayRequest> requests = PATHS.stream().map(p -> new ReplayRequest("GET", p, Map.of(), null)).toList();
                WorkerTask task = new WorkerTask("run-1", "team-a", "formal", 2, 20, 2, 0, 1, 0, 2000, 64, 1000,
                        Marker.DEFAULT, List.of(new Scenario("shed", "order-svc", url, 1, requests)));
                new LoadDriver(transport, sink, id -> false).run(task);
            }

            Counters c = sink.results().get(0).counters();
            assertEquals(40, c.sent(), c.toString());
            assertEquals(Map.of("429", 20L, "503", 10L), c.httpErrors(), c.toString());

            assertEquals(1, sink.overload().size());
            OverloadResponses o = sink.overload().get(0);
            assertEquals(List.of("formal", 2, 0, 0), List.of(o.stage(), o.stepIndex(), o.legIndex(), o.workerIndex()));
            assertEquals(30, o.responses());
            assertEquals(10, o.retryAfterSeconds(), "Retry-After: 120");
            assertEquals(10, o.retryAfterDate(), "Retry-After as an HTTP-date, 120 s after Date");
            assertEquals(10, o.retryAfterAbsent());
            assertEquals(0, o.retryAfterInvalid());
            // 120 s as sent; the JDK HttpServer stamps its own Date when it sends the headers, which can fall in the second
            // after the one the Retry-After date was computed from: the delay read is then 119 s, correctly
            assertTrue(o.minDelayS() >= 119 && o.minDelayS() <= o.maxDelayS() && o.maxDelayS() == 120,
                    o.minDelayS() + ".." + o.maxDelayS());

            List<Window> windows = sink.windows();
            assertEquals(40, windows.stream().mapToLong(Window::sent).sum(), "every send in its due second");
            assertEquals(40, windows.stream().mapToLong(Window::count).sum());
            assertEquals(20, windows.stream().mapToLong(Window::http4xx).sum());
            assertEquals(10, windows.stream().mapToLong(Window::http5xx).sum());
            assertEquals(30, windows.stream().mapToLong(Window::errors).sum());
            assertEquals(0, windows.stream().mapToLong(w -> w.timeouts() + w.connectErrors() + w.dropped()).sum());
            assertEquals(windows.size(), windows.stream().map(Window::sortKey).distinct().count(),
                    "one item per second: a stored second is never written twice");
        }
    }
}
