package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Starts the local stack once per integration-test class; the failsafe plugin sets its environment. */
abstract class LocalStackTestSupport {
    static LocalStack stack;
    static Path root = LocalStack.rootFromEnv();

    @BeforeAll
    static void startStack() throws Exception {
        stack = new LocalStack(root, root.resolve("local/target/it-stack"), System.out::println).start();
    }

    @AfterAll
    static void stopStack() {
        if (stack != null) {
            stack.close();
        }
    }

    static ApiClient api(String team) {
        return new ApiClient(LocalStack.apiBaseUrl(), team);
    }

    /** Registers {@code name} at {@code baseUrl} with an Actuator health path. */
    static void register(ApiClient api, String name, String baseUrl) throws Exception {
        var r = api.post("/services", Json.write(Map.of("name", name, "baseUrl", baseUrl, "healthPath", "/actuator/health")));
        if (r.status() != 201 && r.status() != 200) {
            throw new IllegalStateException(r.body());
        }
    }

    /** A plan JSON: one scenario POST /orders on {@code service}, the given pre-test and formal steps. */
    static String plan(String service, double preQps, int preS, List<double[]> formal) {
        return Json.write(Map.of("name", "it plan", "scenarios", List.of(Map.of("name", "orders", "service", service,
                        "requests", List.of(Map.of("method", "POST", "path", "/orders", "headers", Map.of("content-type", "application/json"),
                                "body", "{\"sku\":\"A1\"}")))),
                "preTest", Map.of("qps", preQps, "durationS", preS),
                "formal", Map.of("steps", formal.stream().map(s -> Map.of("qps", s[0], "durationS", (int) s[1])).toList()),
                "coreModules", List.of(service), "perWorkerQps", 5, "requestTimeoutMs", 1000));
    }

    /** Creates the plan and starts a run; returns the run id. */
    static String startRun(ApiClient api, String planJson) throws Exception {
        var p = api.post("/plans", planJson);
        if (p.status() != 201) {
            throw new IllegalStateException(p.body());
        }
        var r = api.post("/plans/" + p.json().path("planId").asText() + "/runs", "");
        if (r.status() != 202) {
            throw new IllegalStateException(r.body());
        }
        return r.json().path("runId").asText();
    }

    /** Waits for the run's report and returns it. */
    static JsonNode awaitReport(ApiClient api, String runId, long timeoutMs) throws Exception {
        RunWatcher.watch(api, runId, timeoutMs, System.out::println);
        var r = api.get("/runs/" + runId + "/report");
        if (r.status() != 200) {
            throw new IllegalStateException(r.body());
        }
        return r.json();
    }
}
