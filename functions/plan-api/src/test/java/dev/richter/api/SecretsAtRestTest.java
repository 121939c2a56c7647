package dev.richter.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.TableNames;
import dev.richter.common.secrets.SecretSealer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The teams' secrets are sealed at rest (docs/aws.md "Secrets"): after the marker keys are made and a webhook is
 * subscribed, no item of any table holds a marker key or the webhook secret in plain text; the API still serves the
 * keys to the team's extensions and signs with the secret; items written before sealing are still read.
 */
class SecretsAtRestTest {
    private static final String SECRET = "whsec-plain-0123456789";
    private final RegistryApiHarness api = new RegistryApiHarness();
    private final Repositories repositories = new Repositories(api.dynamoDb(),
            new TableNames("registry", "plans", "runs", "run-metrics", "verdicts", "links", "reports", "audit"), api.secrets());

    private String everyItem() {
        return api.items.values().toString();
    }

    private List<String> servedKeys(String team) {
        var r = api.call("GET /safety/isolation", team, Map.of(), Map.of(), null);
        assertEquals(200, r.get("statusCode"), r.toString());
        List<String> keys = new ArrayList<>();
        RegistryApiHarness.body(r).path("marker").path("keys").forEach(k -> keys.add(k.asText()));
        return keys;
    }

    private void subscribe(String team) {
        var r = api.call("PUT /notifications", team, Map.of(), Map.of(),
                ("{\"webhook\":{\"url\":\"https://hooks.example.com/h\",\"secret\":\"" + SECRET + "\"}}").getBytes(StandardCharsets.UTF_8));
        assertTrue((int) r.get("statusCode") < 300, r.toString());
        assertFalse(r.toString().contains(SECRET), "never answered back");
    }

    @Test
    void noItemHoldsAMarkerKeyOrAWebhookSecretInPlainText() {
        List<String> keys = servedKeys("t1");
        assertEquals(1, keys.size());
        assertEquals(keys, repositories.ensureMarkerKeys("t1"));
        subscribe("t1");

        String stored = everyItem();
        assertFalse(stored.contains(keys.get(0)), "a marker key in plain text: " + stored);
        assertFalse(stored.contains(SECRET), "the webhook secret in plain text: " + stored);
        JsonNode config = Json.read(repositories.latestRegistryDocs("t1", TeamNotifier.CONFIG_KEY, 1).get(0), JsonNode.class);
        assertFalse(config.path("webhook").has("secret"));
        assertEquals(SECRET, api.secrets().open("t1", SecretSealer.WEBHOOK_SECRET,
                config.path("webhook").path("secretSealed").asText()));
        JsonNode got = RegistryApiHarness.body(api.call("GET /notifications", "t1", Map.of(), Map.of(), null));
        assertEquals("{\"url\":\"https://hooks.example.com/h\",\"secretSet\":true}", got.path("webhook").toString());

        // the delivery signs with the opened secret
        List<Map<String, String>> headers = new ArrayList<>();
        List<String> bodies = new ArrayList<>();
        TeamNotifier notifier = new TeamNotifier(repositories, (url, h, body) -> {
            headers.add(h);
            bodies.add(body);
            return 200;
        }, (topic, subject, message) -> { }, "", () -> 1_000_000L, ms -> { }, PUBLIC);
        notifier.deliver(event("t1"));
        assertEquals("t=1000,v1=" + TeamNotifier.sign(SECRET, "1000." + bodies.get(0)), headers.get(0).get("Richter-Signature"));
    }

    @Test
    void itemsWrittenBeforeSealingAreStillReadAndTheMarkerKeysAreSealedOnTheirNextServe() {
        put("t2", Repositories.MARKER_KEYS_KEY, "{\"keys\":[\"bGVnYWN5LW1hcmtlci1rZXk\"]}");
        put("t2", TeamNotifier.CONFIG_KEY, "{\"webhook\":{\"url\":\"https://hooks.example.com/h\",\"secret\":\"" + SECRET + "\"}}");

        assertEquals(List.of("bGVnYWN5LW1hcmtlci1rZXk"), servedKeys("t2"));
        assertFalse(everyItem().contains("bGVnYWN5LW1hcmtlci1rZXk"), "sealed when served: " + everyItem());
        assertEquals(List.of("bGVnYWN5LW1hcmtlci1rZXk"), repositories.markerKeys("t2"));

        List<String> signatures = new ArrayList<>();
        List<String> bodies = new ArrayList<>();
        new TeamNotifier(repositories, (url, h, body) -> {
            signatures.add(h.get("Richter-Signature"));
            bodies.add(body);
            return 200;
        }, (topic, subject, message) -> { }, "", () -> 1_000_000L, ms -> { }, PUBLIC).deliver(event("t2"));
        assertEquals("t=1000,v1=" + TeamNotifier.sign(SECRET, "1000." + bodies.get(0)), signatures.get(0));
    }

    private void put(String team, String itemKey, String doc) {
        api.dynamoDb().putItem(software.amazon.awssdk.services.dynamodb.model.PutItemRequest.builder().tableName("registry")
                .item(Map.of("teamId", AttributeValue.fromS(team), "itemKey", AttributeValue.fromS(itemKey),
                        "doc", AttributeValue.fromS(doc))).build());
    }

    private static final dev.richter.common.net.AllowedNetworks PUBLIC = new dev.richter.common.net.AllowedNetworks("",
            false, host -> new java.net.InetAddress[] {java.net.InetAddress.getByName("203.0.113.5")});

    private static JsonNode event(String team) {
        return Json.read("{\"id\":\"e-" + team + "\",\"detail-type\":\"Run Started\",\"source\":\"richter\",\"time\":\"t\","
                + "\"detail\":{\"runId\":\"run-1\",\"planId\":\"p\",\"teamId\":\"" + team + "\"}}", JsonNode.class);
    }
}
