package dev.richter.loaddriver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.Marker;
import dev.richter.common.model.ReplayRequest;
import dev.richter.common.model.Scenario;
import dev.richter.common.model.WorkerResult;
import dev.richter.common.model.WorkerTask;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The worker's warm-up before its step ({@link WarmUp}) over real sockets: its traffic goes to the loopback responder
 * and never to the target, and the step after it sends exactly its own requests.
 */
class WarmUpTest {
    static WorkerTask task(String baseUrl, double qps, int durationS, long startEpochMs) {
        ReplayRequest get = new ReplayRequest("GET", "/api/orders?page=1", Map.of("baggage", "lt.route=GET%20%2Fapi%2Forders"), null);
        ReplayRequest post = new ReplayRequest("POST", "/api/orders", Map.of("content-type", "application/json"),
                Base64.getEncoder().encodeToString("{\"sku\":\"A-1\",\"qty\":2}".getBytes(StandardCharsets.UTF_8)));
        return new WorkerTask("run-1", "team-a", "formal", 0, qps, durationS, 0, 1, startEpochMs, 2000, 1000, 10,
                Marker.DEFAULT, List.of(new Scenario("browse", "order-svc", baseUrl, 1, List.of(get, post))));
    }

    @Test
    void theResponderAnswersEachRequestOfAKeptAliveConnectionBodiesSkipped() throws Exception {
        try (LoopbackResponder responder = new LoopbackResponder();
             Socket s = new Socket(responder.baseUri().getHost(), responder.baseUri().getPort())) {
            String body = "{\"sku\":\"A-1\"}";
            String two = "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length() + "\r\n\r\n" + body
                    + "GET /b HTTP/1.1\r\nhost: x\r\n\r\n";
            OutputStream out = s.getOutputStream();
            out.write(two.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] expected = new byte[2 * LoopbackResponder.RESPONSE.length];
            int n = 0;
            while (n < expected.length) {
                int r = in.read(expected, n, expected.length - n);
                assertTrue(r > 0, "both answers arrive on the same connection");
                n += r;
            }
            String answers = new String(expected, StandardCharsets.US_ASCII);
            assertEquals(new String(LoopbackResponder.RESPONSE, StandardCharsets.US_ASCII).repeat(2), answers);
            assertEquals(2, responder.answered());
        }
        byte[] head = "GET / HTTP/1.1\r\nContent-Length:  12\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        assertEquals(head.length, LoopbackResponder.headEnd(head, head.length));
        assertEquals(-1, LoopbackResponder.headEnd(head, head.length - 1));
        assertEquals(12, LoopbackResponder.contentLength(head, head.length));
    }

    @Test
    void theWarmUpSendsTheWorkersScenariosToTheResponderAndNoneToTheTarget() throws Exception {
        try (TestServer target = new TestServer(0);
             NettyHttpTransport transport = new NettyHttpTransport(1, Duration.ofSeconds(2))) {
            WorkerResult r = WarmUp.run(transport, task(target.baseUrl(), 10, 1, 0), 1000, MonotonicClock.system());
            assertNotNull(r);
            // a cold JVM on a busy host may drop some at the in-flight cap: the warm-up is for that; each one is counted
            assertEquals((long) WarmUp.RATE_QPS, r.counters().due(), "1 s at the warm-up's rate");
            assertEquals(r.counters().due(), r.counters().sent() + r.counters().dropped());
            assertTrue(r.counters().sent() >= WarmUp.RATE_QPS / 2, r.counters().toString());
            assertEquals(r.counters().sent(), r.counters().ok(), "every request sent answered 200 by the responder, GET and POST alike");
            assertEquals(0, target.seen.size(), "no warm-up request reaches the target");
        }
    }

    @Test
    void aWorkerWithTheLeadWarmsUpThenSendsExactlyItsStepAndItsFlagStaysFresh() throws Exception {
        try (TestServer target = new TestServer(0);
             NettyHttpTransport transport = new NettyHttpTransport(1, Duration.ofSeconds(2))) {
            ResultSink.InMemory sink = new ResultSink.InMemory();
            // a warm-up as long as the flag's unreadable limit (2 s): the worker must read the flag again after it
            LoadDriver driver = new LoadDriver(transport, sink, id -> false, MonotonicClock.system(), System::currentTimeMillis,
                    LoadDriver.Config.DEFAULT.withWarmUpMs(2000), LoadDriver.SendObserver.NONE);
            long start = System.currentTimeMillis() + 3_600; // more than the warm-up and the collection's 1 s
            WorkerResult r = driver.run(task(target.baseUrl(), 20, 1, start));
            assertFalse(r.aborted(), "the warm-up's 2 s without a flag read do not stop the worker");
            assertEquals(20, r.counters().sent());
            assertEquals(20, r.counters().ok());
            assertEquals(20, target.seen.size(), "the target sees the step's requests only");
            assertTrue(target.seen.getFirst().arrivalNanos() > 0);
            assertEquals(1, sink.results().size(), "the warm-up stores nothing");
            assertEquals(List.of("formal"), sink.results().stream().map(WorkerResult::stage).toList());
        }
    }
}
