package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Starts the local stack once per integration-test class; the failsafe plugin sets its environment (local/pom.xml: its
 * ports and work directory differ per fork, so the two suites run at once). Every exchange
 * of every {@link ApiClient} is checked against {@code openapi.json} ({@link OpenApiConformance}): a request or
 * response the document does not describe fails the test that made it.
 */
abstract class LocalAwsStackTestSupport {
    static LocalAwsStack stack;
    static Path root = LocalAwsStack.rootFromEnv();

    @BeforeAll
    static void startStack() throws Exception {
        OpenApiConformance.install();
        stack = new LocalAwsStack(root, workDir(), System.out::println).start();
    }

    @AfterAll
    static void stopStack() {
        if (stack != null) {
            stack.close();
        }
    }

    /**
     * The stack's work directory: {@code RICHTER_IT_STACK_DIR} (local/pom.xml gives each failsafe fork its own), else
     * {@code local/target/it-stack}.
     */
    static Path workDir() {
        String dir = System.getenv("RICHTER_IT_STACK_DIR");
        return dir == null || dir.isBlank() ? root.resolve("local/target/it-stack") : Path.of(dir);
    }

    /** A client with a valid RS256 token of {@code team} (caller {@code it@<team>}). */
    static ApiClient api(String team) {
        return new ApiClient(LocalAwsStack.apiBaseUrl(), token(team));
    }

    /** A valid RS256 token of {@code team}, caller {@code it@<team>}, valid for an hour. */
    static String token(String team) {
        return stack.identity().token(team, "it@" + team, java.time.Duration.ofHours(1), com.nimbusds.jose.JWSAlgorithm.RS256);
    }

    /**
     * Registers {@code name} at {@code baseUrl} with an Actuator health path; a test server there answers the
     * ownership token the registration gave ({@link OwnershipTokens}).
     */
    static void register(ApiClient api, String name, String baseUrl) throws Exception {
        var r = api.post("/services", Json.write(Map.of("name", name, "baseUrl", baseUrl, "healthPath", "/actuator/health")));
        if (r.status() != 201 && r.status() != 200) {
            throw new IllegalStateException(r.body());
        }
        OwnershipTokens.keep(r.json());
    }

    /** A plan JSON: one scenario POST /orders on {@code service}, the given pre-test and formal steps. */
    static String plan(String service, double preQps, int preS, List<double[]> formal) {
        return Json.write(Map.of("name", "it plan", "scenarios", List.of(Map.of("name", "orders", "service", service,
                        "requests", List.of(Map.of("method", "POST", "path", "/orders", "headers", Map.of("content-type", "application/json"),
                                "body", "{\"sku\":\"A1\"}")))),
                "preTest", Map.of("qps", preQps, "durationS", preS), "warmUp", Map.of("durationS", 0),
                "formal", Map.of("steps", formal.stream().map(s -> Map.of("qps", s[0], "durationS", (int) s[1])).toList()),
                "coreModules", List.of(service), "perWorkerQps", 5, "requestTimeoutMs", 1000));
    }

    /**
     * The environment of an IT's own demo shop, beside the other ITs' shops: gateway, order, inventory and payment on
     * {@code base} to {@code base + 3}, its database, Redis and DynamoDB on {@code base + 12}, {@code + 14} and
     * {@code + 16}, its span logs in {@code runDir}, its agent extension reading {@code team}'s isolation.
     */
    static Map<String, String> shopEnv(int base, Path runDir, String team) {
        Map<String, String> env = new java.util.HashMap<>();
        env.put("SHOP_GATEWAY_PORT", String.valueOf(base));
        env.put("SHOP_ORDER_PORT", String.valueOf(base + 1));
        env.put("SHOP_INVENTORY_PORT", String.valueOf(base + 2));
        env.put("SHOP_PAYMENT_PORT", String.valueOf(base + 3));
        env.put("SHOP_DB_PORT", String.valueOf(base + 12));
        env.put("SHOP_REDIS_PORT", String.valueOf(base + 14));
        env.put("SHOP_DYNAMODB_PORT", String.valueOf(base + 16));
        env.put("SHOP_RUN_DIR", runDir.toString());
        env.putAll(Demo.shopEnv(LocalAwsStack.apiBaseUrl(), token(team)));
        return env;
    }

    /**
     * Configures the team of a shop started with {@link #shopEnv}: gateway, order (with its scrape and shadow DynamoDB
     * table) and inventory (with its shadow tables and keys) registered, the shop's span directory as trace source,
     * the payment exit mocked for marked traffic, isolation enforced.
     */
    static void configureShop(ApiClient api, int base, Path runDir) throws Exception {
        register(api, "gateway", "http://127.0.0.1:" + base);
        var r = api.post("/services", Json.write(Map.of("name", "order", "baseUrl", "http://127.0.0.1:" + (base + 1),
                "healthPath", "/actuator/health", "prometheusPath", "/actuator/prometheus",
                "datastores", Demo.ORDER_DATASTORES)));
        if (r.status() != 201 && r.status() != 200) {
            throw new IllegalStateException(r.body());
        }
        r = api.post("/services", Json.write(Map.of("name", "inventory", "baseUrl", "http://127.0.0.1:" + (base + 2),
                "healthPath", "/actuator/health", "datastores", Demo.INVENTORY_DATASTORES)));
        if (r.status() != 201 && r.status() != 200) {
            throw new IllegalStateException(r.body());
        }
        java.nio.file.Files.createDirectories(runDir);   // where the shop writes its spans: PUT /safety checks it exists
        r = api.put("/safety", Json.write(Map.of(
                "traceSource", Map.of("kind", "directory", "path", runDir.toString()),
                "exits", List.of(Map.of("service", "payment", "node", Demo.PAYMENT_EXIT, "from", "order",
                        "baseUrl", "http://127.0.0.1:" + (base + 3))),
                "mocks", List.of(Map.of("exit", Demo.PAYMENT_EXIT, "status", 200, "body", "{\"chargeId\":\"mock-1\"}",
                        "headers", Map.of("Content-Type", "application/json"), "latencyMs", 20)),
                "isolation", Map.of("mode", "enforce", "refreshS", 5))));
        if (r.status() != 201 && r.status() != 200) {
            throw new IllegalStateException(r.body());
        }
    }

    /** Creates the plan and starts a run; returns the run id. */
    static String startRun(ApiClient api, String planJson) throws Exception {
        var p = api.post("/plans", planJson);
        if (p.status() != 201) {
            throw new IllegalStateException(p.body());
        }
        return start(api, p.json().path("planId").asText());
    }

    /**
     * Starts a run of the plan; while a previous run of the same team still holds a target (its release runs just
     * after its report is written), retries for up to 30 s.
     */
    static String start(ApiClient api, String planId) throws Exception {
        long deadline = System.currentTimeMillis() + 30_000;
        while (true) {
            var r = api.post("/plans/" + planId + "/runs", "");
            if (r.status() == 202) {
                return r.json().path("runId").asText();
            }
            if (r.status() != 409 || System.currentTimeMillis() > deadline) {
                throw new IllegalStateException(r.body());
            }
            Thread.sleep(500);
        }
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
