package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * README command 1's main job end to end: the local stack, the real demo shop (three services
 * with the OpenTelemetry agent), the shop plan (pre-test 2 QPS x 10 s; formal 20 -> 40 -> 80 QPS
 * x 15 s) through the HTTP API, span ingestion, and the report files.
 */
class MainJobIT extends LocalAwsStackTestSupport {

    @Test
    void mainJobWritesAReportWithThePreTestAndThreeFormalStepsOnTarget() throws Exception {
        Path dir;
        try (Shop shop = Shop.start(root, Demo.shopEnv(stack))) {
            dir = Demo.run(root, stack, root.resolve("local/target/it-reports"));
        }
        JsonNode report = Json.MAPPER.readTree(Files.readString(dir.resolve("report.json")));
        String html = Files.readString(dir.resolve("report.html"));
        // the charts are uPlot canvases drawn from the inlined data; the call graph is server-side SVG
        assertTrue(html.contains("id=\"richter-data\""), "self-contained HTML with its chart data");
        assertTrue(html.contains("class=\"callgraph\""), "self-contained HTML with its call graph");
        assertTrue(dir.startsWith(root.resolve("local/target")), "the IT writes nothing into the demo's build/reports");
        assertEquals(1, report.path("preTest").size());
        assertEquals(3, report.path("formal").size(), report.path("outcomeReason").asText());
        List<Long> expectedCounts = List.of(20L, 300L, 600L, 1200L);
        List<Double> targets = List.of(2.0, 20.0, 40.0, 80.0);
        List<JsonNode> steps = List.of(report.path("preTest").get(0), report.path("formal").get(0),
                report.path("formal").get(1), report.path("formal").get(2));
        for (int i = 0; i < steps.size(); i++) {
            JsonNode s = steps.get(i);
            assertEquals(targets.get(i), s.path("targetQps").asDouble());
            assertEquals(expectedCounts.get(i), s.path("counters").path("sent").asLong(), "exact count of step " + i);
            assertTrue(Math.abs(s.path("achievedQps").asDouble() - targets.get(i)) <= 0.02 * targets.get(i), s.toString());
            assertEquals(s.path("counters").path("sent").asLong(), s.path("counters").path("marked").asLong(), "marker on every request");
            double p50 = s.path("latencyMs").path("p50").asDouble();
            double p99 = s.path("latencyMs").path("p99").asDouble();
            assertTrue(p50 > 0 && p99 >= p50, s.path("latencyMs").toString());
        }
        assertEquals(2, report.path("formal").get(2).path("workersReported").asInt(), "80 QPS at 50 per worker: 2 workers");
        for (JsonNode c : report.path("dynamicChecks")) {
            if (List.of("trace-source", "marker-propagation", "mocked-exit").contains(c.path("name").asText())) {
                assertEquals("PASS", c.path("outcome").asText(), "safety check on the shop's own spans: " + c);
            }
        }

        ApiClient api = api(Demo.TEAM);
        JsonNode tree = Json.MAPPER.readTree(stack.lambdaHost().invoke("LinkBuilderFunction",
                Json.MAPPER.writeValueAsBytes(java.util.Map.of("action", "tree", "teamId", Demo.TEAM, "dimension", "service",
                        "node", "order", "maxDepth", 5))).payload());
        // all demo traffic is marked and its payment calls are mocked, so the link below order is inventory
        assertTrue(tree.path("nodes").toString().contains("\"node\":\"inventory\""),
                "the shop's spans built the link order -> inventory: " + tree);
        assertTrue(!tree.path("nodes").toString().contains("\"node\":\"payment\""),
                "marked traffic never reached the real payment exit: " + tree);
        assertEquals(200, api.get("/runs/" + report.path("runId").asText() + "/report?format=html").status());

        // Richter's own metrics of the run (metrics.jsonl): the windows' Sent add up to the report's counts, every
        // request due was sent in its second, and the probe rounds were measured
        String runId = report.path("runId").asText();
        long emfSent = 0;
        for (String line : Files.readAllLines(stack.metricsFile())) {
            JsonNode n = Json.MAPPER.readTree(line);
            if (runId.equals(n.path("runId").asText()) && n.path("Function").asText().equals("load-driver")) {
                emfSent += n.path("Sent").asLong();
            }
        }
        assertEquals(expectedCounts.stream().mapToLong(Long::longValue).sum(), emfSent);
        MetricsSummary metrics = MetricsSummary.of(stack.metricsFile(), runId);
        assertTrue(metrics.probeRounds() > 0 && metrics.probeRoundP99Ms().isPresent(), metrics.toString());
        assertTrue(metrics.rateErrorPercent().isPresent(), metrics.toString());
        assertEquals(0.0, metrics.rateErrorPercent().getAsDouble(), 1e-9, "exact counts: no request lost, " + metrics);
        assertTrue(metrics.abortLatencyMs().isEmpty(), "a run that was not aborted has no abort latency");
    }
}
