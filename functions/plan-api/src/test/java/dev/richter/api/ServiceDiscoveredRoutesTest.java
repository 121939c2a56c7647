package dev.richter.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.links.datastore.DatastoreDiscovery;
import dev.richter.links.datastore.ShadowSpans;
import dev.richter.links.store.LinkRepository;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /services/{name}} answers the datastores the link builder discovered in the team's traces (here: what
 * it stores for the agent's real spans, {@link ShadowSpans#SHOP}) next to the declared ones, conforming to openapi.json.
 */
class ServiceDiscoveredRoutesTest {
    private final RegistryApiHarness api = new RegistryApiHarness();

    @Test
    void aServiceAnswersItsDiscoveredDatastoresNextToItsDeclaredOnes() {
        assertEquals(201, api.call("POST /services", "t1", Map.of(), Map.of(), """
                {"name": "shop", "baseUrl": "http://127.0.0.1:18081",
                 "datastores": [{"kind": "table", "production": "visits", "shadow": "visits_shadow"}]}"""
                .getBytes(StandardCharsets.UTF_8)).get("statusCode"));
        new LinkRepository(api.dynamoDb(), "links").writeDatastores("t1",
                DatastoreDiscovery.discover(ShadowSpans.parse(ShadowSpans.SHOP).spans()));

        var r = api.call("GET /services/{name}", "t1", Map.of("name", "shop"), Map.of(), null);
        assertEquals(200, r.get("statusCode"), String.valueOf(r.get("body")));
        JsonNode doc = RegistryApiHarness.body(r);
        api.assertConforms("Service", doc);
        assertEquals("visits_shadow", doc.path("datastores").get(0).path("shadow").asText());
        List<String> discovered = new ArrayList<>();
        doc.path("discovered").forEach(d -> discovered.add(d.path("kind").asText() + " " + d.path("namespace").asText("-")
                + " " + d.path("name").asText() + " " + d.path("system").asText() + " " + d.path("writes").asBoolean()));
        assertEquals(List.of("cache - config: redis false", "cache - session: redis true", "cache - stock: redis true",
                "table mem:ledger entries h2 true", "table mem:shop audit h2 true", "table mem:shop customers h2 false",
                "table mem:shop visits h2 true", "topic - orders kafka true", "topic - payments kafka true"), discovered);
        assertTrue(doc.path("discovered").get(0).path("lastSeenMs").asLong() > 1_700_000_000_000L);

        var other = api.call("GET /services/{name}", "t2", Map.of("name", "shop"), Map.of(), null);
        assertEquals(404, other.get("statusCode"), "another team's service is not found");
    }
}
