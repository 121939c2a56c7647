package dev.richter.links.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.richter.links.graph.EdgeExtractor;
import dev.richter.links.graph.ExtractedLinks;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Issue 42: behind a Spring Cloud Gateway, {@code /api/customer/owners/1} … {@code /4} were four entries where real
 * traffic would give one per owner. The spans are as the OpenTelemetry Java agent exports them: the gateway's SERVER
 * span named by its route id ({@code GET customers-service}, {@code http.route} the id, {@code url.path} the raw path),
 * its CLIENT span, and the customers service's SERVER span with {@code http.route} {@code /owners/{ownerId}}.
 */
class GatewayRoutesTest {
    private static String span(String trace, String id, String parent, String name, int kind, String... attributes) {
        StringBuilder a = new StringBuilder();
        for (int i = 0; i < attributes.length; i += 2) {
            a.append(a.length() == 0 ? "" : ",").append("{\"key\":\"").append(attributes[i])
                    .append("\",\"value\":{\"stringValue\":\"").append(attributes[i + 1]).append("\"}}");
        }
        return "{\"traceId\":\"" + trace + "\",\"spanId\":\"" + id + "\"" + (parent.isEmpty() ? "" : ",\"parentSpanId\":\""
                + parent + "\"") + ",\"name\":\"" + name + "\",\"kind\":" + kind
                + ",\"startTimeUnixNano\":\"1700000000000000000\",\"endTimeUnixNano\":\"1700000000010000000\",\"attributes\":["
                + a + "]}";
    }

    private static String resource(String service, List<String> spans) {
        return "{\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":{\"stringValue\":\"" + service
                + "\"}}]},\"scopeSpans\":[{\"spans\":[" + String.join(",", spans) + "]}]}";
    }

    /** Owners 1..4 through the gateway, each its own trace. */
    private static ParsedTraces owners(String downstreamRoute) {
        List<String> gateway = new ArrayList<>();
        List<String> customers = new ArrayList<>();
        for (int owner = 1; owner <= 4; owner++) {
            String trace = "0000000000000000000000000000000" + owner;
            gateway.add(span(trace, "a00000000000000" + owner, "", "GET customers-service", 2, "http.route",
                    "customers-service", "url.path", "/api/customer/owners/" + owner, "http.request.method", "GET"));
            gateway.add(span(trace, "b00000000000000" + owner, "a00000000000000" + owner, "GET", 3, "url.full",
                    "http://customers:8081/owners/" + owner, "http.request.method", "GET"));
            customers.add(span(trace, "c00000000000000" + owner, "b00000000000000" + owner, "GET " + downstreamRoute, 2,
                    "http.route", downstreamRoute, "url.path", "/owners/" + owner, "http.request.method", "GET"));
        }
        String doc = "{\"resourceSpans\":[" + resource("api-gateway", gateway) + "," + resource("customers-service", customers)
                + "]}";
        return TraceDocuments.parse("gateway.otlp.json", doc.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aGatewaysEntriesGroupByTheRouteOfTheServiceBelowWithTheirOwnPrefix() {
        ParsedTraces traces = owners("/owners/{ownerId}");
        ExtractedLinks links = EdgeExtractor.extract(traces.spans(), List.of());
        assertEquals(Set.of("api-gateway GET /api/customer/owners/{ownerId}"), links.interfaceEntries());
        Span gateway = GatewayRoutes.templated(traces.spans()).stream().filter(s -> s.service().equals("api-gateway")
                && s.kind() == SpanKind.SERVER).findFirst().orElseThrow();
        assertEquals("/api/customer/owners/1", gateway.attributes().get("url.path"), "the raw path kept as the sample");
        assertEquals(Map.of("api-gateway GET /api/customer/owners/{ownerId}", List.of("/api/customer/owners/1",
                "/api/customer/owners/2", "/api/customer/owners/3", "/api/customer/owners/4")), links.entrySamples());
    }

    @Test
    void withoutAMatchingRouteBelowTheRawPathsStay() {
        ExtractedLinks links = EdgeExtractor.extract(owners("/visits/{visitId}").spans(), List.of());
        assertEquals(4, links.interfaceEntries().size(), links.interfaceEntries().toString());
    }

    @Test
    void aRouteMatchesTheEndOfThePathSegmentBySegment() {
        assertEquals("/api/customer/owners/{ownerId}", GatewayRoutes.withSuffix("/api/customer/owners/7", "/owners/{ownerId}"));
        assertEquals("/owners/:id/pets", GatewayRoutes.withSuffix("/owners/7/pets", "/owners/:id/pets"));
        assertNull(GatewayRoutes.withSuffix("/api/customer/owners/7", "/pets/{petId}"));
        assertNull(GatewayRoutes.withSuffix("/owners", "/api/owners/{id}"));
    }
}
