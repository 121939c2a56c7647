package dev.richter.loaddriver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.richter.common.Json;
import dev.richter.common.model.WorkerResult;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class LoadDriverHandlerTest {
    @Test
    void sampleEventRunsAndReturnsTheResultWithoutHistograms() throws Exception {
        JsonNode event = Json.MAPPER.readTree(Path.of("../../events/load-driver/worker.json").toFile());
        try (TestServer server = new TestServer(0); JdkHttpTransport transport = new JdkHttpTransport()) {
            ((ObjectNode) event).put("qps", 10).put("durationS", 1);
            for (JsonNode s : event.get("scenarios")) {
                ((ObjectNode) s).put("targetBaseUrl", server.baseUrl());
            }
            ResultSink.InMemory sink = new ResultSink.InMemory();
            LoadDriverHandler handler = new LoadDriverHandler(new LoadDriver(transport, sink, id -> false));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            handler.handleRequest(new ByteArrayInputStream(Json.MAPPER.writeValueAsBytes(event)), out, null);

            JsonNode result = Json.MAPPER.readTree(out.toByteArray());
            assertTrue(result.get("latencyFromIntendedHist").isNull());
            assertTrue(result.get("latencyFromSendHist").isNull());
            assertEquals(10, result.get("counters").get("ok").asLong());
            WorkerResult stored = sink.results().get(0);
            assertNotNull(stored.latencyFromIntendedHist());
            assertEquals("result#formal#000#0000#00000", stored.sortKey());
            assertEquals(10, server.seen.size());
            long posts = server.seen.stream().filter(s -> s.method().equals("POST")).count();
            assertEquals(2, posts, "weights 3:1 over 10 requests");
            server.seen.stream().filter(s -> s.method().equals("POST"))
                    .forEach(s -> assertEquals("{\"sku\":\"A-1\",\"qty\":1}", new String(s.body())));
        }
    }
}
