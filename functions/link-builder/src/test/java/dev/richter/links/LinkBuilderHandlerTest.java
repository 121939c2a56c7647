package dev.richter.links;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.links.store.LinkRepository;
import dev.richter.links.trace.TraceFormatException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;

/** The sample events in {@code events/link-builder/} run through the handler, in order. */
class LinkBuilderHandlerTest {
    private final LinkBuilderHandler handler =
            new LinkBuilderHandler(new LinkService(new LinkRepository(new FakeDynamoDb(), "links"), 32, Clock.systemUTC()),
                    new dev.richter.common.Repositories(new FakeDynamoDb(), dev.richter.common.TableNames.fromEnv()));

    @Test
    void sampleEvents() throws Exception {
        JsonNode ingest = call("ingest.json");
        assertEquals(1, ingest.path("edgesAdded").asInt() / 2, "order-svc → billing-svc, both dimensions");
        assertEquals("OTLP_JSON", ingest.path("format").asText());
        call("ingest-marked.json");
        JsonNode tree = call("tree.json");
        assertEquals("billing-svc", tree.path("nodes").get(0).path("node").asText());
        JsonNode up = call("upstream.json");
        assertEquals("order-svc", up.path("nodes").get(0).path("node").asText());
        call("annotate.json");
        JsonNode exits = call("exits.json");
        assertTrue(exits.path("exits").get(0).path("mockRequired").asBoolean());
        JsonNode compare = call("compare.json");
        assertEquals("billing-svc", compare.path("missingEdges").get(0).path("to").asText());
    }

    @Test
    void badRequestsFailWithTheField() {
        assertThrows(IllegalArgumentException.class, () -> run("{\"action\":\"nope\"}"));
        assertThrows(IllegalArgumentException.class, () -> run("{\"action\":\"tree\",\"teamId\":\"t\",\"dimension\":\"service\"}"));
        TraceFormatException e = assertThrows(TraceFormatException.class,
                () -> run("{\"action\":\"ingest\",\"teamId\":\"t\",\"fileName\":\"x.json\",\"documentText\":\"{\\n  \\\"resourceSpans\\\": [}\"}"));
        assertEquals(2, e.line());
    }

    private JsonNode call(String event) throws Exception {
        Path p = Path.of("../../events/link-builder", event); // surefire runs in the module directory
        if (!Files.exists(p)) {
            p = Path.of("events/link-builder", event);
        }
        return run(Files.readString(p));
    }

    private JsonNode run(String json) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        handler.handleRequest(new ByteArrayInputStream(json.getBytes()), out, null);
        return Json.MAPPER.readTree(out.toByteArray());
    }
}
