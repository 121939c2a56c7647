package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * {@link LambdaHost} answers as AWS Lambda does on timeouts and payload limits, with compressed
 * limits (a 1 s Timeout, a 1000-byte payload limit) so that no test waits long. No Node, no DynamoDB.
 */
class LambdaHostTest {
    static final String TEMPLATE = """
            Parameters:
              ProbeTimeoutSeconds: {Type: Number, Default: 1, MinValue: 1, MaxValue: 900}
            Globals:
              Function:
                MemorySize: 256
            Resources:
              ProbeFunction:
                Type: AWS::Serverless::Function
                Properties:
                  Handler: dev.richter.local.ProbeHandler::handleRequest
                  Timeout: {Ref: ProbeTimeoutSeconds}
                  Events:
                    Probe: {Type: HttpApi, Properties: {Path: /probe, Method: POST}}
            """;
    static final int LIMIT = 1000;

    @TempDir
    Path dir;
    final List<String> log = new CopyOnWriteArrayList<>();
    LambdaHost host;

    @BeforeEach
    void setUp() throws IOException {
        Files.writeString(dir.resolve("template.yaml"), TEMPLATE);
        host = new LambdaHost(SamTemplate.load(dir), LIMIT, log::add);
        ProbeHandler.interrupted = new CountDownLatch(1);
    }

    @AfterEach
    void tearDown() {
        host.close();
    }

    static byte[] event(Map<String, Object> e) {
        return Json.write(e).getBytes(StandardCharsets.UTF_8);
    }

    static JsonNode json(LambdaHost.Invocation inv) throws IOException {
        return Json.MAPPER.readTree(inv.payload());
    }

    @Test
    void aHandlerSleepingPastItsTimeoutGetsSandboxTimedoutAndIsInterruptedAndDiscarded() throws Exception {
        LambdaHost.Invocation warm = host.invoke("ProbeFunction", event(Map.of()));
        int warmInstance = json(warm).path("instance").asInt();

        long t0 = System.nanoTime();
        LambdaHost.Invocation inv = host.invoke("ProbeFunction", event(Map.of("sleepMs", 10_000)));
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);

        assertTrue(elapsedMs >= 950 && elapsedMs < 1500, "answered after " + elapsedMs + " ms");
        assertEquals(200, inv.status());
        assertEquals("Unhandled", inv.functionError());
        JsonNode err = json(inv);
        assertEquals("Sandbox.Timedout", err.path("errorType").asText());
        assertEquals("RequestId: " + inv.requestId() + " Error: Task timed out after 1.00 seconds", err.path("errorMessage").asText());
        assertTrue(ProbeHandler.interrupted.await(2, TimeUnit.SECONDS), "the handler thread is interrupted");
        assertTrue(log.stream().anyMatch(l -> l.contains("ProbeFunction") && l.contains("TIMED OUT") && l.contains("Timeout 1 s")), log.toString());

        // the timed-out invocation ran on the warm instance; it is not reused (AWS discards the sandbox),
        // the next invocation builds a new one, which is then reused
        LambdaHost.Invocation a = host.invoke("ProbeFunction", event(Map.of()));
        LambdaHost.Invocation b = host.invoke("ProbeFunction", event(Map.of()));
        assertNull(a.functionError());
        assertNotEquals(warmInstance, json(a).path("instance").asInt());
        assertEquals(json(a).path("instance").asInt(), json(b).path("instance").asInt());
    }

    @Test
    void theContextHasTheTrueRemainingTimeTheMemorySizeAndAFreshRequestId() throws Exception {
        JsonNode first = json(host.invoke("ProbeFunction", event(Map.of("sleepMs", 300))));
        int start = first.path("remainingAtStartMs").asInt();
        int end = first.path("remainingAtEndMs").asInt();
        assertTrue(start > 900 && start <= 1000, "starts near the 1 s timeout: " + start);
        assertTrue(start - end >= 290 && end > 0, "decreases with the time spent: " + start + " -> " + end);
        assertEquals(256, first.path("memoryMb").asInt(), "Globals.Function.MemorySize");
        assertEquals(SamTemplate.functionArn("ProbeFunction"), first.path("functionArn").asText());

        JsonNode second = json(host.invoke("ProbeFunction", event(Map.of())));
        assertNotEquals(first.path("requestId").asText(), second.path("requestId").asText());
        assertEquals(36, second.path("requestId").asText().length(), "a UUID");
    }

    @Test
    void aTimeoutFromAParameterOverrideIsEnforced() throws Exception {
        LambdaHost longer = new LambdaHost(SamTemplate.load(dir, Map.of("ProbeTimeoutSeconds", "2")), LIMIT, log::add);
        try {
            LambdaHost.Invocation inv = longer.invoke("ProbeFunction", event(Map.of("sleepMs", 1200)));
            assertNull(inv.functionError(), "1.2 s fits a 2 s timeout");
            assertTrue(json(inv).path("remainingAtStartMs").asInt() > 1900);
        } finally {
            longer.close();
        }
    }

    @Test
    void aRequestOverTheLimitGets413AndTheFunctionDoesNotRun() throws Exception {
        int before = ProbeHandler.INSTANCES.get();
        byte[] big = event(Map.of("pad", "p".repeat(LIMIT)));
        LambdaHost.Invocation inv = host.invoke("ProbeFunction", big);
        assertEquals(413, inv.status());
        assertEquals("RequestEntityTooLargeException", inv.errorType());
        assertEquals("{\"Type\":\"User\",\"message\":\"Request must be smaller than 1000 bytes for the InvokeFunction operation\"}",
                new String(inv.payload(), StandardCharsets.UTF_8));
        assertEquals(before, ProbeHandler.INSTANCES.get(), "no handler built");

        byte[] exact = ("{\"pad\":\"" + "p".repeat(LIMIT - 10) + "\"}").getBytes(StandardCharsets.UTF_8);
        assertEquals(LIMIT, exact.length);
        assertEquals(200, host.invoke("ProbeFunction", exact).status(), "exactly the limit is accepted");
    }

    @Test
    void aResponseOverTheLimitBecomesFunctionResponseSizeTooLarge() throws Exception {
        int responseLimit = LIMIT + LambdaHost.RESPONSE_ALLOWANCE_BYTES;
        LambdaHost.Invocation ok = host.invoke("ProbeFunction", event(Map.of("responseBytes", responseLimit)));
        assertNull(ok.functionError());
        assertEquals(responseLimit, ok.payload().length);

        LambdaHost.Invocation inv = host.invoke("ProbeFunction", event(Map.of("responseBytes", responseLimit + 1)));
        assertEquals(200, inv.status());
        assertEquals("Unhandled", inv.functionError());
        assertEquals("{\"errorType\":\"Function.ResponseSizeTooLarge\",\"errorMessage\":"
                        + "\"Response payload size exceeded maximum allowed payload size (1100 bytes).\"}",
                new String(inv.payload(), StandardCharsets.UTF_8));
    }

    @Test
    void awsDefaultLimitsAreTheDocumentedNumbers() throws Exception {
        LambdaHost aws = new LambdaHost(SamTemplate.load(dir), log::add);
        try {
            assertEquals(6_291_456, aws.invokePayloadBytes());
            assertEquals(6_291_556, aws.invokePayloadBytes() + LambdaHost.RESPONSE_ALLOWANCE_BYTES);
        } finally {
            aws.close();
        }
    }

    @Test
    void aHandlerExceptionIsAnUnhandledFunctionErrorAndAnUnknownFunctionA404() throws Exception {
        LambdaHost.Invocation inv = host.invoke("ProbeFunction", event(Map.of("fail", true)));
        assertEquals(200, inv.status());
        assertEquals("Unhandled", inv.functionError());
        assertEquals("IllegalStateException", json(inv).path("errorType").asText());
        assertEquals("asked to fail", json(inv).path("errorMessage").asText());

        LambdaHost.Invocation missing = host.invoke("NoSuchFunction", event(Map.of()));
        assertEquals(404, missing.status());
        assertEquals("ResourceNotFoundException", missing.errorType());
    }

    @Test
    void theInvokeApiSendsTheAwsHeaders() throws Exception {
        int lambdaPort = freePort();
        int apiPort = freePort();
        host.start(lambdaPort, apiPort);
        HttpClient http = HttpClient.newHttpClient();
        URI uri = URI.create("http://127.0.0.1:" + lambdaPort + "/2015-03-31/functions/"
                + SamTemplate.functionArn("ProbeFunction") + "/invocations");

        HttpResponse<String> tooLarge = http.send(HttpRequest.newBuilder(uri)
                .POST(HttpRequest.BodyPublishers.ofByteArray(event(Map.of("pad", "p".repeat(LIMIT))))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(413, tooLarge.statusCode());
        assertEquals("RequestEntityTooLargeException", tooLarge.headers().firstValue("x-amzn-ErrorType").orElse(null));
        assertTrue(tooLarge.body().contains("Request must be smaller than 1000 bytes for the InvokeFunction operation"));

        HttpResponse<String> timedOut = http.send(HttpRequest.newBuilder(uri)
                .POST(HttpRequest.BodyPublishers.ofByteArray(event(Map.of("sleepMs", 5000)))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, timedOut.statusCode());
        assertEquals("Unhandled", timedOut.headers().firstValue("X-Amz-Function-Error").orElse(null));
        assertEquals("Sandbox.Timedout", Json.MAPPER.readTree(timedOut.body()).path("errorType").asText());
        assertTrue(timedOut.headers().firstValue("x-amzn-RequestId").isPresent());

        HttpResponse<String> api = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + apiPort + "/probe"))
                .POST(HttpRequest.BodyPublishers.ofString("p".repeat(LIMIT))).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(500, api.statusCode(), "a 413 from Lambda is an integration failure for the HTTP API: " + api.body());
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
