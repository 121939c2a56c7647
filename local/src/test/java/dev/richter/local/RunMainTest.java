package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.richter.common.Json;
import dev.richter.common.model.Counters;
import dev.richter.common.model.HistogramCodec;
import dev.richter.common.model.Plan;
import dev.richter.common.model.Run;
import dev.richter.common.model.WorkerResult;
import dev.richter.report.ReportBuilder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.xml.XMLConstants;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.SchemaFactory;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./richter run} against a scripted API over a real socket: the routes it calls, its exit status for a passed
 * run, a failed one, a regressed one and bad arguments, and its JUnit XML file, checked against
 * {@code junit-richter.xsd} (the subset of Jenkins' junit-10.xsd it writes). The same on the local stack: RunGateIT.
 */
class RunMainTest {
    private HttpServer server;
    /** Route ({@code METHOD path}) to status and body. */
    private final Map<String, Object[]> answers = new ConcurrentHashMap<>();
    /** Route to answers given once each, in order, before the route's {@link #answers}. */
    private final Map<String, java.util.Deque<Object[]>> firstAnswers = new ConcurrentHashMap<>();
    /** What the command waited, milliseconds, each time it waited. */
    private final List<Long> sleptMs = new ArrayList<>();
    private final List<String> calls = new ArrayList<>();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    @TempDir
    Path dir;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        server.createContext("/", ex -> {
            try (ex) {
                ex.getRequestBody().readAllBytes();
                String route = ex.getRequestMethod() + " " + ex.getRequestURI().getRawPath()
                        + (ex.getRequestURI().getRawQuery() == null ? "" : "?" + ex.getRequestURI().getRawQuery());
                synchronized (calls) {
                    calls.add(route);
                }
                Object[] first = firstAnswers.getOrDefault(route, new java.util.ArrayDeque<>()).poll();
                Object[] a = first != null ? first
                        : answers.getOrDefault(route, new Object[] {404, "{\"error\":\"NoSuchRoute\",\"message\":\"" + route + "\"}"});
                byte[] b = ((String) a[1]).getBytes(StandardCharsets.UTF_8);
                ex.getResponseHeaders().set("content-type", ((String) a[1]).startsWith("<") ? "text/html" : "application/json");
                ex.sendResponseHeaders((int) a[0], b.length);
                ex.getResponseBody().write(b);
            }
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private int run(String... args) {
        return RunMain.run(new RunMain(Map.of("RICHTER_TOKEN", "t0k"), new PrintStream(out, true), new PrintStream(err, true),
                sleptMs::add), args);
    }

    private String api() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** A report the report builder writes for a run of two formal steps answered in {@code latencyMs}. */
    static JsonNode report(String runId, double latencyMs, long errors) {
        Plan plan = new Plan("plan-9", "t1", "nightly", List.of(new Plan.ScenarioSpec("s", "order", 1, List.of(
                new Plan.RequestSpec("GET", "/x", Map.of(), null, null)))), new Plan.StepSpec(2, 10),
                List.of(new Plan.StepSpec(10, 10), new Plan.StepSpec(20, 10)), null, List.of("order"), 50, 2000, 0);
        List<WorkerResult> rs = List.of(worker(runId, "pre-test", 0, 2, 20, 0, latencyMs),
                worker(runId, "formal", 0, 10, 100, 0, latencyMs), worker(runId, "formal", 1, 20, 200, errors, latencyMs));
        return Json.MAPPER.valueToTree(ReportBuilder.build(new Run(runId, "plan-9", "t1", "RUNNING", "", "", -1, 0, false, "", ""),
                plan, rs, List.of(), List.of(), List.of(), null, 1_796_000_100_000L));
    }

    private static WorkerResult worker(String runId, String stage, int index, double qps, long sent, long errors, double latencyMs) {
        Histogram h = HistogramCodec.newLatencyHistogramUs();
        for (long i = 0; i < sent; i++) {
            h.recordValue((long) (latencyMs * 1000 * (0.8 + 0.4 * i / Math.max(1, sent - 1))));
        }
        long start = 1_796_000_000_000L + 15_000L * (stage.equals("formal") ? index + 1 : 0);
        return new WorkerResult(runId, stage, index, 0, 1, qps, start, start + 10_000,
                new Counters(sent, sent, sent - errors, errors == 0 ? Map.of() : Map.of("500", errors), 0, 0, 0, 0, sent),
                HistogramCodec.encode(h), HistogramCodec.encode(h), false);
    }

    /** Scripts a run {@code run-2} of the existing plan {@code plan-9} ending with {@code report}, compared as {@code compare}. */
    private void script(JsonNode report, int compareStatus, String compare) {
        answers.put("GET /plans?limit=100", new Object[] {200, "{\"items\":[{\"planId\":\"plan-0\",\"name\":\"other\"},"
                + "{\"planId\":\"plan-9\",\"name\":\"nightly\",\"version\":3}]}"});
        answers.put("PUT /plans/plan-9", new Object[] {200, "{\"planId\":\"plan-9\",\"name\":\"nightly\",\"version\":4}"});
        answers.put("POST /plans/plan-9/runs", new Object[] {202, "{\"runId\":\"run-2\",\"planId\":\"plan-9\",\"status\":\"STARTING\"}"});
        answers.put("GET /runs/run-2", new Object[] {200, "{\"run\":{\"runId\":\"run-2\",\"status\":\"COMPLETED\",\"outcome\":\""
                + report.path("outcome").asText() + "\"},\"steps\":[],\"verdicts\":[],\"reportReady\":true}"});
        answers.put("GET /runs/run-2/report", new Object[] {200, Json.write(report)});
        answers.put("GET /runs/run-2/report?format=html", new Object[] {200, "<!DOCTYPE html><html></html>"});
        answers.put("GET /runs/run-2/compare?with=previous", new Object[] {compareStatus, compare});
    }

    private Path planFile() throws IOException {
        Path plan = dir.resolve("plan.json");
        Files.writeString(plan, "{\"name\": \"nightly\", \"formal\": {\"steps\": [{\"qps\": 10, \"durationS\": 10}]}}");
        return plan;
    }

    private static String comparison(JsonNode run, JsonNode baseline) {
        return Json.write(dev.richter.report.RunComparison.of(run, baseline, dev.richter.report.RunComparison.RegressionThresholds.DEFAULT));
    }

    @Test
    void aPassedRunWithNoPreviousRunExitsZeroAndWritesAValidJUnitFile() throws Exception {
        JsonNode report = report("run-2", 10, 0);
        assertEquals("PASSED", report.path("outcome").asText(), report.path("outcomeReason").asText());
        script(report, 404, "{\"error\":\"NoPreviousRun\",\"message\":\"first\"}");
        Path junit = dir.resolve("ci/junit.xml");
        int status = run("--plan", planFile().toString(), "--api", api(), "--out", dir.resolve("out").toString(),
                "--junit", junit.toString());
        assertEquals(RunMain.PASSED, status, out + "\n" + err);
        assertEquals(List.of("GET /plans?limit=100", "PUT /plans/plan-9", "POST /plans/plan-9/runs", "GET /runs/run-2",
                "GET /runs/run-2/report", "GET /runs/run-2/report?format=html", "GET /runs/run-2/compare?with=previous"), calls,
                "the plan of the same name is replaced, never duplicated");
        assertTrue(Files.readString(dir.resolve("out/report.json")).contains("\"runId\":\"run-2\""));
        String xml = Files.readString(junit);
        validate(xml);
        assertTrue(xml.contains("<testsuite name=\"nightly\" id=\"run-2\""), xml);
        assertTrue(xml.contains("name=\"formal step 2 at 20 QPS\""), xml);
        assertTrue(xml.contains("failures=\"0\""), xml);
        assertTrue(out.toString().contains("since the last run: nothing to compare with"), out.toString());
    }

    @Test
    void aFailedRunExitsOne() throws Exception {
        JsonNode report = Json.MAPPER.valueToTree(Json.read(Json.write(report("run-2", 10, 0)), Map.class));
        ((com.fasterxml.jackson.databind.node.ObjectNode) report).put("outcome", "PRE_TEST_FAILED")
                .put("outcomeReason", "pre-test-success-rate: 40 % below 99 %");
        script(report, 404, "{\"error\":\"NoPreviousRun\",\"message\":\"first\"}");
        Path junit = dir.resolve("junit.xml");
        assertEquals(RunMain.FAILED, run("--plan", planFile().toString(), "--api", api(), "--out", dir.toString()), err.toString());
        String xml = Files.readString(junit);
        validate(xml);
        assertTrue(xml.contains("<failure type=\"richter.run\" message=\"PRE_TEST_FAILED: pre-test-success-rate: 40 % below 99 %\""), xml);
    }

    @Test
    void aPassedRunSlowerThanThePreviousExitsTwoWithTheStepsFailure() throws Exception {
        JsonNode slower = report("run-2", 60, 0);
        script(slower, 200, comparison(slower, report("run-1", 10, 0)));
        assertEquals(RunMain.REGRESSED, run("--plan", planFile().toString(), "--api", api(), "--out", dir.toString()),
                out + "\n" + err);
        String xml = Files.readString(dir.resolve("junit.xml"));
        validate(xml);
        assertTrue(xml.contains("<failure type=\"richter.step\" message=\"formal step 1 at 10 QPS: p99 rose from 12.0 ms to 71.8 ms"), xml);
        assertTrue(out.toString().contains("since the last run (run-1): REGRESSION"), out.toString());
    }

    /** {@code answers} as {@link #firstAnswers} of one route. */
    private static java.util.Deque<Object[]> once(Object[]... answers) {
        return new java.util.ArrayDeque<>(java.util.Arrays.asList(answers));
    }

    private static Object[] conflict(String code, String message) {
        return new Object[] {409, "{\"error\":\"" + code + "\",\"message\":\"" + message + "\"}"};
    }

    @Test
    void aPlanInUseAndALeasedTargetAreTriedAgainUntilTheyAreFree() throws Exception {
        JsonNode report = report("run-2", 10, 0);
        script(report, 404, "{\"error\":\"NoPreviousRun\",\"message\":\"first\"}");
        firstAnswers.put("PUT /plans/plan-9", once(conflict("PlanInUse", "plan plan-9 cannot be replaced while its run run-1 holds order")));
        firstAnswers.put("POST /plans/plan-9/runs", once(conflict("TargetLeased", "order is in use by run run-1"),
                conflict("TargetLeased", "order is in use by run run-1")));
        assertEquals(RunMain.PASSED, run("--plan", planFile().toString(), "--api", api(), "--out", dir.toString()),
                out + "\n" + err);
        assertEquals(List.of("GET /plans?limit=100", "PUT /plans/plan-9", "PUT /plans/plan-9", "POST /plans/plan-9/runs",
                "POST /plans/plan-9/runs", "POST /plans/plan-9/runs", "GET /runs/run-2", "GET /runs/run-2/report",
                "GET /runs/run-2/report?format=html", "GET /runs/run-2/compare?with=previous"), calls);
        assertEquals(List.of(5_000L, 5_000L, 5_000L), sleptMs, "one wait of 5 s before each new try");
        String printed = out.toString();
        assertTrue(printed.contains("plan plan-9 not replaced: PlanInUse (plan plan-9 cannot be replaced while its run run-1"
                + " holds order); trying again in 5 s (waited 0 of 300 s)"), printed);
        assertTrue(printed.contains("run of plan plan-9 not started: TargetLeased (order is in use by run run-1); trying again"
                + " in 5 s (waited 5 of 300 s)"), printed);
        assertTrue(printed.contains("(waited 10 of 300 s)"), printed);
        assertTrue(printed.contains("plan plan-9 (nightly): run run-2 started"), printed);
    }

    @Test
    void aTargetStillLeasedPastTheBoundExitsOneNamingTheHolder() throws Exception {
        script(report("run-2", 10, 0), 404, "{\"error\":\"NoPreviousRun\",\"message\":\"first\"}");
        answers.put("POST /plans/plan-9/runs", conflict("TargetLeased", "order is in use by run run-1"));
        assertEquals(RunMain.FAILED, run("--plan", planFile().toString(), "--api", api(), "--busy-wait-s", "12"),
                out + "\n" + err);
        assertEquals(List.of(5_000L, 5_000L), sleptMs, "a third wait would pass the 12 s bound");
        assertEquals(3, calls.stream().filter("POST /plans/plan-9/runs"::equals).count(), calls.toString());
        assertTrue(err.toString().contains("run of plan plan-9 not started: still TargetLeased after 10 s of waiting"
                + " (--busy-wait-s 12)"), err.toString());
        assertTrue(err.toString().contains("run not started: HTTP 409 TargetLeased: order is in use by run run-1"), err.toString());
    }

    @Test
    void busyWaitZeroFailsAtOnceAndANegativeOneIsABadArgument() throws Exception {
        script(report("run-2", 10, 0), 404, "{\"error\":\"NoPreviousRun\",\"message\":\"first\"}");
        answers.put("PUT /plans/plan-9", conflict("PlanInUse", "plan plan-9 cannot be replaced while its run run-1 holds order"));
        assertEquals(RunMain.FAILED, run("--plan", planFile().toString(), "--api", api(), "--busy-wait-s", "0"));
        assertEquals(List.of(), sleptMs);
        assertEquals(List.of("GET /plans?limit=100", "PUT /plans/plan-9"), calls);
        assertTrue(err.toString().contains("plan plan-9 not replaced: HTTP 409 PlanInUse"), err.toString());
        err.reset();
        assertEquals(RunMain.USAGE, run("--plan", planFile().toString(), "--api", api(), "--busy-wait-s", "-1"));
        assertTrue(err.toString().contains("--busy-wait-s: must be 0 or a positive number of seconds"), err.toString());
    }

    @Test
    void badArgumentsExit64WithAMessage() throws Exception {
        assertEquals(RunMain.USAGE, run("--api", api()));
        assertTrue(err.toString().contains("Missing required option: '--plan=FILE'"), err.toString());
        err.reset();
        assertEquals(RunMain.USAGE, run("--plan", dir.resolve("none.json").toString(), "--api", api()));
        assertTrue(err.toString().contains("none.json: no such file"), err.toString());
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{\"name\": ");
        err.reset();
        assertEquals(RunMain.USAGE, run("--plan", bad.toString(), "--api", api()));
        assertTrue(err.toString().contains("bad.json: not JSON"), err.toString());
        err.reset();
        assertEquals(RunMain.USAGE, run("--plan", planFile().toString(), "--api", api(), "--frobnicate"));
        assertTrue(err.toString().contains("Unknown option: '--frobnicate'"), err.toString());
        assertEquals(List.of(), calls, "nothing is sent for bad arguments");
    }

    /** Validates {@code xml} against {@code junit-richter.xsd}. */
    static void validate(String xml) throws Exception {
        var schema = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI)
                .newSchema(RunMainTest.class.getResource("/junit-richter.xsd"));
        schema.newValidator().validate(new StreamSource(new StringReader(xml)));
    }
}
