package dev.richter.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.links.datastore.DatastoreDiscovery;
import dev.richter.links.datastore.ShadowSpans;
import dev.richter.common.model.Marker;
import dev.richter.links.middleware.MiddlewareInventory;
import dev.richter.links.store.LinkRepository;
import dev.richter.links.trace.TraceDocuments;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /services/{name}} answers the datastores the link builder discovered in the team's traces (here: what
 * it stores for the agent's real spans, {@link ShadowSpans#SHOP}) next to the declared ones, and the middleware its traces
 * show, conforming to openapi.json.
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

    /**
     * {@code middleware}: what the gateway of the demo shop's marked order ({@code trace/shop-spring-one-order.otlp.json}
     * of the links test-jar: 1 netty-4.1 SERVER span, 1 reactor-netty-1.0 CLIENT span, both marked) uses, as an ingest
     * records it.
     */
    @Test
    void aServiceAnswersTheMiddlewareItsTracesShowWithGuardedAndMarked() throws Exception {
        assertEquals(201, api.call("POST /services", "t1", Map.of(), Map.of(), """
                {"name": "gateway", "baseUrl": "http://127.0.0.1:18080", "datastores": []}"""
                .getBytes(StandardCharsets.UTF_8)).get("statusCode"));
        byte[] order;
        try (var in = getClass().getResourceAsStream("/trace/shop-spring-one-order.otlp.json")) {
            order = in.readAllBytes();
        }
        new LinkRepository(api.dynamoDb(), "links").writeMiddleware("t1", MiddlewareInventory.of(
                TraceDocuments.parse("order", order).spans(), Marker.DEFAULT, s -> true));

        var r = api.call("GET /services/{name}", "t1", Map.of("name", "gateway"), Map.of(), null);
        assertEquals(200, r.get("statusCode"), String.valueOf(r.get("body")));
        JsonNode doc = RegistryApiHarness.body(r);
        api.assertConforms("Service", doc);
        List<String> middleware = new ArrayList<>();
        doc.path("middleware").forEach(m -> middleware.add(m.path("library").asText() + " | " + m.path("versions").asText()
                + " | " + m.path("role").asText() + " | " + m.path("scopeName").asText() + " "
                + m.path("scopeVersion").asText() + " | guarded " + m.path("guarded").asBoolean() + " | marked "
                + m.path("seenOnMarkedTraffic").asBoolean() + " " + m.path("markedCalls").asLong() + "/"
                + m.path("calls").asLong()));
        assertEquals(List.of(
                "reactor-netty / Netty 4.1 server | 4.1.x | server | io.opentelemetry.netty-4.1 2.22.0-alpha | guarded true"
                        + " | marked true 1/1",
                "reactor-netty HttpClient | 1.0+ (guarded: 1.x) | http-client | io.opentelemetry.reactor-netty-1.0"
                        + " 2.22.0-alpha | guarded true | marked true 1/1"), middleware);
    }
}
