package dev.richter.loaddriver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.common.metrics.MetricsCapture;
import dev.richter.common.metrics.RichterMetrics;
import dev.richter.common.model.Marker;
import dev.richter.common.model.ReplayRequest;
import dev.richter.common.model.Scenario;
import dev.richter.common.model.WorkerTask;
import dev.richter.sizing.Quotas;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The EMF lines the load-driver handler writes: one per stored window, with counts by kind and the rate error. */
class LoadDriverMetricsTest {
    private static final List<String> COUNTS = List.of("Sent", "Ok", "Http4xx", "Http5xx", "Timeouts", "ConnectErrors",
            "Dropped", "Late", "CheckFailed");

    @Test
    void everyStoredWindowIsOneEmfLineWithItsCountsAndTheRateErrorAgainstTheSchedule() throws Exception {
        try (MetricsCapture capture = new MetricsCapture(); TestServer server = new TestServer(0);
             JdkHttpTransport transport = new JdkHttpTransport()) {
            // 10 QPS for 2 s, one request in four answered 429 and one in four 503; the step starts on a fixed time
            List<ReplayRequest> requests = List.of(get("/ok"), get("/shed-none"), get("/ok"), get("/shed-date"));
            long start = System.currentTimeMillis() + 700;
            WorkerTask task = new WorkerTask("run-m", "team-m", "formal", 1, 10, 2, 0, 1, start, 2000, 64, 200,
                    Marker.DEFAULT, List.of(new Scenario("mix", "svc", server.baseUrl(), 1, requests)));
            ResultSink.InMemory sink = new ResultSink.InMemory();
            LoadDriverHandler handler = new LoadDriverHandler(transport, sink, id -> false,
                    RichterMetrics.forFunction("load-driver"), ref -> task, Quotas.AWS);
            handler.handleRequest(new ByteArrayInputStream(Json.MAPPER.writeValueAsBytes(task)),
                    new ByteArrayOutputStream(), null);

            List<JsonNode> lines = capture.lines();
            List<Window> windows = sink.windows();
            assertEquals(windows.size(), lines.size(), "one line per stored window");
            long sent = 0, ok = 0, http4xx = 0, http5xx = 0, due = 0;
            for (int i = 0; i < lines.size(); i++) {
                JsonNode line = lines.get(i);
                Window w = windows.get(i);
                JsonNode directive = line.path("_aws").path("CloudWatchMetrics").get(0);
                assertEquals("Richter", directive.path("Namespace").asText());
                assertEquals("[[\"Function\",\"Stage\"]]", directive.path("Dimensions").toString());
                assertEquals("load-driver", line.path("Function").asText());
                assertEquals(w.epochSecond() * 1000, line.path("_aws").path("Timestamp").asLong());
                COUNTS.forEach(name -> assertEquals("Count", MetricsCapture.unit(directive, name)));
                assertEquals("run-m", line.path("runId").asText());
                assertEquals("team-m", line.path("teamId").asText());
                assertEquals("formal", line.path("runStage").asText());
                assertEquals(1, line.path("stepIndex").asInt());
                assertEquals(w.epochSecond(), line.path("epochSecond").asLong());
                assertEquals(w.sent(), line.path("Sent").asLong());
                assertEquals(w.count() - w.errors(), line.path("Ok").asLong());
                assertEquals(w.http4xx(), line.path("Http4xx").asLong());
                assertEquals(w.http5xx(), line.path("Http5xx").asLong());
                sent += w.sent();
                ok += line.path("Ok").asLong();
                http4xx += line.path("Http4xx").asLong();
                http5xx += line.path("Http5xx").asLong();
                if (line.has("RateError")) {
                    assertEquals("Percent", MetricsCapture.unit(directive, "RateError"));
                    long d = line.path("dueRequests").asLong();
                    assertEquals(100.0 * (w.sent() - d) / d, line.path("RateError").asDouble(), 1e-9);
                    due += d;
                }
            }
            assertEquals(20, sent);
            assertEquals(20, due, "every due request falls in exactly one window");
            assertEquals(10, ok);
            assertEquals(5, http4xx);
            assertEquals(5, http5xx);
        }
    }

    @Test
    void aWorkerStoppedByTheAbortIsNotShortOfItsRequestsDueAfterTheStop() throws Exception {
        try (MetricsCapture capture = new MetricsCapture(); TestServer server = new TestServer(0);
             JdkHttpTransport transport = new JdkHttpTransport()) {
            // 20 QPS for 4 s; the abort flag is set 1.7 s in, read at the next 500 ms poll, within a second: the requests
            // due in that second before the stop were sent, those due after it were never to be sent
            long start = System.currentTimeMillis() + 500;
            WorkerTask task = new WorkerTask("run-s", "team-s", "formal", 0, 20, 4, 0, 1, start, 2000, 64, 200,
                    Marker.DEFAULT, List.of(new Scenario("ok", "svc", server.baseUrl(), 1, List.of(get("/ok")))));
            ResultSink.InMemory sink = new ResultSink.InMemory();
            LoadDriverHandler handler = new LoadDriverHandler(transport, sink, id -> System.currentTimeMillis() > start + 1_700,
                    RichterMetrics.forFunction("load-driver"), ref -> task, Quotas.AWS);
            handler.handleRequest(new ByteArrayInputStream(Json.MAPPER.writeValueAsBytes(task)),
                    new ByteArrayOutputStream(), null);

            long sent = 0;
            long due = 0;
            for (JsonNode line : capture.lines()) {
                sent += line.path("Sent").asLong();
                due += line.path("dueRequests").asLong();
            }
            assertTrue(sink.results().get(0).aborted());
            assertTrue(due >= 30 && due < 80, "due counted to the stop (1.7 to 2.3 s of 20 QPS), not the step's 80: " + due);
            assertTrue(Math.abs(sent - due) <= 1, "sent " + sent + " of " + due + " due before the stop: " + capture.lines());
        }
    }

    @Test
    void aWindowHoldingTheLateSendsOfSecondsAlreadyStoredCountsTheirDueRequestsToo() {
        try (MetricsCapture capture = new MetricsCapture()) {
            // 2 QPS from second s: second s stored (1 of 2 sent); the worker fell behind, so the recorder counted the
            // sends due in s + 1 and s + 2, whose seconds had been stored, in the window of s + 3 (7 = 1 + 2 + 2 + 2)
            long s = System.currentTimeMillis() / 1000 - 60;
            WorkerTask task = new WorkerTask("run-l", "team-l", "pre-test", 0, 2, 10, 0, 1, s * 1000, 2000, 64, 200,
                    Marker.DEFAULT, List.of(new Scenario("ok", "svc", "http://127.0.0.1:9", 1, List.of(get("/ok")))));
            MeteredResultSink sink = new MeteredResultSink(new ResultSink.InMemory(), RichterMetrics.forFunction("load-driver"));
            sink.begin(task, Long.MAX_VALUE);
            sink.putWindows(List.of(window(s, 1)));
            sink.putWindows(List.of(window(s + 3, 7), window(s + 4, 2)));
            List<JsonNode> lines = capture.lines();
            assertEquals(List.of(2L, 6L, 2L), lines.stream().map(l -> l.path("dueRequests").asLong()).toList(),
                    "the window of s + 3 is due the requests of s + 1 to s + 3");
            assertEquals(List.of(-50.0, 100.0 / 6, 0.0), lines.stream().map(l -> l.path("RateError").asDouble()).toList(),
                    "the request of s sent late shows in both windows, and the whole is exact: 10 sent of 10 due");
        }
    }

    private static Window window(long epochSecond, long sent) {
        return new Window("run-l", "pre-test", 0, 0, epochSecond, sent, 0, "", 0, sent, 0, 0, 0, 0, 0, 0);
    }

    @Test
    void rateErrorIsSignedPercentOfTheDueRequests() {
        assertEquals(0.0, MeteredResultSink.rateErrorPercent(10, 10));
        assertEquals(-20.0, MeteredResultSink.rateErrorPercent(8, 10));
        assertEquals(50.0, MeteredResultSink.rateErrorPercent(3, 2));
    }

    private static ReplayRequest get(String path) {
        return new ReplayRequest("GET", path, Map.of(), null);
    }
}
