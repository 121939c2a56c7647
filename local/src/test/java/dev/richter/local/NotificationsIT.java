package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.richter.common.Json;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * Progress broadcast on the local stack (issue 26, item 2): a run's events on the bus ({@code Run Started}, one
 * {@code Step Completed} per step, {@code Verdict Changed}, {@code Run Aborted}, {@code Run Completed}) and the team's
 * webhook notifications of them, each exactly once, signed with the team's secret; a local webhook counts them.
 */
class NotificationsIT extends LocalAwsStackTestSupport {
    private static final String SECRET = "it-webhook-secret-0123456789";
    private static final Set<String> NOTIFIED = Set.of("Run Started", "Step Completed", "Verdict Changed", "Run Aborted",
            "Run Completed", "Run Start Failed");

    /** One POST the webhook received. */
    private record Hook(String eventId, String type, String signature, String body, JsonNode json) {}

    /** The plan with a 3 s request timeout instead of the support's 1 s. */
    private static String patient(String plan) {
        assertTrue(plan.contains("\"requestTimeoutMs\":1000"), plan);
        return plan.replace("\"requestTimeoutMs\":1000", "\"requestTimeoutMs\":3000");
    }

    private static String hmac(String payload) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return HexFormat.of().formatHex(mac.doFinal(payload.getBytes(StandardCharsets.UTF_8)));
    }

    private static List<JsonNode> busEvents(String runId) {
        return stack.eventBus().events().stream().filter(e -> e.path("source").asText().equals("richter")
                && e.path("detail").path("runId").asText().equals(runId)).toList();
    }

    private static List<Hook> hooks(List<Hook> all, String runId) {
        return all.stream().filter(h -> h.json().path("runId").asText().equals(runId)).toList();
    }

    private static void await(String what, java.util.function.BooleanSupplier done) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 30_000;
        while (!done.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(100);
        }
    }

    /** Every notified bus event of the run reached the webhook exactly once, signed; returns the hooks by type. */
    private static Map<String, List<Hook>> checkedOnce(List<Hook> received, String runId) throws Exception {
        List<JsonNode> events = busEvents(runId).stream().filter(e -> NOTIFIED.contains(e.path("detail-type").asText())).toList();
        await("a notification of every event of " + runId, () -> hooks(received, runId).size() >= events.size());
        Thread.sleep(1500); // a second notification of one event would arrive now
        List<Hook> got = hooks(received, runId);
        assertEquals(events.stream().map(e -> e.path("id").asText()).sorted().toList(),
                got.stream().map(Hook::eventId).sorted().toList(), "each event of the run notified exactly once");
        for (Hook h : got) {
            String[] parts = h.signature().split(",");
            String t = parts[0].substring(2);
            assertEquals("v1=" + hmac(t + "." + h.body()), parts[1], "signed with the team's secret: " + h.signature());
            assertEquals(h.type(), h.json().path("type").asText());
        }
        return got.stream().collect(Collectors.groupingBy(Hook::type, TreeMap::new, Collectors.toList()));
    }

    @Test
    void aRunsEventsAndItsTeamsNotificationsArriveEachExactlyOnceAndAnAbortIsToldToo() throws Exception {
        List<Hook> received = new CopyOnWriteArrayList<>();
        HttpServer webhook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        webhook.createContext("/hook", ex -> {
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            received.add(new Hook(ex.getRequestHeaders().getFirst("Richter-Event-Id"),
                    ex.getRequestHeaders().getFirst("Richter-Event-Type"), ex.getRequestHeaders().getFirst("Richter-Signature"),
                    body, Json.read(body, JsonNode.class)));
            ex.sendResponseHeaders(204, -1);
            ex.close();
        });
        webhook.start();
        try (FakeTarget target = new FakeTarget()) {
            ApiClient api = api("team-notify");
            register(api, "notify-svc", target.baseUrl());
            var sub = api.put("/notifications", Json.write(Map.of("webhook", Map.of("url",
                    "http://127.0.0.1:" + webhook.getAddress().getPort() + "/hook", "secret", SECRET))));
            assertEquals(201, sub.status(), sub.body());

            // a cold target on a busy machine timed a pre-test request out at 1 s: warm it, and give requests 3 s
            var http = java.net.http.HttpClient.newHttpClient();
            for (int i = 0; i < 20; i++) {
                http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(target.baseUrl() + "/orders"))
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"sku\":\"A1\"}")).build(),
                        java.net.http.HttpResponse.BodyHandlers.discarding());
            }
            target.arrivalsMs.clear();
            // a run to its end: pre-test and two formal steps
            String runId = startRun(api, patient(plan("notify-svc", 2, 2, List.of(new double[] {2, 2}, new double[] {3, 2}))));
            JsonNode report = awaitReport(api, runId, 180_000);
            assertEquals("PASSED", report.path("outcome").asText(), report.path("outcomeReason").asText());
            await("Run Completed of " + runId, () -> hooks(received, runId).stream().anyMatch(h -> h.type().equals("Run Completed")));
            Map<String, List<Hook>> byType = checkedOnce(received, runId);
            List<JsonNode> events = busEvents(runId);
            Predicate<String> once = type -> events.stream().filter(e -> e.path("detail-type").asText().equals(type)).count() == 1;
            assertTrue(once.test("Run Started") && once.test("Run Completed"), "one Run Started and one Run Completed");
            List<String> steps = events.stream().filter(e -> e.path("detail-type").asText().equals("Step Completed"))
                    .map(e -> e.path("detail").path("stage").asText() + "/" + e.path("detail").path("stepIndex").asInt()).sorted().toList();
            assertEquals(List.of("formal/0", "formal/1", "pre-test/0"), steps, "one Step Completed per step");
            assertEquals(1, byType.get("Run Started").size());
            assertEquals(3, byType.get("Step Completed").size());
            JsonNode formal1 = byType.get("Step Completed").stream().map(Hook::json)
                    .filter(j -> j.path("detail").path("stage").asText().equals("formal") && j.path("detail").path("stepIndex").asInt() == 1)
                    .findFirst().orElseThrow().path("detail");
            assertEquals(3.0, formal1.path("targetQps").asDouble(), formal1.toString());
            assertEquals(6, formal1.path("sent").asLong(), "3 QPS for 2 s: " + formal1);
            assertEquals(0, formal1.path("errors").asLong(), formal1.toString());
            assertTrue(formal1.path("p99Ms").isNumber(), formal1.toString());
            assertEquals("HEALTHY", formal1.path("verdicts").path("notify-svc").asText(formal1.path("verdicts").toString()));
            String reportUrl = byType.get("Run Completed").get(0).json().path("reportUrl").asText();
            assertEquals(LocalAwsStack.apiBaseUrl() + "/runs/" + runId + "/report", reportUrl);
            assertEquals(200, api.get("/runs/" + runId + "/report").status());

            // a run aborted in its formal stage: Run Aborted is told, and the aborted step is completed once
            String aborted = start(api, api.post("/plans", patient(plan("notify-svc", 2, 2, List.<double[]>of(new double[] {2, 30}))))
                    .json().path("planId").asText());
            await("the pre-test of " + aborted, () -> hooks(received, aborted).stream().anyMatch(h -> h.type().equals("Step Completed")));
            Thread.sleep(3000);
            assertEquals(202, api.post("/runs/" + aborted + "/abort", Json.write(Map.of("reason", "notifications IT"))).status());
            JsonNode abortedReport = awaitReport(api, aborted, 180_000);
            assertEquals("ABORTED", abortedReport.path("outcome").asText());
            await("Run Completed of " + aborted, () -> hooks(received, aborted).stream().anyMatch(h -> h.type().equals("Run Completed")));
            Map<String, List<Hook>> abortedByType = checkedOnce(received, aborted);
            assertEquals(1, abortedByType.get("Run Aborted").size());
            assertTrue(abortedByType.get("Run Aborted").get(0).json().path("detail").path("reason").asText().contains("notifications IT"));
            JsonNode abortedStep = abortedByType.get("Step Completed").stream().map(Hook::json)
                    .filter(j -> j.path("detail").path("stage").asText().equals("formal")).findFirst().orElseThrow().path("detail");
            assertTrue(abortedStep.path("aborted").asBoolean(), abortedStep.toString());
            assertEquals(2, abortedByType.get("Step Completed").size(), "pre-test and the aborted formal step");

            JsonNode deliveries = api.get("/notifications").json().path("deliveries");
            assertTrue(deliveries.size() > 0);
            deliveries.forEach(d -> assertEquals("DELIVERED", d.path("status").asText(), d.toString()));
        } finally {
            webhook.stop(0);
        }
    }
}
