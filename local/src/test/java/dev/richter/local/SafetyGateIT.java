package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.sdk.MarkerProof;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
 * End to end: the safety checks gate real runs of the demo shop (Spring Boot services with the OpenTelemetry agent and
 * Richter's extension, H2, Redis) on the local stack, and each broken variant is caught before the formal stage with
 * nothing reaching production, as the shop's own database and payment counter show ({@link ShopLedger}). The team's
 * safety configuration goes through {@code PUT /safety}; its trace source is the shop's run directory (the agent's
 * span log lines); the shop's extension loads the team's {@code GET /safety/isolation} every 5 s.
 * <ul>
 *   <li>the shop as it should be: every check passes, the formal stage runs, marked writes land in the shadows;</li>
 *   <li>the extension left in report mode (the team's {@code isolation.mode}), though every shadow and mock is set;</li>
 *   <li>a new table with no shadow ({@code SHOP_AUDIT_RESERVATIONS=1});</li>
 *   <li>a new external exit with no mock ({@code SHOP_FRAUD_URL});</li>
 *   <li>order's circuit breaker on inventory forced open ({@code SHOP_INVENTORY_BREAKER_FORCED_OPEN=true}): every answer
 *       a degraded 200, reported as silent degradation with the call path to inventory vanished;</li>
 *   <li>the marker lost on a thread the agent does not follow ({@code SHOP_ASYNC_PAYMENT=1}), and the nightly state
 *       machine emitting {@code Check Regressed} when the shop breaks that way between two nights.</li>
 * </ul>
 *
 * <p>The shop runs on its own ports and run directory; a variant is started once and reused by the tests that need it
 * (methods run in order so each variant starts once).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SafetyGateIT extends LocalAwsStackTestSupport {
    static final String TEAM = "safety-shop";
    static final int GATEWAY_PORT = 19180;
    static final int ORDER_PORT = 19181;
    static final int INVENTORY_PORT = 19182;
    static final int PAYMENT_PORT = 19183;
    static final Path RUN_DIR = root.resolve("local/target/it-shop-safety");
    static final String NIGHTLY_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:NightlyCheckStateMachine";
    static final String PAYMENT_EXIT = "payment POST /charge";
    /** Longer than the isolation's refreshS (5): the extension has loaded a configuration put before it. */
    static final long ISOLATION_RELOAD_MS = 7_000;

    static Shop shop;
    static Map<String, String> shopVariant;
    static ApiClient api;

    @AfterAll
    static void stopShop() {
        if (shop != null) {
            shop.close();
        }
    }

    /**
     * The shop with {@code variant} added to its environment, its extension loading the team's isolation; restarted
     * only when the variant changes. The team is configured ({@link #configure}) before the first start.
     */
    static void useShop(Map<String, String> variant) throws Exception {
        if (api == null) {
            api = api(TEAM);
            configure("enforce");
        }
        if (shop != null && variant.equals(shopVariant)) {
            return;
        }
        Map<String, String> env = new HashMap<>(variant);
        env.put("SHOP_GATEWAY_PORT", String.valueOf(GATEWAY_PORT));
        env.put("SHOP_ORDER_PORT", String.valueOf(ORDER_PORT));
        env.put("SHOP_INVENTORY_PORT", String.valueOf(INVENTORY_PORT));
        env.put("SHOP_PAYMENT_PORT", String.valueOf(PAYMENT_PORT));
        env.put("SHOP_DB_PORT", "19192");
        env.put("SHOP_REDIS_PORT", "19193");
        env.put("SHOP_DYNAMODB_PORT", "19196");
        env.put("SHOP_RUN_DIR", RUN_DIR.toString());
        env.putAll(Demo.shopEnv(LocalAwsStack.apiBaseUrl(), token(TEAM)));
        if (variant.containsKey("SHOP_FRAUD_URL")) {
            env.put("SHOP_FRAUD_URL", "http://127.0.0.1:" + PAYMENT_PORT);
        }
        if (shop == null) {
            shop = Shop.start(root, env);
        } else {
            shop = shop.restart(env, servicesOf(shopVariant, variant));
        }
        shopVariant = Map.copyOf(variant);
        shop.warm();
    }

    /** The shop service each variant configures (examples/shop/README.md). */
    static final Map<String, String> VARIANT_SERVICE = Map.of("SHOP_ASYNC_PAYMENT", "order", "SHOP_FRAUD_URL", "order",
            "SHOP_INVENTORY_BREAKER_FORCED_OPEN", "order", "SHOP_AUDIT_RESERVATIONS", "inventory");

    /** The services whose configuration differs between two variants: what a switch from one to the other restarts. */
    static List<String> servicesOf(Map<String, String> from, Map<String, String> to) {
        var keys = new java.util.TreeSet<>(from.keySet());
        keys.addAll(to.keySet());
        var services = new java.util.TreeSet<String>();
        for (String key : keys) {
            if (!java.util.Objects.equals(from.get(key), to.get(key))) {
                String svc = VARIANT_SERVICE.get(key);
                if (svc == null) {
                    return Shop.SERVICES;
                }
                services.add(svc);
            }
        }
        return List.copyOf(services);
    }

    /**
     * Registers the shop's in-scope services (gateway, order, inventory with its shadow tables and keys; payment is
     * the exit) and the safety configuration: the payment exit with its address and its mock, isolation in
     * {@code mode}, refreshed every 5 s.
     */
    static void configure(String mode) throws Exception {
        register(api, "gateway", "http://127.0.0.1:" + GATEWAY_PORT);
        // order's scrape carries its Resilience4j breaker on inventory (resilience4j_circuitbreaker_state)
        var r = api.post("/services", Json.write(Map.of("name", "order", "baseUrl", "http://127.0.0.1:" + ORDER_PORT,
                "healthPath", "/actuator/health", "prometheusPath", "/actuator/prometheus",
                "datastores", Demo.ORDER_DATASTORES)));
        assertTrue(r.status() == 201 || r.status() == 200, r.body());
        r = api.post("/services", Json.write(Map.of("name", "inventory", "baseUrl", "http://127.0.0.1:" + INVENTORY_PORT,
                "healthPath", "/actuator/health", "datastores", Demo.INVENTORY_DATASTORES)));
        assertTrue(r.status() == 201 || r.status() == 200, r.body());
        java.nio.file.Files.createDirectories(RUN_DIR);   // where the shop writes its spans: PUT /safety checks it exists
        r = api.put("/safety", Json.write(Map.of(
                "traceSource", Map.of("kind", "directory", "path", RUN_DIR.toString()),
                "exits", List.of(Map.of("service", "payment", "node", PAYMENT_EXIT, "from", "order",
                        "baseUrl", "http://127.0.0.1:" + PAYMENT_PORT)),
                "mocks", List.of(Map.of("exit", PAYMENT_EXIT, "status", 200, "body", "{\"chargeId\":\"mock-1\"}",
                        "headers", Map.of("Content-Type", "application/json"), "latencyMs", 20)),
                "isolation", Map.of("mode", mode, "refreshS", 5))));
        assertTrue(r.status() == 201 || r.status() == 200, r.body());
    }

    /**
     * Pre-test 2 QPS x 5 s, one formal step 4 QPS x 3 s, POST /orders through the gateway; a good answer is a 201 with
     * {@code "status": "PLACED"} (order's fallback answers 200 {@code "degraded": true}).
     */
    static String shopPlan() {
        return Json.write(Map.of("name", "safety it", "scenarios", List.of(Map.of("name", "orders", "service", "gateway",
                        "requests", List.of(Map.of("method", "POST", "path", "/orders", "headers",
                                Map.of("content-type", "application/json"), "body", "{\"sku\":\"A1\",\"qty\":1}",
                                "expect", Map.of("status", List.of(201), "json", List.of(Map.of("path", "$.status",
                                        "equals", "PLACED"))))))),
                "preTest", Map.of("qps", 2, "durationS", 5), "warmUp", Map.of("durationS", 0),
                "formal", Map.of("steps", List.of(Map.of("qps", 4, "durationS", 3))),
                "coreModules", List.of("order", "inventory"), "perWorkerQps", 5, "requestTimeoutMs", 2000));
    }

    /** Runs the shop plan; returns its report and the shop's ledger over the run. */
    static Ran run(String variant) throws Exception {
        ShopLedger before = shop.ledger();
        JsonNode report = show(variant, awaitReport(api, startRun(api, shopPlan()), 180_000));
        Thread.sleep(1_000); // the agent exports spans every 500 ms
        ShopLedger side = shop.ledger().minus(before);
        System.out.println("   shop side: " + side);
        return new Ran(report, side);
    }

    record Ran(JsonNode report, ShopLedger shop) {}

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

    static JsonNode onlyCheck(JsonNode report, String name) {
        List<JsonNode> c = checks(report, "dynamicChecks", name);
        assertEquals(1, c.size(), name + ": " + report.path("dynamicChecks"));
        return c.get(0);
    }

    /** The pre-test failed, the formal stage never started, and nothing of the run reached production. */
    static void caughtBeforeTheFormalStageWithNothingInProduction(Ran ran) {
        assertEquals("PRE_TEST_FAILED", ran.report().path("outcome").asText(), ran.report().path("outcomeReason").asText());
        assertEquals(0, ran.report().path("formal").size(), "the formal stage must not start");
        assertEquals(0, ran.shop().rows().get("reservations"), ran.shop().toString());
        assertEquals(0, ran.shop().rows().get("reservation_audit"), ran.shop().toString());
        assertEquals(0, ran.shop().stockUnits().get("stock"), ran.shop().toString());
        assertEquals(0, ran.shop().charges(), "payment's own counter: " + ran.shop());
        assertEquals(0, ran.shop().scores(), "payment's own counter: " + ran.shop());
    }

    @Test
    @Order(1)
    void theShopWithItsExtensionPassesEverySafetyCheckAndItsMarkedWritesLandInTheShadows() throws Exception {
        useShop(Map.of());
        Ran ran = run("enforced isolation");
        JsonNode report = ran.report();
        assertEquals("PASSED", report.path("outcome").asText(), report.path("outcomeReason").asText());
        assertEquals(1, report.path("formal").size(), "the formal stage ran");
        for (String name : List.of("trace-source", "marker-propagation", "mocked-exit", "isolation-enforced",
                "guarded-middleware", "shadow-writes")) {
            List<JsonNode> c = checks(report, "dynamicChecks", name);
            assertTrue(!c.isEmpty() && c.stream().allMatch(r -> r.path("outcome").asText().equals("PASS")), name + ": " + c);
        }
        assertTrue(onlyCheck(report, "mocked-exit").path("evidence").asText()
                .matches("[1-9][0-9]* marked calls answered by the mock.*"), report.path("dynamicChecks").toString());
        long sent = report.path("preTest").get(0).path("counters").path("ok").asLong()
                + report.path("formal").get(0).path("counters").path("ok").asLong();
        assertEquals(22, sent, "2 QPS x 5 s + 4 QPS x 3 s, all placed");
        assertEquals(22, ran.shop().rows().get("reservations_shadow"), ran.shop().toString());
        assertEquals(0, ran.shop().rows().get("reservations"), ran.shop().toString());
        assertEquals(22, ran.shop().stockUnits().get("stock_shadow"), ran.shop().toString());
        assertEquals(0, ran.shop().stockUnits().get("stock"), ran.shop().toString());
        assertEquals(0, ran.shop().charges(), "payment's own counter: every marked charge was mocked");
    }

    /**
     * Issue 41's first boundary, counted at the shop's side: an order through the gateway whose marker Richter did not
     * sign (no proof, an expired one, another team's, one signed with another key) is production traffic, so it
     * reserves production stock and charges the real payment provider; the same order with the proof Richter signs
     * with the team's key (which the shop's extensions loaded from {@code GET /safety/isolation}) is isolated.
     */
    @Test
    @Order(2)
    void anOrderWhoseMarkerRichterDidNotSignIsProductionTrafficAndTheSignedOneIsIsolated() throws Exception {
        useShop(Map.of());
        String key = Json.MAPPER.readTree(api.get("/safety/isolation").body()).path("marker").path("keys").get(0).asText();
        long now = System.currentTimeMillis() / 1000;
        List<String> forged = List.of("",
                ",richter-proof=" + MarkerProof.mint(key, TEAM, "run-old", now - 3_600),
                ",richter-proof=" + MarkerProof.mint(key, "another-team", "run-x", now + 600),
                ",richter-proof=" + MarkerProof.mint(MarkerProof.newKey(), TEAM, "run-y", now + 600));
        HttpClient http = HttpClient.newHttpClient();
        ShopLedger before = shop.ledger();
        for (String proof : forged) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(shop.url("gateway") + "/orders"))
                    .header("content-type", "application/json").header("baggage", "richter-loadtest=1" + proof)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"sku\":\"A1\",\"qty\":1}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(201, r.statusCode(), r.body());
        }
        ShopLedger attacks = shop.ledger().minus(before);
        System.out.println("   forged markers, shop side: " + attacks);
        assertEquals(4, attacks.rows().get("reservations"), "each forged order reserved production stock: " + attacks);
        assertEquals(0, attacks.rows().get("reservations_shadow"), attacks.toString());
        assertEquals(4, attacks.charges(), "each forged order charged the real payment provider: " + attacks);
        assertEquals(4, attacks.items().get("orders"), "each forged order is a production DynamoDB item: " + attacks);

        before = shop.ledger();
        String signed = "richter-loadtest=1,richter-proof=" + MarkerProof.mint(key, TEAM, "run-signed", now + 600);
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(shop.url("gateway") + "/orders"))
                .header("content-type", "application/json").header("baggage", signed)
                .POST(HttpRequest.BodyPublishers.ofString("{\"sku\":\"A1\",\"qty\":1}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(201, r.statusCode(), r.body());
        ShopLedger isolated = shop.ledger().minus(before);
        assertEquals(1, isolated.rows().get("reservations_shadow"), isolated.toString());
        assertEquals(0, isolated.rows().get("reservations"), isolated.toString());
        assertEquals(0, isolated.charges(), "the signed order's charge was mocked: " + isolated);
        assertEquals(1, isolated.items().get("orders_shadow"), isolated.toString());
        assertEquals(0, isolated.items().get("orders"), isolated.toString());
        assertEquals(Map.of(), isolated.redisKeys(), "no production Redis key touched: " + isolated);
        assertEquals(0, isolated.priceCacheOps(), "the production price cache untouched: " + isolated);
    }

    @Test
    @Order(3)
    void theExtensionLeftInReportModeFailsThePreTestThoughNothingReachedProduction() throws Exception {
        useShop(Map.of());
        configure("report");
        Thread.sleep(ISOLATION_RELOAD_MS);
        try {
            Ran ran = run("report mode");
            caughtBeforeTheFormalStageWithNothingInProduction(ran);
            JsonNode enforced = onlyCheck(ran.report(), "isolation-enforced");
            assertEquals("FAIL", enforced.path("outcome").asText(), enforced.toString());
            assertTrue(enforced.path("evidence").asText().contains("the isolation is in report mode in "), enforced.toString());
            assertTrue(ran.report().path("outcomeReason").asText().contains("isolation-enforced"),
                    ran.report().path("outcomeReason").asText());
        } finally {
            configure("enforce");
            Thread.sleep(ISOLATION_RELOAD_MS);
        }
    }

    @Test
    @Order(4)
    void nightlyCheckEmitsCheckRegressedWhenTheShopBreaksBetweenTwoNights() throws Exception {
        useShop(Map.of());
        assertEquals(201, api.post("/plans", shopPlan()).status());
        JsonNode first = nightly();
        assertTrue(first.toString().contains(TEAM), first.toString());
        assertTrue(regressions(TEAM).stream().noneMatch(e -> e.path("check").asText().equals("marker-propagation")),
                "a healthy night: marker propagation passes");

        useShop(Map.of("SHOP_ASYNC_PAYMENT", "1"));
        nightly();
        regressions(TEAM).forEach(e -> System.out.println("== nightly Check Regressed: " + e));
        List<JsonNode> regressed = regressions(TEAM).stream()
                .filter(e -> e.path("check").asText().equals("marker-propagation")).toList();
        assertTrue(regressed.stream().anyMatch(e -> e.path("now").asText().equals("FAIL")
                && e.path("evidence").asText().contains("order->payment")), regressions(TEAM).toString());
    }

    @Test
    @Order(5)
    void markerLostOnAThreadTheAgentDoesNotFollowFailsThePreTestNamingTheEdge() throws Exception {
        useShop(Map.of("SHOP_ASYNC_PAYMENT", "1"));
        Ran ran = run("marker lost");
        JsonNode report = ran.report();
        assertEquals("PRE_TEST_FAILED", report.path("outcome").asText(), report.path("outcomeReason").asText());
        assertEquals(0, report.path("formal").size(), "the formal stage must not start");
        List<JsonNode> propagation = checks(report, "dynamicChecks", "marker-propagation");
        assertTrue(propagation.stream().anyMatch(c -> c.path("outcome").asText().equals("FAIL")
                && c.path("evidence").asText().contains("edge order->payment")), propagation.toString());
        assertTrue(report.path("outcomeReason").asText().contains("order->payment"), report.path("outcomeReason").asText());
        // what the marker check is for: without the marker the extension cannot tell, and the charges were real
        assertEquals(10, ran.shop().charges(), "payment's own counter: the pre-test's 10 orders, charged for real");
    }

    @Test
    @Order(7)
    void aNewExitWithNoMockIsRefusedByTheExtensionAndFailsThePreTest() throws Exception {
        useShop(Map.of("SHOP_FRAUD_URL", "payment"));
        Ran ran = run("exit with no mock");
        caughtBeforeTheFormalStageWithNothingInProduction(ran);
        JsonNode enforced = onlyCheck(ran.report(), "isolation-enforced");
        assertEquals("FAIL", enforced.path("outcome").asText(), enforced.toString());
        assertTrue(enforced.path("evidence").asText().startsWith("10 marked calls refused by the isolation"), enforced.toString());
        assertTrue(enforced.path("evidence").asText().contains("exit '127.0.0.1:" + PAYMENT_PORT + " POST /score'"),
                enforced.toString());
    }

    @Test
    @Order(8)
    void aBreakerForcedOpenIsSilentDegradationAndTheVanishedCallPathIsNamed() throws Exception {
        // the links below the entry, as the team's own traffic made them: order calls inventory (the earlier tests'
        // runs and the real orders that warm each start)
        if (shop == null) {
            useShop(Map.of());
        }
        Path spans = RUN_DIR.resolveSibling("it-shop-safety-spans.json");
        assertTrue(shop.exportSpans(spans), "the shop wrote spans");
        Demo.ingest(api, spans);
        useShop(Map.of("SHOP_INVENTORY_BREAKER_FORCED_OPEN", "true"));
        Ran ran = run("breaker forced open");
        JsonNode report = ran.report();
        // every answer was order's fallback: a 200 "degraded", which the plan's check counts as failed
        JsonNode counters = report.path("preTest").get(0).path("counters");
        assertEquals(10, counters.path("checkFailed").asLong(), counters.toString());
        assertEquals(0, counters.path("ok").asLong(), counters.toString());
        assertEquals("PRE_TEST_FAILED", report.path("outcome").asText(), report.path("outcomeReason").asText());
        assertEquals(0, ran.shop().rows().get("reservations_shadow"), "inventory was never called: " + ran.shop());
        JsonNode degradation = StreamSupport.stream(report.path("resilience").path("findings").spliterator(), false)
                .filter(f -> f.path("defence").asText().equals("degradation")).findFirst().orElseThrow();
        System.out.println("   degradation: " + degradation);
        assertEquals("FAILS", degradation.path("status").asText(), degradation.toString());
        String line = degradation.path("line").asText();
        assertTrue(line.startsWith("silent: 10 answers failed the plan's check"), line);
        assertTrue(line.contains("order → inventory not called in 10 of 10 gateway POST /orders requests from pre-test"), line);
        JsonNode edge = StreamSupport.stream(report.path("callGraph").path("edges").spliterator(), false)
                .filter(e -> e.path("from").asText().startsWith("order ") && e.path("to").asText().startsWith("inventory "))
                .findFirst().orElseThrow(() -> new AssertionError(report.path("callGraph").toString()));
        assertEquals("NOT_VERIFIED", edge.path("marker").asText(), "no marked trace crossed it: " + edge);
        // order's own breaker, read from its scrape, is named on the verdict timeline
        assertTrue(StreamSupport.stream(report.path("verdicts").spliterator(), false).anyMatch(v ->
                v.path("module").asText().equals("order") && v.path("state").asText().equals("SUSPECT")
                        && v.path("reason").asText().startsWith("circuit breaker 'inventory' open")), report.path("verdicts").toString());
        assertTrue(report.toString().contains("order SUSPECT: breaker inventory open"), "the timeline's mark");
        assertTrue(StreamSupport.stream(report.path("problems").spliterator(), false)
                .anyMatch(p -> p.path("subject").asText().equals("degradation")), report.path("problems").toString());
    }

    @Test
    @Order(9)
    void aNewTableWithNoShadowIsRefusedByTheExtensionFailsThePreTestAndTheNextRunsStaticChecks() throws Exception {
        useShop(Map.of("SHOP_AUDIT_RESERVATIONS", "1"));
        Ran ran = run("table with no shadow");
        caughtBeforeTheFormalStageWithNothingInProduction(ran);
        JsonNode enforced = onlyCheck(ran.report(), "isolation-enforced");
        assertEquals("FAIL", enforced.path("outcome").asText(), enforced.toString());
        assertTrue(enforced.path("evidence").asText().startsWith("10 marked calls refused by the isolation"), enforced.toString());
        assertTrue(enforced.path("evidence").asText().contains("exit 'table reservation_audit'"), enforced.toString());
        assertEquals(0, ran.shop().rows().get("reservations_shadow"),
                "the refusal rolled the reservation back: the transaction failed whole " + ran.shop());
        // order's circuit-breaker fallback answered 200 "degraded": the response check counts them as failures
        JsonNode counters = ran.report().path("preTest").get(0).path("counters");
        assertEquals(10, counters.path("checkFailed").asLong(), counters.toString());
        assertEquals(0, counters.path("ok").asLong(), counters.toString());

        // the run recorded the refused write as a datastore inventory writes: the next run stops at its static checks
        JsonNode audit = StreamSupport.stream(api.get("/services/inventory").json().path("discovered").spliterator(), false)
                .filter(d -> d.path("name").asText().equalsIgnoreCase("reservation_audit")).findFirst()
                .orElseThrow(() -> new AssertionError("reservation_audit not discovered"));
        assertTrue(audit.path("writes").asBoolean(), audit.toString());
        JsonNode next = run("table with no shadow, next run").report();
        assertEquals("STATIC_CHECKS_FAILED", next.path("outcome").asText(), next.path("outcomeReason").asText());
        assertTrue(next.path("outcomeReason").asText().contains("discovered-datastores (inventory table reservation_audit)"),
                next.path("outcomeReason").asText());
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
