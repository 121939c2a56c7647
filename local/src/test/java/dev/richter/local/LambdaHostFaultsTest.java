package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LambdaHost} answers each Lambda fault of {@link LocalFaults} as AWS answers the failure it imitates, over the
 * real Invoke API (and the HTTP API), with the 1 s Timeout of {@link LambdaHostTest#TEMPLATE}. No Node, no DynamoDB.
 */
class LambdaHostFaultsTest {
    @TempDir
    Path dir;
    final List<String> log = new CopyOnWriteArrayList<>();
    final List<String> stackLog = new CopyOnWriteArrayList<>();
    final HttpClient http = HttpClient.newHttpClient();
    FaultInjector faults;
    LambdaHost host;
    int lambdaPort;
    int apiPort;

    @BeforeEach
    void setUp() throws Exception {
        Files.writeString(dir.resolve("template.yaml"), LambdaHostTest.TEMPLATE);
        SamTemplate template = SamTemplate.load(dir);
        faults = new FaultInjector(LocalFaults.NONE, dir.resolve("faults.jsonl"), stackLog::add);
        faults.targets(java.util.Set.of("ProbeFunction"), Map.of());
        host = new LambdaHost(template, LambdaHostTest.LIMIT, ApiAuth.none(), LambdaHost.API_GATEWAY_MAX_BODY_BYTES, faults, log::add);
        lambdaPort = LambdaHostTest.freePort();
        apiPort = LambdaHostTest.freePort();
        host.start(lambdaPort, apiPort);
        ProbeHandler.interrupted = new CountDownLatch(1);
    }

    @AfterEach
    void tearDown() {
        host.close();
    }

    private HttpResponse<String> invoke(Map<String, Object> event) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + lambdaPort + "/2015-03-31/functions/"
                + SamTemplate.functionArn("ProbeFunction") + "/invocations");
        return http.send(HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.ofString(Json.write(event))).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String header(HttpResponse<?> r, String name) {
        return r.headers().firstValue(name).orElse(null);
    }

    private List<JsonNode> faultLines() throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (String l : Files.readAllLines(dir.resolve("faults.jsonl"))) {
            out.add(Json.MAPPER.readTree(l));
        }
        return out;
    }

    @Test
    void errorAnswersAsAHandlerExceptionWithoutRunningTheHandler() throws Exception {
        faults.set(LocalFaults.parse("lambda.ProbeFunction=error@from:2"));
        assertNull(header(invoke(Map.of()), "X-Amz-Function-Error"), "from:2 lets the first through");
        int ran = ProbeHandler.INVOCATIONS.get();

        HttpResponse<String> r = invoke(Map.of());
        assertEquals(200, r.statusCode());
        assertEquals("Unhandled", header(r, "X-Amz-Function-Error"));
        JsonNode err = Json.MAPPER.readTree(r.body());
        assertEquals("Richter.InjectedFault", err.path("errorType").asText());
        assertEquals("RequestId: " + header(r, "x-amzn-RequestId") + " Error: fault injected by the local stack"
                + " (lambda.ProbeFunction=error@from:2)", err.path("errorMessage").asText());
        assertTrue(err.path("stackTrace").isArray());
        assertEquals(ran, ProbeHandler.INVOCATIONS.get(), "the handler did not run");

        JsonNode line = faultLines().get(0);
        assertEquals(List.of("lambda", "ProbeFunction", "Invoke", "error", "1", "lambda.ProbeFunction"),
                List.of(line.path("component").asText(), line.path("target").asText(), line.path("operation").asText(),
                        line.path("kind").asText(), line.path("n").asText(), line.path("rule").asText()));
        assertTrue(log.stream().anyMatch(l -> l.startsWith("lambda ProbeFunction FAULT injected: error")), log.toString());
        assertTrue(stackLog.stream().anyMatch(l -> l.startsWith("FAULT injected: lambda ProbeFunction Invoke error")), stackLog.toString());
        assertEquals(Map.of("lambda.ProbeFunction", 1L), faults.fired());
    }

    @Test
    void timeoutWaitsTheFunctionsTimeoutAndAnswersSandboxTimedoutWithoutRunningTheHandler() throws Exception {
        faults.set(LocalFaults.parse("lambda.ProbeFunction=timeout"));
        int ran = ProbeHandler.INVOCATIONS.get();
        long t0 = System.nanoTime();
        HttpResponse<String> r = invoke(Map.of());
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(elapsedMs >= 950 && elapsedMs < 3000, "answered after the 1 s Timeout: " + elapsedMs);
        assertEquals(200, r.statusCode());
        assertEquals("Unhandled", header(r, "X-Amz-Function-Error"));
        assertEquals("{\"errorType\":\"Sandbox.Timedout\",\"errorMessage\":\"RequestId: " + header(r, "x-amzn-RequestId")
                + " Error: Task timed out after 1.00 seconds\"}", r.body(), "exactly a real timeout's answer");
        assertEquals(ran, ProbeHandler.INVOCATIONS.get(), "the handler did not run");
        assertEquals("timeout", faultLines().get(0).path("kind").asText());
    }

    @Test
    void throttleAnswers429TooManyRequestsOnlyOnTheNthInvocation() throws Exception {
        faults.set(LocalFaults.parse("lambda.ProbeFunction=throttle@nth:2"));
        int ran = ProbeHandler.INVOCATIONS.get();
        assertEquals(200, invoke(Map.of()).statusCode());
        HttpResponse<String> r = invoke(Map.of());
        assertEquals(429, r.statusCode());
        assertEquals("TooManyRequestsException", header(r, "x-amzn-ErrorType"));
        assertNull(header(r, "X-Amz-Function-Error"));
        assertEquals("{\"Type\":\"User\",\"message\":\"Rate Exceeded.\",\"Reason\":\"ReservedFunctionConcurrentInvocationLimitExceeded\"}",
                r.body());
        assertEquals(200, invoke(Map.of()).statusCode());
        assertEquals(ran + 2, ProbeHandler.INVOCATIONS.get(), "the throttled one did not run");
        assertEquals(Map.of("lambda.ProbeFunction", 1L), faults.fired());
    }

    @Test
    void crashCutsTheRunningHandlerInterruptsItsThreadAndDiscardsTheInstance() throws Exception {
        int warmInstance = Json.MAPPER.readTree(invoke(Map.of()).body()).path("instance").asInt();
        faults.set(LocalFaults.parse("lambda.ProbeFunction=crash:300@nth:1"));
        int ran = ProbeHandler.INVOCATIONS.get();
        long t0 = System.nanoTime();
        HttpResponse<String> r = invoke(Map.of("sleepMs", 10_000));
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(elapsedMs >= 290 && elapsedMs < 900, "cut 300 ms after the start: " + elapsedMs);
        assertEquals(ran + 1, ProbeHandler.INVOCATIONS.get(), "the handler ran");
        assertEquals(200, r.statusCode());
        assertEquals("Unhandled", header(r, "X-Amz-Function-Error"));
        assertEquals("{\"errorType\":\"Runtime.ExitError\",\"errorMessage\":\"RequestId: " + header(r, "x-amzn-RequestId")
                + " Error: Runtime exited with error: signal: killed\"}", r.body());
        assertTrue(ProbeHandler.interrupted.await(2, TimeUnit.SECONDS), "the handler thread is interrupted");
        JsonNode line = faultLines().get(0);
        assertEquals("crash", line.path("kind").asText());
        assertTrue(line.path("atMs").asLong() >= System.currentTimeMillis() - elapsedMs - 1000);
        assertTrue(log.stream().anyMatch(l -> l.contains("FAULT injected: crash 300 ms") && l.contains("instance discarded")), log.toString());

        JsonNode next = Json.MAPPER.readTree(invoke(Map.of()).body());
        assertNotEquals(warmInstance, next.path("instance").asInt(), "the crashed instance (the warm one) is not reused");
    }

    @Test
    void aHandlerThatReturnsBeforeTheCrashDelayIsNotCut() throws Exception {
        faults.set(LocalFaults.parse("lambda.ProbeFunction=crash:2000"));
        HttpResponse<String> r = invoke(Map.of("sleepMs", 50));
        assertEquals(200, r.statusCode());
        assertNull(header(r, "X-Amz-Function-Error"));
        assertEquals(Map.of("lambda.ProbeFunction", 0L), faults.fired(), "the fault did not fire");
        assertTrue(!Files.exists(dir.resolve("faults.jsonl")));

        faults.set(LocalFaults.parse("lambda.ProbeFunction=crash:5000"));
        HttpResponse<String> timedOut = invoke(Map.of("sleepMs", 10_000));
        assertEquals("Sandbox.Timedout", Json.MAPPER.readTree(timedOut.body()).path("errorType").asText(), "the 1 s Timeout comes first");
    }

    @Test
    void theHttpApiPathGetsTheFaultsTooAsAnIntegrationFailure() throws Exception {
        faults.set(LocalFaults.parse("lambda.ProbeFunction=throttle"));
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + apiPort + "/probe"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(500, r.statusCode(), r.body());
        assertEquals(Map.of("lambda.ProbeFunction", 1L), faults.fired());
    }

    @Test
    void aSeededProbabilityGivesTheSameSequenceAsLocalFaultsAndFaultsAreReplaceableAtRunTime() throws Exception {
        faults.set(LocalFaults.parse("seed=7,lambda.ProbeFunction=throttle@p:0.5"));
        List<Boolean> expected = new ArrayList<>();
        List<Boolean> actual = new ArrayList<>();
        for (int k = 1; k <= 12; k++) {
            expected.add(LocalFaults.unit(7, "lambda.ProbeFunction", k) < 0.5);
            actual.add(invoke(Map.of()).statusCode() == 429);
        }
        assertEquals(expected, actual);
        assertTrue(actual.contains(true) && actual.contains(false), actual.toString());

        faults.set(LocalFaults.parse("lambda.*=error"));
        assertEquals("Unhandled", header(invoke(Map.of()), "X-Amz-Function-Error"), "armed mid-run");
        faults.clear();
        HttpResponse<String> ok = invoke(Map.of());
        assertEquals(200, ok.statusCode());
        assertNull(header(ok, "X-Amz-Function-Error"), "cleared mid-run");
    }
}
