package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Richter's main job, end to end on the local stack (README command 1): starts the local stack
 * and the demo shop, registers the shop's services, creates a plan (pre-test 2 QPS × 10 s; formal
 * 20 → 40 → 80 QPS × 15 s), starts it through the HTTP API, prints progress, ingests the shop's
 * OTLP spans into the link builder, and writes the report (JSON + HTML) to a path it prints.
 *
 * <p>Exit status: 0 when the report was written (whatever the run's outcome, which is printed),
 * 1 on any failure to get there. Everything started is stopped on exit.
 */
public final class Demo {
    /** The demo's team. */
    public static final String TEAM = "shop-team";
    /** Budget of one {@code POST /traces} body, bytes: whole traces, well under the 6 MB Lambda invoke payload. */
    static final int INGEST_CHUNK_BYTES = 4 * 1024 * 1024;

    private Demo() {}

    public static void main(String[] args) throws Exception {
        Path root = LocalStack.rootFromEnv();
        Path work = root.resolve("build/local");
        int status = 0;
        try (LocalStack stack = new LocalStack(root, work, System.out::println).start(); Shop shop = Shop.start(root, shopEnv())) {
            run(root, stack);
        } catch (Exception e) {
            System.err.println("demo failed: " + e);
            status = 1;
        }
        System.exit(status);
    }

    /** The payment exit, which marked traffic must never reach for real. */
    public static final String PAYMENT_EXIT = "payment POST /charge";

    /**
     * The shop's environment for the demo: its inventory fetches the exit mocks from Richter's own
     * {@code GET /safety/mocks} (refreshed every second) and answers marked payment calls with them.
     */
    public static Map<String, String> shopEnv() {
        return Map.of("SHOP_MOCKS_URL", LocalStack.apiBaseUrl() + "/safety/mocks?team=" + TEAM, "SHOP_MOCKS_REFRESH_MS", "1000");
    }

    /**
     * Runs the main job against a started stack and a shop started with {@link #shopEnv()}.
     *
     * @return the directory holding {@code report.json} and {@code report.html}
     * @throws IllegalStateException when the API answers unexpectedly or the run does not finish
     */
    public static Path run(Path root, LocalStack stack) throws IOException, InterruptedException {
        ApiClient api = new ApiClient(LocalStack.apiBaseUrl(), TEAM);
        for (String service : List.of("order", "inventory")) {
            int port = service.equals("order") ? Shop.ORDER_PORT : Shop.INVENTORY_PORT;
            var r = api.post("/services", Json.write(Map.of("name", service, "baseUrl", "http://127.0.0.1:" + port,
                    "healthPath", "/actuator/health", "prometheusPath", "/actuator/prometheus",
                    "datastores", List.of(Map.of("kind", "table", "production", service + "s", "shadow", service + "s_shadow")))));
            expect(r, 201, 200);
            System.out.println("registered service " + service);
        }
        var safety = api.put("/safety", Json.write(Map.of(
                "traceSource", Map.of("kind", "directory", "path", root.resolve("examples/shop/target/run").toString()),
                "exits", List.of(Map.of("service", "payment", "node", PAYMENT_EXIT, "from", "inventory")),
                "mocks", List.of(Map.of("exit", PAYMENT_EXIT, "status", 200, "body", "{\"chargeId\":\"mock\"}", "latencyMs", 20)))));
        expect(safety, 200, 201);
        System.out.println("safety configuration: trace source examples/shop/target/run, payment exit mocked for marked traffic");
        var plan = api.post("/plans", Files.readString(root.resolve("examples/shop/plan.json")));
        expect(plan, 201);
        String planId = plan.json().path("planId").asText();
        System.out.println("created plan " + planId);
        var start = api.post("/plans/" + planId + "/runs", "");
        expect(start, 202);
        String runId = start.json().path("runId").asText();
        System.out.println("started run " + runId + " (" + start.json().path("executionArn").asText() + ")");
        RunWatcher.watch(api, runId, 15 * 60_000L, System.out::println);

        Path spans = root.resolve("build/local/shop-spans.json");
        if (Shop.exportSpans(root, spans)) {
            // one request per ≤ 4 MiB of whole traces: a request is one Lambda invocation (6 MB at most)
            List<String> chunks = TraceChunks.split(Json.MAPPER.readTree(spans.toFile()), INGEST_CHUNK_BYTES);
            int parsed = 0;
            int edges = 0;
            for (int i = 0; i < chunks.size(); i++) {
                var ingest = api.post("/traces?file=shop-spans-" + (i + 1) + ".json", chunks.get(i));
                expect(ingest, 200);
                parsed += ingest.json().path("spansParsed").asInt();
                edges += ingest.json().path("edgesAdded").asInt();
            }
            System.out.println("ingested shop spans into the link builder: " + parsed + " spans in " + chunks.size()
                    + " request(s), " + edges + " new edges");
        }

        Path dir = root.resolve("build/reports/" + runId);
        Files.createDirectories(dir);
        var json = api.get("/runs/" + runId + "/report");
        expect(json, 200);
        var html = api.get("/runs/" + runId + "/report?format=html");
        expect(html, 200);
        Files.writeString(dir.resolve("report.json"), json.json().toPrettyString());
        Files.writeString(dir.resolve("report.html"), html.body());
        JsonNode report = json.json();
        System.out.println();
        System.out.println("outcome: " + report.path("outcome").asText() + " — " + report.path("outcomeReason").asText());
        System.out.println("capacity: " + report.path("capacity").path("maxSustainableQps").asDouble() + " QPS ("
                + report.path("capacity").path("limitedBy").asText() + ")");
        System.out.println("confidence: " + report.path("confidence").path("score").asDouble());
        System.out.println("events on the bus: " + stack.eventBus().events().stream().map(e -> e.path("detail-type").asText()).toList());
        System.out.println("report: " + dir.resolve("report.json"));
        System.out.println("report: " + dir.resolve("report.html"));
        return dir;
    }

    private static void expect(ApiClient.Response r, int... statuses) {
        for (int s : statuses) {
            if (r.status() == s) {
                return;
            }
        }
        throw new IllegalStateException("API answered " + r.status() + ": " + r.body());
    }
}
