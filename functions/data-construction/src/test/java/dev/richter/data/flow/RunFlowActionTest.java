package dev.richter.data.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.TableNames;
import dev.richter.data.DataConstructionHandler;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The data-construction function's {@code run-flow} action, through {@code handleRequest}, as Step Functions or the CLI call it. */
class RunFlowActionTest {
    @Test
    void runsAStoredFlowIntoADataSet() throws Exception {
        List<String> tokens = new CopyOnWriteArrayList<>();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/tokens", ex -> {
            tokens.add(ex.getRequestHeaders().getFirst("x-load-test"));
            byte[] b = "{\"access_token\":\"tok\"}".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        server.start();
        try {
            FakeRegistry registry = new FakeRegistry();
            DataSetStore store = new DataSetStore(registry.client, "registry");
            Flow flow = new FlowService(store, null, () -> 1L).create("t1", new Flow(null, null, "tokens", Map.of("baseUrl", "string"),
                    List.of(new Flow.Step("token", LogicUnit.http(Map.of("baseUrl", "string"), Map.of("token", "string"), "POST",
                            "{{baseUrl}}/tokens", Map.of(), null, Map.of("token", "body.access_token")), Map.of("baseUrl", "input.baseUrl"))),
                    Map.of("token", "token.token"), 0));
            Repositories repositories = new Repositories(registry.client,
                    new TableNames("registry", "plans", "runs", "run-metrics", "verdicts", "links", "reports", "audit"), new dev.richter.common.secrets.MemorySecretSealer());
            repositories.putService(new dev.richter.common.model.RegisteredService("t1", "tokens",
                    "http://127.0.0.1:" + server.getAddress().getPort(), "/health", "/metrics", List.of()));
            var handler = new DataConstructionHandler(repositories);
            ObjectNode event = Json.MAPPER.createObjectNode().put("action", "run-flow").put("teamId", "t1")
                    .put("flowId", flow.flowId()).put("rows", 4).put("concurrency", 2).put("dataSetId", "tok");
            event.putObject("inputs").put("baseUrl", "http://127.0.0.1:" + server.getAddress().getPort());
            event.putObject("marker").put("header", "x-load-test").put("key", "").put("value", "shadow");
            JsonNode result = invoke(handler, event);
            assertEquals(true, result.path("complete").asBoolean());
            assertEquals(4, result.path("ok").asInt());
            assertEquals(List.of("shadow", "shadow", "shadow", "shadow"), tokens);
            DataSet set = store.get("t1", "tok").orElseThrow();
            assertEquals("x-load-test", set.marker().header());
            assertEquals("tok", set.rows().get(3).values().get("token").asText());

            event.put("flowId", "flow-missing");
            assertThrows(IllegalArgumentException.class, () -> invoke(handler, event));
        } finally {
            server.stop(0);
        }
    }

    private static JsonNode invoke(DataConstructionHandler handler, ObjectNode event) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        handler.handleRequest(new ByteArrayInputStream(Json.write(event).getBytes(StandardCharsets.UTF_8)), out, null);
        return Json.MAPPER.readTree(out.toByteArray());
    }
}
