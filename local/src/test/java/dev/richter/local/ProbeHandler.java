package dev.richter.local;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A handler for {@link LambdaHostTest}, driven by its event {@code {sleepMs, responseBytes, fail}}:
 * sleeps {@code sleepMs}, then answers {@code responseBytes} bytes of {@code x} when given, else
 * {@code {requestId, memoryMb, remainingAtStartMs, remainingAtEndMs, instance}}; {@code fail} throws.
 * Counts constructed instances and invocations, and records whether a sleep was interrupted.
 */
public final class ProbeHandler implements RequestStreamHandler {
    static final AtomicInteger INSTANCES = new AtomicInteger();
    static final AtomicInteger INVOCATIONS = new AtomicInteger();
    static volatile CountDownLatch interrupted = new CountDownLatch(1);

    private final int instance = INSTANCES.incrementAndGet();

    @Override
    public void handleRequest(InputStream input, OutputStream output, Context context) throws IOException {
        INVOCATIONS.incrementAndGet();
        JsonNode event = Json.MAPPER.readTree(input);
        int remainingAtStart = context.getRemainingTimeInMillis();
        if (event.path("fail").asBoolean(false)) {
            throw new IllegalStateException("asked to fail");
        }
        long sleepMs = event.path("sleepMs").asLong(0);
        if (sleepMs > 0) {
            try {
                Thread.sleep(sleepMs);
            } catch (InterruptedException e) {
                interrupted.countDown();
                return;
            }
        }
        int responseBytes = event.path("responseBytes").asInt(-1);
        if (responseBytes >= 0) {
            output.write("x".repeat(responseBytes).getBytes(StandardCharsets.US_ASCII));
            return;
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("requestId", context.getAwsRequestId());
        out.put("memoryMb", context.getMemoryLimitInMB());
        out.put("remainingAtStartMs", remainingAtStart);
        out.put("remainingAtEndMs", context.getRemainingTimeInMillis());
        out.put("instance", instance);
        out.put("functionArn", context.getInvokedFunctionArn());
        output.write(Json.write(out).getBytes(StandardCharsets.UTF_8));
    }
}
