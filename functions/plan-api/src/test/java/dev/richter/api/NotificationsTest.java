package dev.richter.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.TableNames;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A team's subscription ({@code PUT/GET /notifications}) and {@link TeamNotifier}: signed webhook bodies, one delivery
 * per event and channel, bounded retries, every delivery recorded.
 */
class NotificationsTest {
    private static final String SECRET = "whsec-0123456789abcdef";
    private static final long NOW_MS = 1_780_000_000_000L;

    private final RegistryApiHarness api = new RegistryApiHarness();
    private final Repositories repositories = new Repositories(api.dynamoDb(),
            new TableNames("registry", "plans", "runs", "run-metrics", "verdicts", "links", "reports", "audit"), api.secrets());

    private record Post(String url, Map<String, String> headers, String body) {}

    private static JsonNode event(String id, String type) {
        return Json.read("{\"version\":\"0\",\"id\":\"" + id + "\",\"detail-type\":\"" + type + "\",\"source\":\"richter\","
                + "\"time\":\"2026-12-02T15:00:00Z\",\"detail\":{\"runId\":\"run-1\",\"planId\":\"plan-1\",\"teamId\":\"t1\","
                + "\"stage\":\"formal\",\"stepIndex\":0}}", JsonNode.class);
    }

    /** Every webhook host resolves to a public address (a documentation one, RFC 5737). */
    private static final dev.richter.common.net.AllowedNetworks PUBLIC = new dev.richter.common.net.AllowedNetworks("",
            false, host -> new java.net.InetAddress[] {java.net.InetAddress.getByName("203.0.113.5")});

    private void subscribe(String json) {
        var r = api.call("PUT /notifications", "t1", Map.of(), Map.of(), json.getBytes(StandardCharsets.UTF_8));
        assertTrue((int) r.get("statusCode") < 300, r.toString());
    }

    @Test
    void aWebhookGetsEachEventOnceSignedWithTheTeamsSecretAndTheReportLinkOnCompletion() {
        subscribe("{\"webhook\":{\"url\":\"https://hooks.example.com/richter\",\"secret\":\"" + SECRET + "\"}}");
        List<Post> posts = new ArrayList<>();
        TeamNotifier notifier = new TeamNotifier(repositories, (url, headers, body) -> {
            posts.add(new Post(url, headers, body));
            return 204;
        }, (topic, subject, message) -> {
            throw new AssertionError("no topic subscribed");
        }, "https://api.example.com/dev", () -> NOW_MS, ms -> { }, PUBLIC);

        assertEquals(1, notifier.deliver(event("e-1", "Step Completed")).size());
        assertEquals(List.of(), notifier.deliver(event("e-1", "Step Completed")), "a redelivered event sends nothing");
        notifier.deliver(event("e-2", "Run Completed"));
        assertEquals(List.of(), notifier.deliver(event("e-3", "Check Regressed")), "not a run's progress");

        assertEquals(2, posts.size());
        Post step = posts.get(0);
        assertEquals("https://hooks.example.com/richter", step.url());
        assertEquals("e-1", step.headers().get("Richter-Event-Id"));
        long t = NOW_MS / 1000;
        assertEquals("t=" + t + ",v1=" + TeamNotifier.sign(SECRET, t + "." + step.body()), step.headers().get("Richter-Signature"));
        // the HMAC itself, against the JDK's, over a known input (RFC 4231 test case 2: key "Jefe")
        assertEquals("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
                TeamNotifier.sign("Jefe", "what do ya want for nothing?"));
        JsonNode body = Json.read(step.body(), JsonNode.class);
        assertEquals("Step Completed", body.path("type").asText());
        assertEquals("run-1", body.path("runId").asText());
        assertEquals("formal", body.path("detail").path("stage").asText());
        assertFalse(body.has("reportUrl"));
        assertEquals("https://api.example.com/dev/runs/run-1/report",
                Json.read(posts.get(1).body(), JsonNode.class).path("reportUrl").asText());
    }

    @Test
    void aFailingWebhookIsTriedThreeTimesWithBoundedBackoffAndTheFailureIsRecordedWhileSnsStillGetsTheEvent() {
        subscribe("{\"webhook\":{\"url\":\"http://127.0.0.1:9/hook\",\"secret\":\"" + SECRET + "\"},"
                + "\"snsTopicArn\":\"arn:aws:sns:us-east-1:123456789012:richter-team-t1\"}");
        AtomicInteger attempts = new AtomicInteger();
        List<Long> waits = new ArrayList<>();
        List<String> published = new ArrayList<>();
        TeamNotifier notifier = new TeamNotifier(repositories, (url, headers, body) -> {
            attempts.incrementAndGet();
            return 503;
        }, (topic, subject, message) -> published.add(topic + " " + subject), "", () -> NOW_MS, waits::add, PUBLIC);

        List<TeamNotifier.Delivery> out = notifier.deliver(event("e-9", "Run Aborted"));

        assertEquals(List.of(new TeamNotifier.Delivery("webhook", "FAILED", 3, "HTTP 503 from http://127.0.0.1:9/hook"),
                new TeamNotifier.Delivery("sns", "DELIVERED", 1, "")), out);
        assertEquals(3, attempts.get());
        assertEquals(2, waits.size(), "a wait between attempts, none after the last");
        assertTrue(waits.get(0) < TeamNotifier.BASE_BACKOFF_MS && waits.get(1) < 2 * TeamNotifier.BASE_BACKOFF_MS, waits.toString());
        assertEquals(List.of("arn:aws:sns:us-east-1:123456789012:richter-team-t1 Richter Run Aborted run-1"), published);

        JsonNode got = RegistryApiHarness.body(api.call("GET /notifications", "t1", Map.of(), Map.of(), null));
        assertEquals(true, got.path("webhook").path("secretSet").asBoolean());
        assertFalse(got.path("webhook").has("secret"), "the secret is never answered");
        assertEquals(2, got.path("deliveries").size(), got.toString());
        JsonNode failed = null;
        for (JsonNode d : got.path("deliveries")) {
            if (d.path("channel").asText().equals("webhook")) {
                failed = d;
            }
        }
        assertEquals("FAILED", failed.path("status").asText());
        assertEquals(3, failed.path("attempts").asInt());
        assertEquals("e-9", failed.path("eventId").asText());
        api.assertConforms("Notifications", got);
    }

    @Test
    void aSubscriptionWithoutAChannelAShortSecretABadUrlOrAForeignTopicIsA400AtItsField() {
        Map<String, String> bad = Map.of(
                "{}", "$",
                "{\"webhook\":{\"url\":\"https://h.example.com\",\"secret\":\"short\"}}", "$.webhook.secret",
                "{\"webhook\":{\"url\":\"ftp://h.example.com/x\",\"secret\":\"" + SECRET + "\"}}", "$.webhook.url",
                "{\"snsTopicArn\":\"arn:aws:sns:us-east-1:123456789012:other-topic\"}", "$.snsTopicArn");
        bad.forEach((json, path) -> {
            var r = api.call("PUT /notifications", "t1", Map.of(), Map.of(), json.getBytes(StandardCharsets.UTF_8));
            assertEquals(400, r.get("statusCode"), json + " -> " + r);
            assertTrue(String.valueOf(r.get("body")).contains("\"" + path), json + " -> " + r.get("body"));
        });
        assertEquals(404, api.call("GET /notifications", "t1", Map.of(), Map.of(), null).get("statusCode"));
    }

    @Test
    void aWebhookIsCheckedAgainstTheDeploymentsNetworksAtRegistrationAndAtEachDelivery() {
        var refused = api.call("PUT /notifications", "t1", Map.of(), Map.of(),
                ("{\"webhook\":{\"url\":\"http://169.254.169.254/latest/meta-data/\",\"secret\":\"" + SECRET + "\"}}")
                        .getBytes(StandardCharsets.UTF_8));
        assertEquals(400, refused.get("statusCode"));
        assertTrue(String.valueOf(refused.get("body")).contains("$.webhook.url")
                && String.valueOf(refused.get("body")).contains("169.254.169.254 is link-local"), refused.toString());

        // registered while its name pointed elsewhere; by the delivery it resolves to the metadata endpoint
        subscribe("{\"webhook\":{\"url\":\"https://hooks.example.com/richter\",\"secret\":\"" + SECRET + "\"}}");
        AtomicInteger sent = new AtomicInteger();
        TeamNotifier notifier = new TeamNotifier(repositories, (url, headers, body) -> {
            sent.incrementAndGet();
            return 204;
        }, (topic, subject, message) -> { }, "", () -> NOW_MS, ms -> { },
                new dev.richter.common.net.AllowedNetworks("", false,
                        host -> new java.net.InetAddress[] {java.net.InetAddress.getByName("169.254.169.254")}));
        List<TeamNotifier.Delivery> out = notifier.deliver(event("e-20", "Run Aborted"));
        assertEquals(0, sent.get(), "nothing was sent");
        assertEquals("FAILED", out.get(0).status());
        assertTrue(out.get(0).error().startsWith("refused, nothing sent: 169.254.169.254 (hooks.example.com) is link-local"),
                out.get(0).error());
    }
}
