package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Link building on the local stack through the real Lambda Invoke API and HTTP API, driven by the
 * sample events in {@code events/link-builder/}: ingest (corpus bug 03, a Kafka hop through a span
 * link) → tree → upstream → annotate → exits → comparison with a marked link set; and
 * {@code POST /traces} with a corpus file and with a malformed one.
 */
class LinksIT extends LocalAwsStackTestSupport {
    private static JsonNode invoke(String event) throws Exception {
        byte[] payload = Files.readAllBytes(root.resolve("events/link-builder/" + event));
        LambdaHost.Invocation inv = stack.lambdaHost().invoke(
                new SamTemplate.FunctionDef("LinkBuilderFunction", "").arn(), payload);
        assertEquals(null, inv.functionError(), new String(inv.payload()));
        return Json.MAPPER.readTree(inv.payload());
    }

    @Test
    void ingestTreeUpstreamExitsAndComparisonFromTheSampleEvents() throws Exception {
        JsonNode ingest = invoke("ingest.json");
        assertTrue(ingest.path("edgesAdded").asInt() > 0, ingest.toString());

        JsonNode tree = invoke("tree.json");
        assertTrue(tree.toString().contains("\"billing-svc\""), "order-svc -> billing-svc through the span link: " + tree);
        JsonNode upstream = invoke("upstream.json");
        assertTrue(upstream.toString().contains("\"order-svc\""), upstream.toString());

        invoke("annotate.json");
        JsonNode exits = invoke("exits.json");
        JsonNode billing = null;
        for (JsonNode e : exits.isArray() ? exits : exits.path("exits")) {
            if (e.path("toService").asText().equals("billing-svc")) {
                billing = e;
            }
        }
        assertTrue(billing != null, "billing-svc is an exit of scope {order-svc}: " + exits);
        assertTrue(billing.path("mockRequired").asBoolean(), "the annotation survives and marks the exit: " + billing);

        invoke("ingest-marked.json");
        JsonNode comparison = invoke("compare.json");
        assertTrue(comparison.path("missingEdges").toString().contains("billing-svc"),
                "marked traffic never reached billing-svc: " + comparison);
        assertEquals(0, comparison.path("extraEdges").size(), comparison.toString());
    }

    @Test
    void postTracesIngestsACorpusFileAndRejectsAMalformedOneWithItsPosition() throws Exception {
        ApiClient api = api("team-links");
        Path yelp = Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"), "traces/zipkin/yelp.json");
        var ok = api.post("/traces?file=yelp.json", Files.readString(yelp));
        assertEquals(200, ok.status(), ok.body());
        assertEquals("ZIPKIN_V2_JSON", ok.json().path("format").asText(), ok.body());
        assertTrue(ok.json().path("spansParsed").asInt() > 0);

        var bad = api.post("/traces?file=broken.json", "{\"resourceSpans\": [ {\"resource\": }");
        assertEquals(400, bad.status(), bad.body());
        assertEquals("InvalidTraceFile", bad.json().path("error").asText());
        assertTrue(bad.json().path("errors").get(0).path("path").asText().startsWith("broken.json:1:"), bad.body());
    }

    @Test
    void scheduledRebuildIngestsTheSpansOfTheTeamsTraceSource() throws Exception {
        String team = "team-rebuild";
        Path dir = Files.createTempDirectory("richter-trace-source");
        Files.copy(Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"), "bugs/03-kafka-link-not-parent.otlp.json"),
                dir.resolve("spans.otlp.json"));
        ApiClient api = api(team);
        register(api, "order-svc", "http://127.0.0.1:9");
        var put = api.put("/safety", Json.write(java.util.Map.of("traceSource", java.util.Map.of("kind", "directory", "path", dir.toString()))));
        assertTrue(put.status() == 200 || put.status() == 201, put.body());

        // the schedule's event, for this team, with a window wide enough for the corpus file's timestamps
        byte[] event = Json.MAPPER.writeValueAsBytes(java.util.Map.of("action", "rebuild", "teamId", team,
                "lookbackMinutes", 60 * 24 * 365 * 10));
        LambdaHost.Invocation inv = stack.lambdaHost().invoke("LinkBuilderFunction", event);
        assertEquals(null, inv.functionError(), new String(inv.payload()));
        JsonNode result = Json.MAPPER.readTree(inv.payload()).path("teams").path(team);
        assertTrue(result.path("edgesAdded").asInt() > 0, result.toString());

        byte[] treeEvent = Json.MAPPER.writeValueAsBytes(java.util.Map.of("action", "tree", "teamId", team,
                "dimension", "service", "node", "order-svc", "maxDepth", 5));
        JsonNode tree = Json.MAPPER.readTree(stack.lambdaHost().invoke("LinkBuilderFunction", treeEvent).payload());
        assertTrue(tree.toString().contains("\"billing-svc\""), "rebuilt from the trace source: " + tree);
    }
}
