package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.common.model.Marker;
import dev.richter.common.model.MarkerAttributes;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.SpanKind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

/**
 * Abort from the console, counted at the demo shop: the real shop (gateway, order, inventory, payment with the
 * OpenTelemetry agent and Richter's extension) takes marked orders at 20 QPS; an on-call engineer presses Abort on the
 * run's page, three runs one after another, and the shop's own spans (gateway SERVER spans carrying the marker
 * {@code richter-loadtest=1}, as the agent exported them) give the last marked request it received. Each run's time
 * from pressing Abort to that request is printed ({@code console abort at the shop: ...}) and is at most 5 s; the run
 * page's own figure (the load stopped N ms after the flag) is beside it. The services page then shows inventory's
 * shadow pre-check as the runs found it.
 */
class ConsoleAbortIT extends LocalAwsStackTestSupport {
    static final String TEAM = "console-shop";
    /** The shop's first port ({@link #shopEnv}): 19380-19396. */
    static final int GATEWAY_PORT = 19380;
    static final Path RUN_DIR = root.resolve("local/target/it-shop-console");
    static final int RUNS = 3;
    static Shop shop;

    @BeforeAll
    static void openBrowser() throws Exception {
        ConsoleIT.openBrowser();
    }

    @AfterAll
    static void stopAll() {
        ConsoleIT.closeBrowser();
        if (shop != null) {
            shop.close();
        }
    }

    @Test
    void abortOnTheRunsPageStopsTheMarkedRequestsTheShopReceives() throws Exception {
        ApiClient api = api(TEAM);
        configureShop(api, GATEWAY_PORT, RUN_DIR);
        shop = Shop.start(root, shopEnv(GATEWAY_PORT, RUN_DIR, TEAM));
        shop.warm();
        ShopLedger before = shop.ledger();   // after the 20 real orders of the warm-up
        var created = api.post("/plans", plan());
        assertEquals(201, created.status(), created.body());
        String planId = created.json().path("planId").asText();
        ConsoleIT.signIn(TEAM, "#/plans/" + planId);

        List<Long> lastAfterPressMs = new ArrayList<>();
        List<Long> pageLatencyMs = new ArrayList<>();
        for (int i = 1; i <= RUNS; i++) {
            long startedAtMs = System.currentTimeMillis();
            startFromThePlanPage(planId);
            String runId = ConsoleIT.browser.getCurrentUrl().replaceAll(".*#/runs/", "");
            try {
                // live: the formal step runs, its figures and the report's charts are on the page, and the shop has
                // received marked orders of it
                ConsoleIT.waitUpTo(150).until(d -> d.findElement(By.id("run-step")).getText().startsWith("formal")
                        && !d.findElement(By.id("achieved-qps")).getText().equals("–")
                        && !d.findElements(By.cssSelector("#chart-qps .uplot")).isEmpty()
                        && markedAtGateway(startedAtMs).size() >= 60);
            } catch (org.openqa.selenium.TimeoutException e) {
                ConsoleIT.shot("shop-run-not-live");
                throw new AssertionError("run " + runId + " did not go live at the shop; the page shows: "
                        + ConsoleIT.browser.findElement(By.id("main")).getText() + "\nGET /runs/" + runId + ": "
                        + api.get("/runs/" + runId).body(), e);
            }
            if (i == 1) {
                ConsoleIT.shot("run-live-shop");
            }
            if (ConsoleIT.browser.findElements(By.id("abort-reason")).isEmpty()) {
                throw new AssertionError("run " + runId + " offers no Abort; the page shows: " + ConsoleIT.browser.findElement(By.id("main")).getText()
                        + "\nGET /runs/" + runId + ": " + api.get("/runs/" + runId).body());
            }
            ConsoleIT.browser.findElement(By.id("abort-reason")).sendKeys("console abort at the shop, run " + i);
            long pressedAtMs = System.currentTimeMillis();
            ConsoleIT.browser.findElement(By.id("abort")).click();
            pageLatencyMs.add(ConsoleIT.abortLatencyShown());
            // the agent exports its spans every 500 ms: what the shop received by now is in its logs 2 s later
            Thread.sleep(2_500);
            List<Long> marked = markedAtGateway(startedAtMs);
            long lastMs = marked.stream().mapToLong(Long::longValue).max().orElseThrow();
            long afterPress = marked.stream().filter(ms -> ms > pressedAtMs).count();
            lastAfterPressMs.add(lastMs - pressedAtMs);
            long flagAfterPressMs = api.get("/runs/" + runId).json().path("abort").path("requestedAtMs").asLong(0) - pressedAtMs;
            System.out.printf("console abort at the shop, run %d (%s): %d marked orders at the gateway, %d of them after"
                    + " pressing Abort, the last %d ms after it; the abort flag was set %d ms after pressing (the API's"
                    + " answer); the page: the load stopped %d ms after the flag (-1: no worker was sending)%n", i, runId,
                    marked.size(), afterPress, lastMs - pressedAtMs, flagAfterPressMs, pageLatencyMs.get(i - 1));
            assertTrue(lastMs - pressedAtMs < 5_000, "the shop's last marked order came " + (lastMs - pressedAtMs) + " ms after Abort");
            awaitReport(api, runId, 90_000);
            JsonNode run = api.get("/runs/" + runId).json().path("run");
            assertEquals("ABORTED", run.path("outcome").asText(), run.toString());
            assertEquals("requested by oncall: console abort at the shop, run " + i, run.path("abortReason").asText(),
                    "audited as the signed-in user");
            assertEquals(marked.size(), markedAtGateway(startedAtMs).size(), "no marked order reached the shop once the run ended");
        }
        System.out.println("console abort at the shop: from pressing Abort to the shop's last marked request " + lastAfterPressMs
                + " ms; the page's figures " + pageLatencyMs + " ms");
        ShopLedger effects = shop.ledger().minus(before);
        assertEquals(0, effects.productionEffects(), "the aborted runs wrote nothing to production: " + effects);

        // the services page: inventory's shadow tables as its own database answered the extension's pre-check
        ConsoleIT.open("#/services");
        ConsoleIT.waitUpTo(30).until(d -> !d.findElements(By.cssSelector("#services tr[data-service='inventory'] .pre-check div")).isEmpty());
        String preCheck = ConsoleIT.browser.findElement(By.cssSelector("#services tr[data-service='inventory'] .pre-check")).getText();
        assertTrue(preCheck.contains("PASS") && preCheck.contains("_shadow"), "inventory's shadow pre-check: " + preCheck);
        assertTrue(ConsoleIT.browser.findElement(By.id("pre-check-source")).getText().contains("run-"));
        ConsoleIT.shot("services-shop");
    }

    /**
     * Presses Start now on the plan's page until the run's page opens: while the previous run still holds the shop
     * (its leases are released just after its report), the API answers 409 and the page shows it; up to 30 s.
     */
    static void startFromThePlanPage(String planId) {
        long deadline = System.currentTimeMillis() + 30_000;
        while (true) {
            ConsoleIT.open("#/plans/" + planId);
            ConsoleIT.waitUpTo(15).until(d -> !d.findElements(By.id("start-now")).isEmpty());
            ConsoleIT.browser.findElement(By.id("start-now")).click();
            try {
                ConsoleIT.waitUpTo(5).until(d -> d.getCurrentUrl().matches(".*#/runs/run-[^/]+$"));
                return;
            } catch (org.openqa.selenium.TimeoutException e) {
                if (System.currentTimeMillis() > deadline) {
                    throw new AssertionError("Start now did not open a run: " + ConsoleIT.browser.findElement(By.id("main")).getText(), e);
                }
            }
        }
    }

    /** Start times (epoch ms) of the marked requests the shop's gateway received since {@code fromMs}, from its spans. */
    static List<Long> markedAtGateway(long fromMs) {
        List<Long> out = new ArrayList<>();
        for (Span s : shop.spans(fromMs, System.currentTimeMillis() + 60_000)) {
            if (s.service().equals("gateway") && s.kind() == SpanKind.SERVER && MarkerAttributes.carries(s.attributes(), Marker.DEFAULT)) {
                out.add(s.startEpochNanos() / 1_000_000);
            }
        }
        return out;
    }

    /**
     * Pre-test 2 QPS x 10 s, no warm-up, formal 20 QPS x 120 s: each run is aborted in its formal step, by the person
     * only (the plan's own abort policy is off, so a slow shop on a busy machine does not end the run first).
     */
    static String plan() {
        return Json.write(Map.of("name", "console abort", "scenarios", List.of(Map.of("name", "orders", "service", "gateway",
                        "requests", List.of(Map.of("method", "POST", "path", "/orders", "headers",
                                Map.of("content-type", "application/json"), "body", "{\"sku\":\"A1\",\"qty\":1}",
                                "expect", Map.of("status", List.of(201)))))),
                "preTest", Map.of("qps", 2, "durationS", 10), "warmUp", Map.of("durationS", 0),
                "formal", Map.of("steps", List.of(Map.of("qps", 20, "durationS", 120))),
                "abortPolicy", Map.of("abortOnDamagedCoreModule", false, "maxErrorRatePct", 100),
                "coreModules", List.of("order", "inventory"), "perWorkerQps", 20, "requestTimeoutMs", 2000));
    }
}
