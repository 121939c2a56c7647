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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The team's own evidence end to end, with a real Prometheus and Alertmanager ({@link LocalMonitoring}) and the real
 * demo shop: order stops counting its business metric {@code orders_placed_total} after a number of orders while
 * every answer stays 201 and every probe green ({@code SHOP_ORDER_COUNT_STOPS_AFTER}), and the decider makes order
 * SUSPECT by rule {@code business-metric} at the third round past its expectation; then a step above order's rate
 * limit makes the gateway shed, Prometheus' {@code ShopShedding} rule fires, and the Alertmanager's alert is on the
 * report's timeline at that step, in its problems and in {@code GET /runs/{runId}/events}.
 */
class TeamEvidenceIT extends LocalAwsStackTestSupport {
    static final String TEAM = "evidence-shop";
    static final int GATEWAY_PORT = 19280;
    static final int ORDER_PORT = 19281;
    static final int PROMETHEUS_PORT = 19290;
    static final int ALERTMANAGER_PORT = 19293;
    static final Path RUN_DIR = root.resolve("local/target/it-shop-evidence");
    /**
     * Real orders sent before the run (warming), the pre-test's (2 QPS x 30 s), the warm-up's ramp after the dynamic
     * gate (2, 3.4, 5.8, 10 QPS x 6 s: 12 + 21 + 36 + 60) and formal step 1's first 25 s at 10 QPS.
     */
    static final int COUNT_STOPS_AFTER = Shop.WARM_ORDERS + 129 + 60 + 250;

    static Shop shop;
    static LocalMonitoring monitoring;

    @AfterAll
    static void stopAll() {
        if (shop != null) shop.close();
        if (monitoring != null) monitoring.close();
    }

    @Test
    void aFallingBusinessMetricIsActedOnWithinThreeRoundsAndARealAlertIsOnTheTimelineAtItsStep() throws Exception {
        Assumptions.assumeTrue(LocalMonitoring.missing().isEmpty(), LocalMonitoring.missing().orElse(""));
        ApiClient api = api(TEAM);
        configure(api);
        // the team's stored rules: a business metric makes SUSPECT at 3 rounds (the default) and, for this test, never
        // DAMAGED, so the run goes on to the step that sheds (order is core: a DAMAGED order would abort it)
        var repos = dev.richter.common.Repositories.fromEnv();
        dev.richter.common.AwsClients.dynamoDb().putItem(software.amazon.awssdk.services.dynamodb.model.PutItemRequest.builder()
                .tableName(repos.tables().registry()).item(Map.of(
                        "teamId", software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS(TEAM),
                        "itemKey", software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS("rules#decision"),
                        "rules", software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS(
                                "{\"teamEvidence\": {\"businessMetricDamagedRounds\": 1000}}"))).build());
        Map<String, String> env = new HashMap<>(shopEnv(GATEWAY_PORT, RUN_DIR, TEAM));
        env.put("SHOP_ORDER_COUNT_STOPS_AFTER", String.valueOf(COUNT_STOPS_AFTER));
        shop = Shop.start(root, env);
        monitoring = LocalMonitoring.start(RUN_DIR.resolve("monitoring"), TEAM, List.of(
                new LocalMonitoring.ScrapeTarget("gateway", "127.0.0.1:" + GATEWAY_PORT),
                new LocalMonitoring.ScrapeTarget("order", "127.0.0.1:" + ORDER_PORT)), PROMETHEUS_PORT, ALERTMANAGER_PORT);
        var put = api.put("/evidence-sources", monitoring.evidenceSources(TEAM));
        assertEquals(201, put.status(), put.body());
        shop.warm();

        String runId = startRun(api, plan());
        JsonNode report = awaitReport(api, runId, 420_000);
        var eventsAnswer = api.get("/runs/" + runId + "/events");
        assertEquals(200, eventsAnswer.status(), eventsAnswer.body());
        JsonNode events = eventsAnswer.json().path("items");
        System.out.println("events: " + events);
        System.out.println("business metrics: " + report.path("businessMetrics"));

        // the business metric: order SUSPECT by its own rule at the third judged round past the expectation, its
        // probes green (it was HEALTHY just before), in formal step 1 where the counter stopped
        JsonNode metricChange = first(events, e -> e.path("kind").asText().equals("verdict-changed")
                && e.path("module").asText().equals("order") && e.path("detail").asText().startsWith("business metric orders-per-second"));
        assertTrue(metricChange != null, "order's verdict changed on its business metric: " + events);
        assertEquals("HEALTHY→SUSPECT", metricChange.path("name").asText(), metricChange.toString());
        assertTrue(metricChange.path("detail").asText().endsWith("for 3 rounds"), "acted at the third round: " + metricChange);
        assertEquals("formal#0", metricChange.path("step").asText(), metricChange.toString());
        JsonNode row = first(report.path("businessMetrics"), r -> r.path("step").asText().startsWith("step 1"));
        assertTrue(row != null && row.path("breachRounds").asInt() >= 3, "the step's row names its rounds past: " + report.path("businessMetrics"));
        assertEquals("orders-per-second", row.path("name").asText());
        var html = api.get("/runs/" + runId + "/report?format=html").body();
        assertTrue(html.contains("<section id=business-metrics>") && html.contains("orders-per-second"), "the report names the metric");

        // the real alert from the real Alertmanager: fired on the gateway in the step above order's rate limit
        JsonNode fired = first(events, e -> e.path("kind").asText().equals("alert-fired")
                && e.path("name").asText().equals(LocalMonitoring.SHEDDING_ALERT));
        assertTrue(fired != null, "ShopShedding fired: " + events);
        assertEquals("gateway", fired.path("module").asText());
        assertEquals("formal#1", fired.path("step").asText(), "at the step that sheds: " + fired);
        assertTrue(html.contains("class=lane-alert-label>ShopShedding · gateway</text>"), "on the report's timeline lane");
        JsonNode problem = first(report.path("problems"), p -> p.path("kind").asText().equals("alert"));
        assertTrue(problem != null && problem.path("problem").asText().contains("(step 2 · 60 QPS)"),
                "Problems to follow names the alert and its step: " + report.path("problems"));
    }

    static JsonNode first(JsonNode list, java.util.function.Predicate<JsonNode> p) {
        for (JsonNode n : list) if (p.test(n)) return n;
        return null;
    }

    /**
     * Pre-test 2 QPS x 30 s (its baseline past the 15 s settle time), after the dynamic gate a warm-up ramp to 10 QPS
     * over 24 s (a cold inventory's first marked calls exhaust its pool at once at 10 QPS), formal 10 QPS x 60 s (the
     * counter stops 25 s in), then 60 QPS x 15 s (above order's 50 orders a second).
     */
    static String plan() {
        return Json.write(Map.of("name", "evidence it", "scenarios", List.of(Map.of("name", "orders", "service", "gateway",
                        "requests", List.of(Map.of("method", "POST", "path", "/orders", "headers",
                                Map.of("content-type", "application/json"), "body", "{\"sku\":\"A1\",\"qty\":1}",
                                "expect", Map.of("status", List.of(201)))))),
                "preTest", Map.of("qps", 2, "durationS", 30), "warmUp", Map.of("qps", 10, "durationS", 24),
                "formal", Map.of("steps", List.of(Map.of("qps", 10, "durationS", 60), Map.of("qps", 60, "durationS", 15))),
                "coreModules", List.of("order", "inventory"), "perWorkerQps", 20, "requestTimeoutMs", 2000));
    }

    /** As SafetyGateIT: gateway, order with its scrape, inventory with its shadows, the payment exit's mock. */
    static void configure(ApiClient api) throws Exception {
        configureShop(api, GATEWAY_PORT, RUN_DIR);
    }
}
