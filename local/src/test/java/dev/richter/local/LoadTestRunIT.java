package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The load-test-run state machine (the real ASL on aws-local-stepfunctions) against real HTTP
 * targets on loopback: a passing run, a pre-test gate failure, an abort during the formal stage.
 */
class LoadTestRunIT extends LocalAwsStackTestSupport {

    /**
     * Issue 41, targets a team owns: a team registers an address it does not run (the server there does not answer
     * the team's ownership token, and no extension of it loaded the team's isolation document). The run gets the
     * pre-test's requests and no more: counted at the target, 6 requests (2 QPS x 3 s), none of the formal stage.
     */
    @Test
    void anAddressWhoseTeamHasNotShownItRunsItGetsThePreTestAndNoFormalStep() throws Exception {
        try (FakeTarget someoneElses = new FakeTarget()) {
            ApiClient api = api("team-squatter");
            var r = api.post("/services", dev.richter.common.Json.write(java.util.Map.of("name", "not-ours",
                    "baseUrl", someoneElses.baseUrl(), "healthPath", "/actuator/health")));
            assertEquals(201, r.status(), r.body());
            String runId = startRun(api, plan("not-ours", 2, 3, List.of(new double[] {5, 4}, new double[] {10, 4})));
            JsonNode report = awaitReport(api, runId, 180_000);
            assertEquals("PRE_TEST_FAILED", report.path("outcome").asText(), report.path("outcomeReason").asText());
            assertEquals(0, report.path("formal").size(), "no formal step");
            JsonNode owned = null;
            for (JsonNode c : report.path("dynamicChecks")) {
                if (c.path("name").asText().equals("target-owned")) owned = c;
            }
            assertTrue(owned != null && owned.path("outcome").asText().equals("FAIL"), report.path("dynamicChecks").toString());
            assertTrue(owned.path("evidence").asText().contains("team team-squatter has not shown that it runs not-ours")
                    && owned.path("evidence").asText().contains("/.well-known/richter-ownership answered 404"), owned.toString());
            Thread.sleep(1_000);
            assertEquals(6, someoneElses.arrivalsMs.size(), "the pre-test's 2 QPS x 3 s reached the address, nothing more");
        }
    }

    @Test
    void passingRunReportsThePreTestAndEveryFormalStepWithExactCounts() throws Exception {
        try (FakeTarget target = new FakeTarget()) {
            ApiClient api = api("team-pass");
            register(api, "orders-svc", target.baseUrl());
            String runId = startRun(api, plan("orders-svc", 2, 3, List.of(new double[] {5, 4}, new double[] {10, 4})));
            // issue 24 finding 16: GET /runs/{runId} shows the running step and its live load while it runs
            List<JsonNode> live = new java.util.concurrent.CopyOnWriteArrayList<>();
            Thread poller = Thread.ofVirtual().start(() -> {
                try {
                    while (!Thread.currentThread().isInterrupted()) {
                        JsonNode cur = api.get("/runs/" + runId).json().path("current");
                        if (cur.has("live")) {
                            live.add(cur);
                        }
                        Thread.sleep(300);
                    }
                } catch (InterruptedException | java.io.IOException stop) {
                    // the run has been reported
                }
            });
            JsonNode report = awaitReport(api, runId, 180_000);
            poller.interrupt();
            poller.join();
            JsonNode formalLive = live.stream().filter(c -> c.path("stage").asText().equals("formal")
                    && c.path("live").path("completed").asLong() > 0).findFirst().orElseThrow(() -> new AssertionError(
                    "no GET /runs/{runId} during a formal step showed its live load: " + live));
            double targetQps = formalLive.path("targetQps").asDouble();
            assertTrue(targetQps == 5 || targetQps == 10, formalLive.toString());
            assertTrue(formalLive.path("endsAtMs").asLong() > 0, formalLive.toString());
            assertTrue(formalLive.path("live").path("qps").asDouble() <= targetQps * 1.5, formalLive.toString());
            assertEquals(0.0, formalLive.path("live").path("errorRatePct").asDouble(), formalLive.toString());
            assertTrue(formalLive.path("live").path("p99Ms").asDouble() > 0, formalLive.toString());

            assertEquals("PASSED", report.path("outcome").asText(), report.toPrettyString());
            JsonNode pre = report.path("preTest").get(0);
            assertEquals(6, pre.path("counters").path("sent").asLong(), "2 QPS x 3 s");
            JsonNode formal = report.path("formal");
            assertEquals(2, formal.size());
            assertEquals(20, formal.get(0).path("counters").path("sent").asLong(), "5 QPS x 4 s");
            assertEquals(40, formal.get(1).path("counters").path("sent").asLong(), "10 QPS x 4 s");
            assertEquals(2, formal.get(1).path("workersReported").asInt(), "10 QPS at 5 QPS per worker fans out to 2");
            for (JsonNode step : formal) {
                assertTrue(step.path("rateErrorPct").asDouble() <= 2.0, step.toString());
                assertTrue(step.path("latencyMs").path("p99").asDouble() > 0, step.toString());
            }
            assertEquals(66, target.baggage.size());
            assertTrue(target.baggage.stream().allMatch(b -> b.contains("richter-loadtest=1")), "marker on every request");
            List<String> types = stack.eventBus().events().stream()
                    .filter(e -> runId.equals(e.path("detail").path("runId").asText()))
                    .map(e -> e.path("detail-type").asText()).toList();
            assertTrue(types.contains("Run Started") && types.contains("Run Completed"), types.toString());
        }
    }

    /**
     * End to end over real sockets: a target that sheds above 14 requests a second with fast 429/503, in turn
     * with Retry-After in seconds, as an HTTP-date (bug 28) and without it. The load driver records each form, the
     * windows record errors by kind, and the report's shedding verdict reads them: WEAK, since a third carry no
     * Retry-After, with each form counted as the target counted it.
     */
    @Test
    void aTargetThatShedsIsJudgedFromTheRetryAfterItSent() throws Exception {
        try (ShedTarget target = new ShedTarget(14)) {
            ApiClient api = api("team-shed");
            register(api, "shed-svc", target.baseUrl());
            String runId = startRun(api, plan("shed-svc", 2, 2, List.of(new double[] {5, 3}, new double[] {20, 4})));
            JsonNode report = awaitReport(api, runId, 180_000);

            JsonNode shedding = finding(report, "shedding");
            String line = shedding.path("line").asText();
            int seconds = target.shedSeconds.get();
            int dates = target.shedDate.get();
            int none = target.shedNone.get();
            assertTrue(seconds > 0 && dates > 0 && none > 0, "the target shed in every form: " + seconds + "/" + dates + "/" + none);
            assertEquals("WEAK", shedding.path("status").asText(), line);
            // the JDK HttpServer stamps its own Date when it sends the headers, which can fall a second after the one the
            // target's Retry-After date was computed from: the driver then reads 119 s for some, correctly
            String counts = "valid Retry-After on " + (seconds + dates) + " of " + (seconds + dates + none) + " ("
                    + seconds + " delay-seconds, " + dates + " HTTP-date; ";
            String tail = "), 0 invalid, " + none + " without";
            assertTrue(line.contains(counts + "120 s" + tail) || line.contains(counts + "119..120 s" + tail), line);

            Map<String, Double> byKind = new java.util.TreeMap<>();
            report.path("timeSeries").path("errorsByKindPerS").fields().forEachRemaining(e -> {
                double sum = 0;
                for (JsonNode v : e.getValue()) {
                    sum += v.asDouble();
                }
                byKind.put(e.getKey(), sum);
            });
            assertEquals((double) (seconds + none), byKind.get("http4xx"), 0.001, "429s per second, by kind: " + byKind);
            assertEquals((double) dates, byKind.get("http5xx"), 0.001, "503s per second, by kind: " + byKind);
            assertEquals(0.0, byKind.get("timeouts"), 0.001, byKind.toString());
        }
    }

    /**
     * End to end: a target with no deadline of its own, one request at a time at 60 ms each (about 16 a
     * second). At 5 QPS it keeps up; at 30 QPS its queue grows until the 1 s client deadline cuts requests off, so the
     * report's deadline verdict FAILS with the timeouts counted by the load driver.
     */
    @Test
    void aTargetWhoseQueueGrowsWithoutBoundFailsTheDeadlineVerdict() throws Exception {
        try (QueueingTarget target = new QueueingTarget(60)) {
            ApiClient api = api("team-queue");
            register(api, "queue-svc", target.baseUrl());
            String runId = startRun(api, plan("queue-svc", 2, 2, List.of(new double[] {5, 3}, new double[] {30, 5})));
            JsonNode report = awaitReport(api, runId, 180_000);

            JsonNode formal = report.path("formal");
            assertEquals(2, formal.size(), report.toPrettyString());
            assertEquals(0, formal.get(0).path("counters").path("timeouts").asLong(), "5 QPS is within capacity");
            long timeouts = formal.get(1).path("counters").path("timeouts").asLong();
            assertTrue(timeouts > 0, "30 QPS over about 16: requests reach the deadline " + formal.get(1));
            JsonNode deadlines = finding(report, "deadlines");
            assertEquals("FAILS", deadlines.path("status").asText(), deadlines.path("line").asText());
            assertTrue(deadlines.path("line").asText().startsWith("slow responses grow without bound: "), deadlines.toString());
            assertTrue(deadlines.path("line").asText().contains("0 \u2192 " + timeouts + " timeouts at the 1000 ms client deadline"),
                    deadlines.toString());
        }
    }

    /** The report's resilience finding of {@code defence}; fails the test when the report has none. */
    private static JsonNode finding(JsonNode report, String defence) {
        for (JsonNode f : report.path("resilience").path("findings")) {
            if (f.path("defence").asText().equals(defence)) {
                return f;
            }
        }
        throw new AssertionError("no " + defence + " finding in " + report.path("resilience"));
    }

    @Test
    void targetThatRefusesConnectionsFailsThePreTestAndNeverEntersTheFormalStage() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        ApiClient api = api("team-refused");
        register(api, "gone-svc", "http://127.0.0.1:" + closedPort);
        String runId = startRun(api, plan("gone-svc", 2, 2, List.of(new double[] {5, 3})));
        JsonNode report = awaitReport(api, runId, 120_000);

        assertEquals("PRE_TEST_FAILED", report.path("outcome").asText(), report.toPrettyString());
        assertTrue(report.path("outcomeReason").asText().toLowerCase(java.util.Locale.ROOT).contains("refused"),
                "the reason names the refused connections: " + report.path("outcomeReason").asText());
        assertEquals(0, report.path("formal").size(), "the formal stage must not start");
        JsonNode pre = report.path("preTest").get(0).path("counters");
        assertEquals(pre.path("sent").asLong(), pre.path("connectErrors").asLong(), "every request sent was refused: " + pre);
    }

    @Test
    void abortDuringTheFormalStageStopsTheWorkersAndStillReports() throws Exception {
        try (FakeTarget target = new FakeTarget()) {
            ApiClient api = api("team-abort");
            register(api, "slow-svc", target.baseUrl());
            String runId = startRun(api, plan("slow-svc", 2, 2, List.of(new double[] {10, 30}, new double[] {10, 30})));
            long deadline = System.currentTimeMillis() + 90_000;
            while (System.currentTimeMillis() < deadline) {
                JsonNode run = api.get("/runs/" + runId).json().path("run");
                if (run.path("stage").asText().equals("formal")) {
                    break;
                }
                Thread.sleep(500);
            }
            Thread.sleep(4_000);
            long abortAt = System.currentTimeMillis();
            assertEquals(202, api.post("/runs/" + runId + "/abort", "{\"reason\": \"on-call says stop\"}").status());
            JsonNode report = awaitReport(api, runId, 120_000);

            assertEquals("ABORTED", report.path("outcome").asText(), report.toPrettyString());
            assertTrue(report.path("outcomeReason").asText().contains("on-call says stop"), report.path("outcomeReason").asText());
            JsonNode formal = report.path("formal");
            assertEquals(1, formal.size(), "the second formal step must not run");
            JsonNode step = formal.get(0);
            assertTrue(step.path("aborted").asBoolean(), step.toString());
            long sent = step.path("counters").path("sent").asLong();
            long ranMs = abortAt - step.path("startedAtMs").asLong();
            assertTrue(sent > 0 && sent <= 10 * (ranMs + 1_000) / 1000 + 1,
                    "no request sent more than 1 s after the abort: sent " + sent + " in " + ranMs + " ms");
            assertTrue(step.path("endedAtMs").asLong() - abortAt <= 1_000 + 1_000 + 500,
                    "workers finished within 1 s poll + 1 s request deadline of the abort");
            JsonNode abort = report.path("abort");
            assertTrue(abort.path("latencyMs").asLong(-1) >= 0 && abort.path("latencyMs").asLong() <= 1_500,
                    "the report says how fast the load stopped: " + abort);
            assertTrue(abort.path("drainMs").asLong(-1) >= abort.path("latencyMs").asLong(), abort.toString());
            assertEquals(abort, ((com.fasterxml.jackson.databind.node.ObjectNode) api.get("/runs/" + runId).json().path("abort"))
                    .deepCopy().without("reason"),
                    "GET /runs/{runId} gives the same figures as the report");
            assertEquals(409, api.post("/runs/" + runId + "/abort", "").status(), "a finished run cannot be aborted");
            assertTrue(System.currentTimeMillis() - abortAt < 60_000);
            assertRunMetricsMatchTheStoredFigures(runId, step);
        }
    }

    /**
     * Richter's own metrics of an aborted run, read from {@code metrics.jsonl} (the EMF lines the Lambda host captured),
     * against the run's stored figures: the abort latency is the formal step's end (its last aborted worker) less the
     * time the abort flag was set (runs table); every load-driver window's Sent is the stored window's, and its
     * RateError is {@code 100 × (sent − due) / due} with {@code due} counted here from the stored step plan's schedule.
     */
    private static void assertRunMetricsMatchTheStoredFigures(String runId, JsonNode formalStep) throws Exception {
        var repositories = dev.richter.common.Repositories.fromEnv();
        var ddb = repositories.dynamoDb();
        var key = java.util.Map.of("runId", software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS(runId));
        var runItem = ddb.getItem(b -> b.tableName(repositories.tables().runs()).key(key).consistentRead(true)).item();
        long abortRequestedAtMs = Long.parseLong(runItem.get("abortRequestedAtMs").n());

        List<JsonNode> lines = new java.util.ArrayList<>();
        for (String line : java.nio.file.Files.readAllLines(stack.metricsFile())) {
            JsonNode n = dev.richter.common.Json.MAPPER.readTree(line);
            if (runId.equals(n.path("runId").asText())) {
                lines.add(n);
            }
        }
        JsonNode reportLine = lines.stream().filter(n -> n.path("Function").asText().equals("report")).findFirst()
                .orElseThrow(() -> new AssertionError("no report metrics of " + runId));
        assertEquals(1, reportLine.path("RunsAborted").asLong());
        assertEquals(1, reportLine.path("RunsCompleted").asLong());
        assertEquals(1, lines.stream().filter(n -> n.path("Function").asText().equals("plan-api"))
                .mapToLong(n -> n.path("RunsStarted").asLong()).sum(), "the run's start, counted once");
        assertEquals(formalStep.path("endedAtMs").asLong() - abortRequestedAtMs, reportLine.path("AbortDrain").asLong(),
                "abort drain = the step's last aborted worker's end - the flag's time");
        assertTrue(reportLine.has("AbortLatency") && reportLine.path("AbortLatency").asLong() >= 0
                        && reportLine.path("AbortLatency").asLong() <= reportLine.path("AbortDrain").asLong(),
                "abort latency = flag to the last send, within the drain: " + reportLine);
        assertTrue(MetricsSummary.of(stack.metricsFile(), runId).lines().stream().anyMatch(l -> l.startsWith("abort latency:")));

        var plan = new dev.richter.common.RunMetricsRepository(ddb, repositories.tables().runMetrics())
                .stepPlan(runId, "formal", 0).orElseThrow();
        var stored = new java.util.HashMap<String, Long>();
        ddb.queryPaginator(b -> b.tableName(repositories.tables().runMetrics()).consistentRead(true)
                        .keyConditionExpression("runId = :r AND begins_with(sk, :p)")
                        .expressionAttributeValues(java.util.Map.of(
                                ":r", software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS(runId),
                                ":p", software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS("window#formal#000#"))))
                .items().forEach(i -> stored.put(i.get("sk").s(), Long.parseLong(i.get("sent").n())));
        int checked = 0;
        for (JsonNode n : lines) {
            if (!n.path("Function").asText().equals("load-driver") || !n.path("runStage").asText().equals("formal")) {
                continue;
            }
            long second = n.path("epochSecond").asLong();
            int worker = n.path("workerIndex").asInt();
            String sk = dev.richter.common.model.WindowKey.sortKey("formal", 0, second, worker, n.path("legIndex").asInt());
            assertEquals(stored.get(sk), n.path("Sent").asLong(), "Sent of " + sk);
            var schedule = new dev.richter.loaddriver.ConstantArrivalSchedule(plan.qps(), plan.durationS(), worker, plan.workerCount());
            // the worker's due requests are counted until it was told to stop (MeteredResultSink.sendsStopped): a moment
            // between the abort flag's time and the step's end, read by the worker's own poll; a second before the flag
            // counts every request due in it, the second of the stop those due before some moment in that range
            long earliest = 0;
            long latest = 0;
            for (long i = 0; i < schedule.count(); i++) {
                long dueMs = plan.stepStartMs() + schedule.dueOffsetNanos(i) / 1_000_000;
                if (Math.floorDiv(dueMs, 1000) == second) {
                    earliest += dueMs < abortRequestedAtMs ? 1 : 0;
                    latest += dueMs < formalStep.path("endedAtMs").asLong() ? 1 : 0;
                }
            }
            long sent = stored.get(sk);
            if (n.has("RateError")) {
                double rateError = n.path("RateError").asDouble();
                boolean matches = false;
                for (long due = Math.max(1, earliest); due <= latest && !matches; due++) {
                    matches = Math.abs(100.0 * (sent - due) / due - rateError) < 1e-9;
                }
                assertTrue(matches, "RateError of " + sk + ": " + rateError + " is no (sent - due) / due for " + sent
                        + " sent and " + earliest + ".." + latest + " due before the stop");
                if (earliest == latest) {
                    checked++;
                }
            } else {
                assertEquals(0, earliest, "no RateError only for a second with nothing due before the flag: " + n);
            }
        }
        assertTrue(checked > 0, "the formal step's windows carry a RateError");
    }

    @Test
    void failingCoreModuleDuringTheFormalStageAbortsTheRunWithinSeconds() throws Exception {
        try (FakeTarget target = new FakeTarget()) {
            ApiClient api = api("team-damage");
            register(api, "fragile-svc", target.baseUrl());
            String runId = startRun(api, plan("fragile-svc", 2, 2, List.of(new double[] {10, 40}, new double[] {10, 40})));
            long deadline = System.currentTimeMillis() + 90_000;
            while (System.currentTimeMillis() < deadline
                    && !api.get("/runs/" + runId).json().path("run").path("stage").asText().equals("formal")) {
                Thread.sleep(500);
            }
            Thread.sleep(3_000);
            long damageAt = System.currentTimeMillis();
            target.orderStatus.set(500);
            target.healthStatus = "DOWN";
            JsonNode report = awaitReport(api, runId, 120_000);

            assertEquals("ABORTED", report.path("outcome").asText(), report.toPrettyString());
            // HTTP health answering DOWN with the load's errors is a 1.0 vote over http and passive (the successful TCP
            // connect abstains: the DOWN answer already proves it, DESIGN.md section 4): the core module is DAMAGED and
            // the default abort policy stops the run before the plan's error-rate condition (50 % for 5 s) would.
            assertTrue(report.path("outcomeReason").asText().contains("DAMAGED core module fragile-svc"),
                    report.path("outcomeReason").asText());
            assertTrue(report.path("outcomeReason").asText().contains("failing: http, passive"),
                    report.path("outcomeReason").asText());
            long firstDamagedAtMs = Long.MAX_VALUE;
            for (JsonNode v : report.path("verdicts")) {
                if (v.path("state").asText().equals("DAMAGED")) {
                    firstDamagedAtMs = Math.min(firstDamagedAtMs, v.path("atMs").asLong());
                }
            }
            long detectionMs = firstDamagedAtMs - damageAt;
            assertTrue(detectionMs < 15_000, "DAMAGED within the design's 15 s: " + detectionMs + " ms");
            assertEquals(1, report.path("formal").size(), "the second formal step must not run");
            assertTrue(report.path("formal").get(0).path("endedAtMs").asLong() - damageAt < 20_000, "workers stopped soon after");
            List<String> types = stack.eventBus().events().stream()
                    .filter(e -> runId.equals(e.path("detail").path("runId").asText()))
                    .map(e -> e.path("detail-type").asText()).toList();
            assertTrue(types.contains("Verdict Changed") && types.contains("Run Aborted"), types.toString());
            var onCall = EventPatternTest.onCall();
            List<String> paged = new java.util.ArrayList<>();
            for (JsonNode e : stack.eventBus().events()) {
                if (runId.equals(e.path("detail").path("runId").asText()) && !onCall.rulesForJSONEvent(e.toString()).isEmpty()) {
                    paged.add(e.path("detail-type").asText() + ":" + e.path("detail").path("to").asText());
                }
            }
            assertTrue(paged.contains("Run Aborted:") && paged.contains("Verdict Changed:DAMAGED"), "on-call paged for: " + paged);
            assertTrue(paged.stream().noneMatch(p -> p.startsWith("Run Completed") || p.endsWith(":HEALTHY")), paged.toString());
        }
    }
}
