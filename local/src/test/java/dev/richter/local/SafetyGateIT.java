package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionRequest;
import software.amazon.awssdk.services.sfn.model.StartExecutionRequest;

/**
 * End to end: the safety checks gate real runs of the demo shop (with the OpenTelemetry agent) on the
 * local stack. The team's safety configuration goes through {@code PUT /safety}; its trace source is the shop's
 * run directory (the agent's span log lines). Variants: real payment for marked traffic (mock-required exit
 * reached), the async hop that drops the marker, the SDK answering marked payment calls from Richter's
 * {@code GET /safety/mocks}; and the nightly state machine emitting {@code Check Regressed} when the shop
 * breaks between two nights.
 *
 * <p>The shop runs on its own ports and run directory; a variant is started once and reused by the tests
 * that need it (methods run in order so each variant starts once).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SafetyGateIT extends LocalAwsStackTestSupport {
    static final int ORDER_PORT = 19181;
    static final int INVENTORY_PORT = 19182;
    static final int PAYMENT_PORT = 19183;
    static final Path RUN_DIR = root.resolve("local/target/it-shop-safety");
    static final String NIGHTLY_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:NightlyCheckStateMachine";
    static final String PAYMENT_EXIT = "payment POST /charge";

    static Shop shop;
    static Map<String, String> shopVariant;

    @AfterAll
    static void stopShop() {
        if (shop != null) {
            shop.close();
        }
    }

    /** The shop with {@code variant} added to its environment; restarted only when the variant changes. */
    static void useShop(Map<String, String> variant) throws Exception {
        if (shop != null && variant.equals(shopVariant)) {
            return;
        }
        if (shop != null) {
            shop.close();
            shop = null;
        }
        Map<String, String> env = new HashMap<>(variant);
        env.put("SHOP_ORDER_PORT", String.valueOf(ORDER_PORT));
        env.put("SHOP_INVENTORY_PORT", String.valueOf(INVENTORY_PORT));
        env.put("SHOP_PAYMENT_PORT", String.valueOf(PAYMENT_PORT));
        env.put("SHOP_RUN_DIR", RUN_DIR.toString());
        shop = Shop.start(root, env);
        shopVariant = Map.copyOf(variant);
    }

    /** Registers the shop's in-scope services (order, inventory; payment is the exit) and the safety configuration. */
    static ApiClient team(String team, Map<String, Object> safety) throws Exception {
        ApiClient api = api(team);
        register(api, "order", "http://127.0.0.1:" + ORDER_PORT);
        register(api, "inventory", "http://127.0.0.1:" + INVENTORY_PORT);
        Map<String, Object> config = new HashMap<>(safety);
        config.put("traceSource", Map.of("kind", "directory", "path", RUN_DIR.toString()));
        var r = api.put("/safety", Json.write(config));
        assertTrue(r.status() == 201 || r.status() == 200, r.body());
        return api;
    }

    static Map<String, Object> paymentMockRequired() {
        return Map.of("exits", List.of(Map.of("service", "payment", "node", PAYMENT_EXIT, "from", "inventory")),
                "mocks", List.of(Map.of("exit", PAYMENT_EXIT, "status", 200, "body", "{\"chargeId\":\"mock-1\"}",
                        "latencyMs", 20)));
    }

    /** Pre-test 2 QPS x 5 s, one formal step 4 QPS x 3 s, POST /orders on order. */
    static String shopPlan() {
        return Json.write(Map.of("name", "safety it", "scenarios", List.of(Map.of("name", "orders", "service", "order",
                        "requests", List.of(Map.of("method", "POST", "path", "/orders", "headers",
                                Map.of("content-type", "application/json"), "body", "{\"sku\":\"A1\",\"qty\":1}")))),
                "preTest", Map.of("qps", 2, "durationS", 5),
                "formal", Map.of("steps", List.of(Map.of("qps", 4, "durationS", 3))),
                "coreModules", List.of("order"), "perWorkerQps", 5, "requestTimeoutMs", 2000));
    }

    /** Prints the report's safety evidence (the IT log shows what each variant produced). */
    static JsonNode show(String variant, JsonNode report) {
        System.out.println("== " + variant + ": outcome " + report.path("outcome").asText() + ", formal steps "
                + report.path("formal").size());
        for (String phase : List.of("staticChecks", "dynamicChecks")) {
            for (JsonNode c : report.path(phase)) {
                System.out.println("   " + phase + " " + c.path("outcome").asText() + " " + c.path("name").asText() + " ("
                        + c.path("subject").asText() + "): " + c.path("evidence").asText());
            }
        }
        return report;
    }

    static List<JsonNode> checks(JsonNode report, String phase, String name) {
        return StreamSupport.stream(report.path(phase).spliterator(), false)
                .filter(c -> c.path("name").asText().equals(name)).toList();
    }

    @Test
    @Order(1)
    void markedTrafficReachingAMockRequiredExitForRealFailsThePreTest() throws Exception {
        useShop(Map.of());
        ApiClient api = team("safety-real", paymentMockRequired());
        JsonNode report = show("real payment", awaitReport(api, startRun(api, shopPlan()), 180_000));

        assertEquals("PRE_TEST_FAILED", report.path("outcome").asText(), report.toPrettyString());
        assertEquals(0, report.path("formal").size(), "the formal stage must not start");
        List<JsonNode> mocked = checks(report, "dynamicChecks", "mocked-exit");
        assertEquals(1, mocked.size(), report.path("dynamicChecks").toString());
        assertEquals("FAIL", mocked.get(0).path("outcome").asText(), mocked.toString());
        assertEquals(PAYMENT_EXIT, mocked.get(0).path("subject").asText());
        assertTrue(mocked.get(0).path("evidence").asText().matches("(?s).*trace [0-9a-f]{32}.*"),
                "names a trace id: " + mocked.get(0).path("evidence").asText());
        assertEquals("PASS", checks(report, "staticChecks", "mock-present").get(0).path("outcome").asText(),
                "the mock is configured in Richter (the shop just does not use it)");
    }

    @Test
    @Order(2)
    void nightlyCheckEmitsCheckRegressedWhenTheShopBreaksBetweenTwoNights() throws Exception {
        useShop(Map.of());
        ApiClient api = team("safety-nightly", Map.of());
        assertEquals(201, api.post("/plans", shopPlan()).status());
        JsonNode first = nightly();
        assertTrue(first.toString().contains("safety-nightly"), first.toString());
        assertTrue(regressions("safety-nightly").stream().noneMatch(e -> e.path("check").asText().equals("marker-propagation")),
                "a healthy night: marker propagation passes");

        useShop(Map.of("SHOP_BREAK_ASYNC_MARKER", "1"));
        nightly();
        regressions("safety-nightly").forEach(e -> System.out.println("== nightly Check Regressed: " + e));
        List<JsonNode> regressed = regressions("safety-nightly").stream()
                .filter(e -> e.path("check").asText().equals("marker-propagation")).toList();
        assertTrue(regressed.stream().anyMatch(e -> e.path("now").asText().equals("FAIL")
                && e.path("evidence").asText().contains("inventory->payment")), regressions("safety-nightly").toString());
    }

    @Test
    @Order(3)
    void markerLostOnTheAsyncHopFailsThePreTestNamingTheEdge() throws Exception {
        useShop(Map.of("SHOP_BREAK_ASYNC_MARKER", "1"));
        ApiClient api = team("safety-async", Map.of());
        JsonNode report = show("async marker", awaitReport(api, startRun(api, shopPlan()), 180_000));

        assertEquals("PRE_TEST_FAILED", report.path("outcome").asText(), report.toPrettyString());
        assertEquals(0, report.path("formal").size(), "the formal stage must not start");
        List<JsonNode> propagation = checks(report, "dynamicChecks", "marker-propagation");
        assertTrue(propagation.stream().anyMatch(c -> c.path("outcome").asText().equals("FAIL")
                && c.path("evidence").asText().contains("edge inventory->payment")), propagation.toString());
        assertTrue(report.path("outcomeReason").asText().contains("inventory->payment"), report.path("outcomeReason").asText());
    }

    @Test
    @Order(4)
    void exitMockServedByRichterLetsTheSafetyChecksPassAndTheFormalStageRun() throws Exception {
        String team = "safety-mocked";
        ApiClient api = team(team, paymentMockRequired());
        var mocks = api(team).get("/safety/mocks");
        assertEquals(200, mocks.status(), mocks.body());
        assertEquals(PAYMENT_EXIT, mocks.json().path("mocks").get(0).path("exit").asText());
        useShop(Map.of("SHOP_MOCKS_URL", LocalAwsStack.apiBaseUrl() + "/safety/mocks", "SHOP_MOCKS_TOKEN", token(team),
                "SHOP_MOCKS_REFRESH_MS", "1000"));
        JsonNode report = show("mocked payment", awaitReport(api, startRun(api, shopPlan()), 180_000));

        assertEquals("PASSED", report.path("outcome").asText(), report.toPrettyString());
        assertEquals(1, report.path("formal").size(), "the formal stage ran");
        for (String name : List.of("trace-source", "marker-propagation", "mocked-exit")) {
            List<JsonNode> c = checks(report, "dynamicChecks", name);
            assertTrue(!c.isEmpty() && c.stream().allMatch(r -> r.path("outcome").asText().equals("PASS")), name + ": " + c);
        }
        assertTrue(checks(report, "dynamicChecks", "mocked-exit").get(0).path("evidence").asText()
                .matches("[1-9][0-9]* marked calls answered by the mock.*"), report.path("dynamicChecks").toString());
    }

    /** Runs the nightly state machine once and returns its output. */
    static JsonNode nightly() throws Exception {
        try (SfnClient sfn = SfnClient.builder().region(Region.US_EAST_1)
                .endpointOverride(URI.create(System.getenv("AWS_ENDPOINT_URL_SFN"))).build()) {
            String arn = sfn.startExecution(StartExecutionRequest.builder().stateMachineArn(NIGHTLY_ARN)
                    .input("{\"trigger\":\"it\"}").build()).executionArn();
            long deadline = System.currentTimeMillis() + Duration.ofMinutes(3).toMillis();
            while (System.currentTimeMillis() < deadline) {
                var ex = sfn.describeExecution(DescribeExecutionRequest.builder().executionArn(arn).build());
                if (!ex.statusAsString().equals("RUNNING")) {
                    assertEquals("SUCCEEDED", ex.statusAsString(), ex.toString());
                    return Json.MAPPER.readTree(ex.output());
                }
                Thread.sleep(1_000);
            }
            throw new AssertionError("nightly execution " + arn + " still running after 3 minutes");
        }
    }

    /** The {@code Check Regressed} events of {@code team} captured so far (their details). */
    static List<JsonNode> regressions(String team) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : stack.eventBus().events()) {
            if (e.path("detail-type").asText().equals("Check Regressed") && e.path("detail").path("teamId").asText().equals(team)) {
                out.add(e.path("detail"));
            }
        }
        return out;
    }
}
