package dev.richter.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code PUT/GET /evidence-sources}: validated against openapi.json, team-scoped, replaced whole, audited. */
class EvidenceSourceRoutesTest {
    private final RegistryApiHarness api = new RegistryApiHarness();

    static final String SOURCES = """
            {"prometheus": [{"name": "shop-prometheus", "url": "http://127.0.0.1:9090",
                             "queries": [{"name": "orders-per-second", "module": "order",
                                          "promql": "sum(rate(orders_placed_total[15s]))",
                                          "expect": {"baselineMinRatio": 0.5, "loadProportional": true}}]}],
             "alertmanager": [{"name": "oncall", "url": "http://127.0.0.1:9093", "matchers": {"team": "shop"}}],
             "cloudwatch": {"alarmNamePrefix": "shop-", "metrics": [{"name": "orders", "module": "order",
                            "namespace": "Shop", "metricName": "OrdersCreated", "dimensions": {"Service": "order"},
                            "stat": "Sum", "periodS": 60, "expect": {"min": 1}}]}}""";

    private Map<String, Object> put(String team, String body) {
        return api.call("PUT /evidence-sources", team, Map.of(), Map.of(), body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void sourcesAreStoredPerTeamAndReplacedWhole() throws Exception {
        var created = put("t1", SOURCES);
        assertEquals(201, created.get("statusCode"), String.valueOf(created.get("body")));
        JsonNode doc = RegistryApiHarness.body(created);
        api.assertConforms("EvidenceSources", doc);
        assertEquals(Json.MAPPER.readTree(SOURCES).path("prometheus"), doc.path("prometheus"));
        assertEquals("service", doc.path("alertmanager").get(0).path("moduleLabel").asText(), "the default module label");

        var got = api.call("GET /evidence-sources", "t1", Map.of(), Map.of(), null);
        assertEquals(200, got.get("statusCode"));
        assertEquals(doc, RegistryApiHarness.body(got));
        assertEquals(404, api.call("GET /evidence-sources", "t2", Map.of(), Map.of(), null).get("statusCode"),
                "another team's sources are not seen");

        var replaced = put("t1", """
                {"alertmanager": [{"name": "oncall", "url": "http://127.0.0.1:9093"}]}""");
        assertEquals(200, replaced.get("statusCode"));
        JsonNode now = RegistryApiHarness.body(api.call("GET /evidence-sources", "t1", Map.of(), Map.of(), null));
        assertEquals(0, now.path("prometheus").size(), "a PUT replaces the whole set");
        assertTrue(now.path("cloudwatch").isMissingNode());
    }

    @Test
    void badSourcesAreRefusedWithEveryFieldPathAndReason() {
        var r = put("t1", """
                {"prometheus": [{"name": "p", "url": "ftp://x", "queries": [
                                   {"name": "a", "module": "order", "promql": "up", "expect": {}},
                                   {"name": "a", "module": "order", "promql": "up", "expect": {"min": 1}}]}],
                 "alertmanager": [{"name": "p", "url": "http://127.0.0.1:0"}],
                 "cloudwatch": {"metrics": [{"name": "m", "module": "order", "namespace": "Shop", "metricName": "X",
                                             "stat": "Sum", "periodS": 7, "expect": {"min": 1}}]},
                 "datadog": {}}""");
        assertEquals(400, r.get("statusCode"));
        JsonNode body = RegistryApiHarness.body(r);
        assertEquals("ValidationFailed", body.path("error").asText());
        List<String> paths = new ArrayList<>();
        body.path("errors").forEach(e -> paths.add(e.path("path").asText()));
        for (String p : List.of("$.prometheus[0].url", "$.prometheus[0].queries[0].expect", "$.prometheus[0].queries[1].name",
                "$.alertmanager[0].name", "$.alertmanager[0].url", "$.cloudwatch.metrics[0].periodS", "$.datadog")) {
            assertTrue(paths.stream().anyMatch(x -> x.equals(p)), p + " in " + body.path("errors"));
        }
    }
}
