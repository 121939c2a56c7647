package dev.richter.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.EventPublisher;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.RunMetricsRepository;
import dev.richter.common.TableNames;
import dev.richter.common.model.Run;
import dev.richter.common.model.WorkerResult;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.eventbridge.model.PutEventsRequest;
import software.amazon.awssdk.services.eventbridge.model.PutEventsResponse;

/** The function end to end against in-memory tables: what it stores, the run it completes, the events it sends. */
class ReportHandlerTest {
    private static final TableNames TABLES = TableNames.fromEnv();

    @Test
    void storesTheReportAndItsPageCompletesTheRunAndSaysSo() throws Exception {
        FakeDynamo ddb = new FakeDynamo();
        Repositories repositories = new Repositories(ddb.client, TABLES);
        repositories.putPlan(Fixtures.PLAN);
        repositories.createRun(new Run("run-1", "plan-1", "t1", "RUNNING", "", "formal", 2, 1, true, "requested by alice: enough", ""));
        RunMetricsRepository metrics = new RunMetricsRepository(ddb.client, TABLES.runMetrics());
        for (WorkerResult r : Fixtures.healthyUpTo(2)) {
            ddb.put(TABLES.runMetrics(), Map.of("runId", AttributeValue.fromS("run-1"), "sk", AttributeValue.fromS(r.sortKey()),
                    "result", AttributeValue.fromS(Json.write(r))));
        }
        metrics.putChecks("run-1", "dynamic", Fixtures.CLEAN_DYNAMIC);
        List<PutEventsRequest> events = new ArrayList<>();
        EventBridgeClient bus = (EventBridgeClient) Proxy.newProxyInstance(EventBridgeClient.class.getClassLoader(),
                new Class<?>[] {EventBridgeClient.class}, (proxy, method, args) -> {
                    if (args != null && args.length == 1 && args[0] instanceof PutEventsRequest r) {
                        events.add(r);
                        return PutEventsResponse.builder().failedEntryCount(0).build();
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        ReportHandler handler = new ReportHandler(repositories, new EventPublisher(bus, "richter"));

        Map<String, Object> out = handler.handle(Json.read("{\"action\":\"report\",\"runId\":\"run-1\",\"state\":{}}", ReportEvent.class), null);

        assertEquals("ABORTED", out.get("outcome"));
        var item = ddb.find(TABLES.reports(), Map.of("runId", AttributeValue.fromS("run-1")));
        JsonNode report = Json.MAPPER.readTree(item.get("json").s());
        assertEquals("ABORTED", report.path("outcome").asText());
        assertEquals(40.0, report.path("capacity").path("maxSustainableQps").asDouble());
        assertTrue(report.path("capacity").path("measured").asBoolean());
        assertEquals("none observed", report.path("failureMode").path("kind").asText());
        assertEquals(5, report.path("resilience").path("findings").size());
        assertTrue(report.path("callGraph").path("read").asBoolean(), report.path("callGraph").toString());
        assertTrue(item.get("html").s().contains("Resilience verdict"));
        assertEquals("COMPLETED", repositories.getRun("run-1").orElseThrow().status());
        var runItem = ddb.find(TABLES.runs(), Map.of("runId", AttributeValue.fromS("run-1")));
        assertEquals(report.path("capacity").path("maxSustainableQps").asDouble(), Double.parseDouble(runItem.get("capacityQps").n()),
                "the run item carries the capacity for lists of runs");
        assertEquals(report.path("capacity").path("reached").asBoolean(), runItem.get("capacityReached").bool());
        assertEquals(List.of("Run Aborted", "Run Completed"), events.stream().map(e -> e.entries().get(0).detailType()).toList());
        JsonNode completed = Json.MAPPER.readTree(events.get(1).entries().get(0).detail());
        assertTrue(completed.path("capacityMeasured").asBoolean());
    }

    @Test
    void anAbortedRunWritesOneEmfLineWithTheAbortLatencyToTheLastSendAndTheDrainToTheLastAbortedWorker() throws Exception {
        FakeDynamo ddb = new FakeDynamo();
        Repositories repositories = new Repositories(ddb.client, TABLES);
        repositories.putPlan(Fixtures.PLAN);
        repositories.createRun(new Run("run-2", "plan-1", "t1", "RUNNING", "", "formal", 1, 1, true, "requested by alice", ""));
        List<WorkerResult> stored = new ArrayList<>(Fixtures.healthyUpTo(2));
        WorkerResult last = stored.remove(stored.size() - 1);
        // the field trial's shape: the last step's worker sent last 350 ms after the flag was set and stopped 2 410 ms
        // after it, once its in-flight requests had answered or timed out
        long abortAtMs = last.endedAtMs() - 2_410;
        stored.add(new WorkerResult("run-2", last.stage(), last.stepIndex(), last.workerIndex(), last.workerCount(),
                last.targetQps(), last.startedAtMs(), last.endedAtMs(), last.counters(), last.latencyFromIntendedHist(),
                last.latencyFromSendHist(), true, last.legIndex(), last.startLagMs(), last.unsentAtTimeLimit(), List.of(),
                abortAtMs + 350));
        for (WorkerResult r : stored) {
            ddb.put(TABLES.runMetrics(), Map.of("runId", AttributeValue.fromS("run-2"), "sk", AttributeValue.fromS(r.sortKey()),
                    "result", AttributeValue.fromS(Json.write(r))));
        }
        var runItem = new java.util.HashMap<>(ddb.find(TABLES.runs(), Map.of("runId", AttributeValue.fromS("run-2"))));
        runItem.put("abortRequestedAtMs", AttributeValue.fromN(Long.toString(abortAtMs)));
        ddb.put(TABLES.runs(), runItem);
        List<software.amazon.awssdk.services.eventbridge.model.PutEventsRequestEntry> published = new java.util.ArrayList<>();
        EventBridgeClient bus = (EventBridgeClient) Proxy.newProxyInstance(EventBridgeClient.class.getClassLoader(),
                new Class<?>[] {EventBridgeClient.class}, (proxy, method, args) -> {
                    if (args != null && args[0] instanceof software.amazon.awssdk.services.eventbridge.model.PutEventsRequest r) {
                        published.addAll(r.entries());
                    }
                    return PutEventsResponse.builder().failedEntryCount(0).build();
                });
        ReportHandler handler = new ReportHandler(repositories, new EventPublisher(bus, "richter"));

        try (var capture = new dev.richter.common.metrics.MetricsCapture()) {
            Map<String, Object> out = handler.handle(Json.read("{\"action\":\"report\",\"runId\":\"run-2\",\"state\":{}}", ReportEvent.class), null);
            assertEquals("ABORTED", out.get("outcome"));
            JsonNode abortedEvent = published.stream().filter(e -> e.detailType().equals("Run Aborted"))
                    .map(e -> Json.read(e.detail(), JsonNode.class)).findFirst().orElseThrow();
            assertEquals(abortAtMs, abortedEvent.path("abortRequestedAtMs").asLong(), abortedEvent.toString());
            assertEquals(350, abortedEvent.path("abortLatencyMs").asLong(), "the event, and so its notifications, carry it");
            assertEquals(2_410, abortedEvent.path("abortDrainMs").asLong(), abortedEvent.toString());
            JsonNode report = Json.read(ddb.find(TABLES.reports(), Map.of("runId", AttributeValue.fromS("run-2"))).get("json").s(),
                    JsonNode.class);
            assertEquals(350, report.path("abort").path("latencyMs").asLong(), report.path("abort").toString());
            assertEquals(2_410, report.path("abort").path("drainMs").asLong(), report.path("abort").toString());
            var lines = capture.lines();
            assertEquals(1, lines.size());
            JsonNode line = lines.get(0);
            JsonNode directive = line.path("_aws").path("CloudWatchMetrics").get(0);
            assertEquals("Richter", directive.path("Namespace").asText());
            assertEquals("[[\"Function\",\"Stage\"]]", directive.path("Dimensions").toString());
            assertEquals("report", line.path("Function").asText());
            assertEquals("Count", dev.richter.common.metrics.MetricsCapture.unit(directive, "RunsCompleted"));
            assertEquals("Count", dev.richter.common.metrics.MetricsCapture.unit(directive, "RunsAborted"));
            assertEquals("Milliseconds", dev.richter.common.metrics.MetricsCapture.unit(directive, "AbortLatency"));
            assertEquals(1, line.path("RunsCompleted").asLong());
            assertEquals(1, line.path("RunsAborted").asLong());
            assertEquals("Milliseconds", dev.richter.common.metrics.MetricsCapture.unit(directive, "AbortDrain"));
            assertEquals(350, line.path("AbortLatency").asLong(), "flag to the last send, not to the drain's end");
            assertEquals(2_410, line.path("AbortDrain").asLong(), "flag to the last aborted worker stopped");
            assertEquals("run-2", line.path("runId").asText());
            assertEquals("ABORTED", line.path("outcome").asText());
        }
    }

    @Test
    void abortLatencyRunsFromTheFlagToTheLastSendOfAnyWorker() {
        WorkerResult done = Fixtures.healthyUpTo(1).get(1);
        WorkerResult aborted = new WorkerResult("r", "formal", 0, 0, 1, 10, 0, 5_000, done.counters(), null, null, true,
                0, 0, 0, List.of(), 4_900);
        WorkerResult abortedEarlier = new WorkerResult("r", "formal", 0, 1, 2, 10, 0, 5_200, done.counters(), null, null,
                true, 0, 0, 0, List.of(), 4_800);
        assertTrue(latency(java.util.OptionalLong.of(1), List.of(done)).isEmpty(), "no aborted worker");
        assertTrue(latency(java.util.OptionalLong.empty(), List.of(aborted)).isEmpty(), "no flag time");
        assertEquals(200L, latency(java.util.OptionalLong.of(4_700), List.of(abortedEarlier, aborted)).orElseThrow(),
                "the latest send of the workers");
        assertEquals(0L, latency(java.util.OptionalLong.of(6_000), List.of(aborted)).orElseThrow(),
                "a worker whose sends stopped before the flag was set stopped at once");
        WorkerResult noLastSend = new WorkerResult("r", "formal", 0, 0, 1, 10, 0, 5_000, done.counters(), null, null, true);
        assertTrue(latency(java.util.OptionalLong.of(4_700), List.of(noLastSend)).isEmpty(),
                "no worker reported its last send: the drain's end is no stand-in");
    }

    @Test
    void abortDrainRunsFromTheFlagToTheLastAbortedWorkerStopped() {
        WorkerResult done = Fixtures.healthyUpTo(1).get(1);
        WorkerResult aborted = new WorkerResult("r", "formal", 0, 0, 1, 10, 0, 5_000, done.counters(), null, null, true,
                0, 0, 0, List.of(), 4_750);
        assertTrue(drain(java.util.OptionalLong.of(1), List.of(done)).isEmpty(), "no aborted worker");
        assertTrue(drain(java.util.OptionalLong.empty(), List.of(aborted)).isEmpty(), "no flag time");
        assertEquals(300L, drain(java.util.OptionalLong.of(4_700), List.of(aborted, done)).orElseThrow());
        assertEquals(0L, drain(java.util.OptionalLong.of(6_000), List.of(aborted)).orElseThrow());
    }

    private static java.util.Optional<Long> latency(java.util.OptionalLong flagAtMs, List<WorkerResult> results) {
        return AbortTiming.of(flagAtMs, results).map(AbortTiming::latencyMs);
    }

    private static java.util.Optional<Long> drain(java.util.OptionalLong flagAtMs, List<WorkerResult> results) {
        return AbortTiming.of(flagAtMs, results).map(AbortTiming::drainMs);
    }
}
