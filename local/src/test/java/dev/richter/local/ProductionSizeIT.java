package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.richter.common.Json;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionResponse;
import software.amazon.awssdk.services.sfn.model.ExecutionListItem;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;

/**
 * Production-size steps (docs/production-size.md) on the local stack with compressed AWS limits: 15 s load-driver invocations, an inline Map limit of 4
 * and a history limit of {@value #HISTORY_LIMIT} events per execution. A plan whose formal steps each last three
 * legs and need more workers than the Map limit runs to PASSED with exact counts, one report and an even rate in
 * every second; the same plan with one mechanism switched off fails on the limit it breaks:
 * <ul>
 *   <li>worker fan-out as an inline Map: the 5th and 6th workers wait for the first four, start late and are named;</li>
 *   <li>legs and workers inline in one execution: the history limit ends the run ({@code States.Runtime});</li>
 *   <li>no legs (the step laid out as if the load driver had 900 s): workers run out of Lambda time and the
 *       report counts the requests they could not send.</li>
 * </ul>
 */
class ProductionSizeIT {
    static final int HISTORY_LIMIT = 300;
    static final int MAP_LIMIT = 4;
    /** 15 s invocations, 3 s lead, 1 s request timeout, 1 s grace, 2 s margin: 8 s legs. */
    static final LocalLimits COMPRESSED = LocalLimits.AWS.withHistoryEventsPerExecution(HISTORY_LIMIT)
            .withInlineMapMaxConcurrency(MAP_LIMIT)
            .withParameterOverrides(Map.of("LoadDriverTimeoutSeconds", "15", "WorkerLeadMs", "3000", "LegMarginMs", "2000"));
    static final Path ROOT = LocalAwsStack.rootFromEnv();
    static final String SM = "arn:aws:states:us-east-1:123456789012:stateMachine:richter-dev-load-test-run";

    /** 24 QPS and 30 QPS for 20 s each at 5 QPS per worker: 5 and 6 workers (over the Map limit), 3 legs each. */
    static String plan(String service) {
        return Json.write(Map.of("name", "production size", "scenarios", List.of(Map.of("name", "orders", "service", service,
                        "requests", List.of(Map.of("method", "POST", "path", "/orders", "body", "{\"sku\":\"A1\"}")))),
                "preTest", Map.of("qps", 2, "durationS", 4), "warmUp", Map.of("durationS", 0),
                "formal", Map.of("steps", List.of(Map.of("qps", 24, "durationS", 20), Map.of("qps", 30, "durationS", 20))),
                "coreModules", List.of(service), "perWorkerQps", 5, "requestTimeoutMs", 1000));
    }

    @Test
    void aPlanOfManyLegsAndMoreWorkersThanTheMapLimitPassesWithExactCounts() throws Exception {
        try (LocalAwsStack stack = start(ROOT, "it-production-size"); FakeTarget target = new FakeTarget();
             SfnClient sfn = sfn()) {
            ApiClient api = new ApiClient(LocalAwsStack.apiBaseUrl(), stack.identity().token("team-size", "it@team-size",
                    java.time.Duration.ofHours(1), com.nimbusds.jose.JWSAlgorithm.RS256));
            LocalAwsStackTestSupport.register(api, "orders-svc", target.baseUrl());
            var created = api.post("/plans", plan("orders-svc"));
            assertEquals(201, created.status(), created.body());
            String planId = created.json().path("planId").asText();
            String runId = api.post("/plans/" + planId + "/runs", "").json().path("runId").asText();
            JsonNode report = awaitReport(api, runId);

            assertEquals("PASSED", report.path("outcome").asText(), report.toPrettyString());
            JsonNode formal = report.path("formal");
            int[] qps = {24, 30};
            int[] workers = {5, 6};
            for (int i = 0; i < 2; i++) {
                JsonNode step = formal.get(i);
                assertEquals(qps[i] * 20L, step.path("counters").path("sent").asLong(), "exactly qps x durationS: " + step);
                assertEquals(3, step.path("legs").asInt(), "20 s in 8 s legs");
                assertEquals(workers[i] * 3, step.path("workersReported").asInt(), step.toString());
                assertEquals(0, step.path("missingWorkers").size(), step.toString());
                assertEquals(0, step.path("lateWorkers").size(), "every worker was warm before its first due time: " + step);
                assertEquals(0, step.path("counters").path("dropped").asLong(), step.toString());
                assertEquals(0, step.path("unsentAtTimeLimit").asLong(), step.toString());
                assertEveryWholeSecondWithinOne(target.arrivalsMs, step.path("startedAtMs").asLong(), 20, qps[i]);
            }
            assertEquals(8 + 480 + 600, target.arrivalsMs.size(), "one request per due time, none twice");
            assertEquals(runId, report.path("runId").asText(), "one report for the run, every leg merged into its step");
            assertEquals(1, report.path("preTest").size());
            assertEquals(2, formal.size());

            // no execution's history came near the limit, and the plan's estimate bounds what happened
            int maxHistory = maxHistoryEvents(sfn, runId);
            assertTrue(maxHistory <= HISTORY_LIMIT, "max history " + maxHistory);
            JsonNode estimate = api.get("/plans/" + planId + "/estimate").json();
            System.out.println("production size: max history events " + maxHistory + " (estimate "
                    + estimate.path("maxHistoryEvents") + ", limit " + HISTORY_LIMIT + "); per step sent "
                    + formal.get(0).path("counters").path("sent") + ", " + formal.get(1).path("counters").path("sent")
                    + "; workers " + formal.get(0).path("workersReported") + ", " + formal.get(1).path("workersReported"));
            assertTrue(estimate.path("maxHistoryEvents").asInt() >= maxHistory,
                    "estimate " + estimate.path("maxHistoryEvents") + " >= observed " + maxHistory);
        }
    }

    @Test
    void anAbortInTheFirstLegStopsTheLegsStillWaitingToLaunch() throws Exception {
        try (LocalAwsStack stack = start(ROOT, "it-production-size-abort"); FakeTarget target = new FakeTarget();
             SfnClient sfn = sfn()) {
            ApiClient api = new ApiClient(LocalAwsStack.apiBaseUrl(), stack.identity().token("team-size", "it@team-size",
                    java.time.Duration.ofHours(1), com.nimbusds.jose.JWSAlgorithm.RS256));
            LocalAwsStackTestSupport.register(api, "orders-svc", target.baseUrl());
            // one formal step of 120 s: 15 legs of 8 s, all waiting to launch as child executions
            String plan = Json.write(Map.of("name", "long step", "scenarios", List.of(Map.of("name", "orders",
                            "service", "orders-svc", "requests", List.of(Map.of("method", "POST", "path", "/orders")))),
                    "preTest", Map.of("qps", 2, "durationS", 3), "warmUp", Map.of("durationS", 0), "formal", Map.of("steps", List.of(Map.of("qps", 10, "durationS", 120))),
                    "coreModules", List.of("orders-svc"), "perWorkerQps", 5, "requestTimeoutMs", 1000));
            String runId = LocalAwsStackTestSupport.startRun(api, plan);
            long deadline = System.currentTimeMillis() + 90_000;
            while (System.currentTimeMillis() < deadline
                    && !api.get("/runs/" + runId).json().path("run").path("stage").asText().equals("formal")) {
                Thread.sleep(250);
            }
            Thread.sleep(4_000); // the first leg sends from 3 s (the worker lead) to 11 s; the second leg launches at 8 s
            long abortAt = System.currentTimeMillis();
            assertEquals(202, api.post("/runs/" + runId + "/abort", "{\"reason\": \"stop the long step\"}").status());
            JsonNode report = awaitReport(api, runId);

            assertEquals("ABORTED", report.path("outcome").asText(), report.toPrettyString());
            JsonNode step = report.path("formal").get(0);
            assertTrue(step.path("legs").asInt() <= 2, "only the first leg's workers ran (the second's at most "
                    + "started and saw the flag): " + step);
            assertEquals(0, step.path("missingWorkers").size(), "legs stopped by the abort are not missing workers: " + step);
            assertTrue(step.path("counters").path("sent").asLong() < 200, step.toString());
            long reportedAfterMs = System.currentTimeMillis() - abortAt;
            assertTrue(reportedAfterMs < 30_000, "the report came " + reportedAfterMs
                    + " ms after the abort, not after the step's 14 waiting legs (~110 s)");
            // the first leg failed on purpose (Richter.RunAborted) and its Map Run stopped the legs still waiting
            String parent = SM.replace(":stateMachine:", ":execution:") + ":" + runId;
            List<String> legOutcomes = new ArrayList<>();
            for (var mapRun : sfn.listMapRunsPaginator(b -> b.executionArn(parent)).mapRuns()) {
                for (ExecutionListItem leg : sfn.listExecutionsPaginator(b -> b.mapRunArn(mapRun.mapRunArn())).executions()) {
                    var d = sfn.describeExecution(b -> b.executionArn(leg.executionArn()));
                    legOutcomes.add(d.statusAsString() + (d.error() == null ? "" : " " + d.error()));
                }
            }
            assertTrue(legOutcomes.contains("FAILED Richter.RunAborted"), legOutcomes.toString());
            assertTrue(legOutcomes.stream().filter(o -> o.startsWith("ABORTED")).count() >= 13,
                    "the waiting legs were stopped: " + legOutcomes);
        }
    }

    @Test
    void workersAsAnInlineMapStartLateBeyondTheMapLimitAndAreNamed() throws Exception {
        Path root = variantRoot("inline-workers", asl -> inlineMaps(asl, "Workers"));
        try (LocalAwsStack stack = start(root, "it-production-size-inline-workers"); FakeTarget target = new FakeTarget()) {
            ApiClient api = new ApiClient(LocalAwsStack.apiBaseUrl(), stack.identity().token("team-size", "it@team-size",
                    java.time.Duration.ofHours(1), com.nimbusds.jose.JWSAlgorithm.RS256));
            LocalAwsStackTestSupport.register(api, "orders-svc", target.baseUrl());
            JsonNode report = awaitReport(api, LocalAwsStackTestSupport.startRun(api, plan("orders-svc")));
            JsonNode step = report.path("formal").get(1);
            List<String> late = new ArrayList<>();
            step.path("lateWorkers").forEach(w -> late.add(w.path("worker").asText()));
            assertTrue(late.contains("formal/step 2/leg 1/worker 4") && late.contains("formal/step 2/leg 1/worker 5"),
                    "workers 4 and 5 wait for a free Map slot: " + step.path("lateWorkers"));
            assertTrue(step.path("counters").path("late").asLong() > 0, step.toString());
        }
    }

    @Test
    void legsAndWorkersInOneExecutionBreakTheHistoryLimit() throws Exception {
        Path root = variantRoot("inline-legs", asl -> inlineMaps(asl, "Workers", "RunLegs"));
        try (LocalAwsStack stack = start(root, "it-production-size-inline-legs"); FakeTarget target = new FakeTarget();
             SfnClient sfn = sfn()) {
            ApiClient api = new ApiClient(LocalAwsStack.apiBaseUrl(), stack.identity().token("team-size", "it@team-size",
                    java.time.Duration.ofHours(1), com.nimbusds.jose.JWSAlgorithm.RS256));
            LocalAwsStackTestSupport.register(api, "orders-svc", target.baseUrl());
            String runId = LocalAwsStackTestSupport.startRun(api, plan("orders-svc"));
            DescribeExecutionResponse done = awaitExecution(sfn, SM + "", runId);
            assertEquals("FAILED", done.statusAsString(), done.toString());
            assertEquals("States.Runtime", done.error(), done.cause());
            assertTrue(done.cause().contains(String.valueOf(HISTORY_LIMIT)), done.cause());
        }
    }

    @Test
    void aStepNotCutIntoLegsRunsOutOfLambdaTime() throws Exception {
        // one 20 s leg probed at the 1 s alert wait throughout would record 20 + 14 x 24 = 356 events: this test is about
        // Lambda time, so its history limit is raised past that
        try (LocalAwsStack stack = start(ROOT, "it-production-size-no-legs", COMPRESSED.withHistoryEventsPerExecution(400));
             FakeTarget target = new FakeTarget()) {
            // step start and the plan checks believe the load driver has 900 s; the Lambda host still ends it at 15 s
            System.setProperty("LOAD_DRIVER_TIMEOUT_S", "900");
            ApiClient api = new ApiClient(LocalAwsStack.apiBaseUrl(), stack.identity().token("team-size", "it@team-size",
                    java.time.Duration.ofHours(1), com.nimbusds.jose.JWSAlgorithm.RS256));
            LocalAwsStackTestSupport.register(api, "orders-svc", target.baseUrl());
            JsonNode report = awaitReport(api, LocalAwsStackTestSupport.startRun(api, plan("orders-svc")));
            JsonNode step = report.path("formal").get(0);
            assertEquals(1, step.path("legs").asInt(), step.toString());
            assertTrue(step.path("unsentAtTimeLimit").asLong() > 0, "the 20 s step cannot fit a 15 s invocation: " + step);
            assertTrue(step.path("counters").path("sent").asLong() < 480, step.toString());
            assertTrue(report.path("confidence").path("reasons").toString().contains("Lambda time ran out"),
                    report.path("confidence").toString());
        } finally {
            System.clearProperty("LOAD_DRIVER_TIMEOUT_S");
        }
    }

    // ---- helpers ---------------------------------------------------------------------------------------------

    private static LocalAwsStack start(Path root, String workDir) throws Exception {
        return start(root, workDir, COMPRESSED);
    }

    private static LocalAwsStack start(Path root, String workDir, LocalLimits limits) throws Exception {
        OpenApiConformance.install();
        return new LocalAwsStack(root, ROOT.resolve("local/target/" + workDir), limits, System.out::println).start();
    }

    private static SfnClient sfn() {
        return SfnClient.builder().region(Region.US_EAST_1)
                .endpointOverride(URI.create(System.getenv("AWS_ENDPOINT_URL_SFN"))).build();
    }

    private static JsonNode awaitReport(ApiClient api, String runId) throws Exception {
        RunWatcher.watch(api, runId, 240_000, System.out::println);
        var r = api.get("/runs/" + runId + "/report");
        assertEquals(200, r.status(), r.body());
        return r.json();
    }

    /** Every whole second of the step holds {@code qps} arrivals, give or take one (a request crossing a boundary). */
    private static void assertEveryWholeSecondWithinOne(List<Long> arrivalsMs, long stepStartMs, int durationS, int qps) {
        int[] perSecond = new int[durationS];
        for (long at : arrivalsMs) {
            long offset = at - stepStartMs;
            if (offset >= 0 && offset < durationS * 1000L) {
                perSecond[(int) (offset / 1000)]++;
            }
        }
        for (int s = 0; s < durationS; s++) {
            assertTrue(Math.abs(perSecond[s] - qps) <= 1, "second " + s + " of the step: " + perSecond[s] + " for "
                    + qps + " QPS; all seconds: " + java.util.Arrays.toString(perSecond));
        }
    }

    /** The most history events of any execution of the run: the parent and, recursively, its Map Runs' children. */
    private static int maxHistoryEvents(SfnClient sfn, String runId) {
        return maxHistoryEventsBelow(sfn, SM.replace(":stateMachine:", ":execution:") + ":" + runId);
    }

    private static int maxHistoryEventsBelow(SfnClient sfn, String executionArn) {
        List<HistoryEvent> events = new ArrayList<>();
        sfn.getExecutionHistoryPaginator(b -> b.executionArn(executionArn)).events().forEach(events::add);
        int max = events.size();
        for (var mapRun : sfn.listMapRunsPaginator(b -> b.executionArn(executionArn)).mapRuns()) {
            for (ExecutionListItem child : sfn.listExecutionsPaginator(b -> b.mapRunArn(mapRun.mapRunArn())).executions()) {
                max = Math.max(max, maxHistoryEventsBelow(sfn, child.executionArn()));
            }
        }
        return max;
    }

    private static DescribeExecutionResponse awaitExecution(SfnClient sfn, String sm, String runId) throws InterruptedException {
        String arn = sm.replace(":stateMachine:", ":execution:") + ":" + runId;
        long deadline = System.currentTimeMillis() + 240_000;
        DescribeExecutionResponse r;
        do {
            Thread.sleep(1000);
            r = sfn.describeExecution(b -> b.executionArn(arn));
        } while ("RUNNING".equals(r.statusAsString()) && System.currentTimeMillis() < deadline);
        return r;
    }

    /**
     * A copy of the repository's deployable parts (template, state machines) with the run's ASL changed, and a link
     * to the real {@code local/} (the Node stack): the same code on a different state machine.
     */
    private static Path variantRoot(String name, UnaryOperator<JsonNode> change) throws IOException {
        Path dir = ROOT.resolve("local/target/variant-" + name);
        Files.createDirectories(dir.resolve("statemachines"));
        Files.copy(ROOT.resolve("template.yaml"), dir.resolve("template.yaml"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        for (String f : List.of("load-test-run.asl.json", "nightly-check.asl.json")) {
            JsonNode asl = Json.MAPPER.readTree(ROOT.resolve("statemachines/" + f).toFile());
            Files.writeString(dir.resolve("statemachines/" + f),
                    Json.write(f.startsWith("load-test-run") ? change.apply(asl) : asl));
        }
        if (!Files.exists(dir.resolve("local"))) {
            Files.createSymbolicLink(dir.resolve("local"), ROOT.resolve("local"));
        }
        return dir;
    }

    /** Turns the named Distributed Maps into inline Maps (everything else unchanged). */
    private static JsonNode inlineMaps(JsonNode node, String... names) {
        if (node.isObject()) {
            ObjectNode o = (ObjectNode) node;
            o.fields().forEachRemaining(e -> {
                if (List.of(names).contains(e.getKey()) && e.getValue().path("Type").asText().equals("Map")) {
                    ObjectNode map = (ObjectNode) e.getValue();
                    ((ObjectNode) map.path("ItemProcessor").path("ProcessorConfig")).put("Mode", "INLINE")
                            .remove("ExecutionType");
                    map.remove("Label");
                    map.remove("ToleratedFailurePercentage");
                }
                inlineMaps(e.getValue(), names);
            });
        } else if (node.isArray()) {
            node.forEach(n -> inlineMaps(n, names));
        }
        return node;
    }
}
