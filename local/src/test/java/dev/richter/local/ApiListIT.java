package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.richter.api.ApiRequest;
import dev.richter.common.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The API as a team operates it: lists paginated with opaque cursors, plans versioned and deletable, a plan read back
 * sent again, and one error shape for unknown routes, methods, malformed JSON and bodies over the limit.
 */
class ApiListIT extends LocalAwsStackTestSupport {

    /** Every item of a list, page by page ({@code limit} per page); also asserts it took more than one page. */
    static List<JsonNode> all(ApiClient api, String path, int limit) throws Exception {
        List<JsonNode> items = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            var r = api.get(path + (path.contains("?") ? "&" : "?") + "limit=" + limit + (cursor == null ? "" : "&cursor=" + cursor));
            assertEquals(200, r.status(), r.body());
            assertTrue(r.json().path("items").size() <= limit);
            r.json().path("items").forEach(items::add);
            cursor = r.json().path("nextCursor").asText(null);
            pages++;
        } while (cursor != null && pages < 100);
        assertTrue(pages > 1, path + ": more than one page");
        return items;
    }

    @Test
    void servicesPlansAndAuditArePagedWithCursorsBoundToTheirList() throws Exception {
        ApiClient api = api("team-lists");
        for (int i = 0; i < 7; i++) {
            register(api, "svc-" + i, "http://127.0.0.1:9");
        }
        List<String> names = all(api, "/services", 3).stream().map(s -> s.path("name").asText()).toList();
        assertEquals(List.of("svc-0", "svc-1", "svc-2", "svc-3", "svc-4", "svc-5", "svc-6"), names, "each once, by name");

        List<String> created = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            var p = api.post("/plans", plan("svc-" + i, 1, 1, List.<double[]>of(new double[] {1, 1})));
            assertEquals(201, p.status(), p.body());
            created.add(0, p.json().path("planId").asText());
            Thread.sleep(5); // distinct creation times: the list is newest first
        }
        assertEquals(created, all(api, "/plans", 2).stream().map(p -> p.path("planId").asText()).toList());
        List<JsonNode> audit = all(api, "/audit", 4);
        assertEquals(12, audit.size(), "7 registrations + 5 plans");
        assertEquals("CreatePlan", audit.get(0).path("action").asText(), "newest first");
        assertEquals("it@team-lists", audit.get(0).path("caller").asText());

        String cursor = api.get("/services?limit=1").json().path("nextCursor").asText();
        var misused = api.get("/plans?cursor=" + cursor);
        assertEquals(400, misused.status(), "a services cursor is no plans cursor");
        assertEquals("query.cursor", misused.json().path("errors").get(0).path("path").asText());
        assertEquals(400, api("team-other").get("/services?cursor=" + cursor).status(), "nor another team's");
        assertEquals(400, api.get("/services?cursor=bm90LWEtY3Vyc29y").status());
        assertEquals(400, api.get("/services?limit=0").status());
        assertEquals(400, api.get("/services?limit=101").status());
    }

    @Test
    void aPlanIsVersionedItsReadBackIsValidInputAndItCanBeDeleted() throws Exception {
        ApiClient api = api("team-versions");
        register(api, "svc", "http://127.0.0.2:9");
        var created = api.post("/plans", plan("svc", 1, 1, List.<double[]>of(new double[] {1, 1})));
        assertEquals(201, created.status());
        assertEquals("\"1\"", created.header("etag"));
        String planId = created.json().path("planId").asText();

        JsonNode readBack = api.get("/plans/" + planId).json();
        var same = api.put("/plans/" + planId, Json.write(readBack));
        assertEquals(200, same.status(), "the plan read back is valid input: " + same.body());
        assertEquals(2, same.json().path("version").asInt());
        assertEquals(readBack.path("createdAtMs"), same.json().path("createdAtMs"), "server fields are kept, not taken from input");
        ObjectNode changed = (ObjectNode) same.json().deepCopy();
        ((ObjectNode) changed.path("preTest")).put("qps", 2);
        changed.put("planId", "plan-spoofed").put("teamId", "team-other").put("version", 99);
        var v3 = api.send("PUT", "/plans/" + planId, Json.write(changed), Map.of("If-Match", "\"2\""));
        assertEquals(200, v3.status(), v3.body());
        assertEquals(3, v3.json().path("version").asInt());
        assertEquals(planId, v3.json().path("planId").asText());
        assertEquals("team-versions", v3.json().path("teamId").asText());
        assertEquals(2.0, v3.json().path("preTest").path("qps").asDouble());
        var stale = api.send("PUT", "/plans/" + planId, Json.write(changed), Map.of("If-Match", "\"2\""));
        assertEquals(412, stale.status(), stale.body());
        assertEquals("PreconditionFailed", stale.json().path("error").asText());

        var del = api.delete("/plans/" + planId);
        assertEquals(204, del.status(), del.body());
        assertEquals(404, api.get("/plans/" + planId).status());
        assertEquals(404, api.delete("/plans/" + planId).status());
        var unusedService = api.delete("/services/svc");
        assertEquals(204, unusedService.status(), "no plan names it any more: " + unusedService.body());
        assertEquals(404, api.get("/services/svc").status());
    }

    @Test
    void everyErrorHasTheOneShapeWithoutParserInternals() throws Exception {
        ApiClient api = api("team-errors");
        var unknown = api.get("/nothing/here");
        assertEquals(404, unknown.status());
        assertEquals("NoSuchRoute", unknown.json().path("error").asText());
        var method = api.send("PATCH", "/plans", "{}", Map.of());
        assertEquals(405, method.status());
        assertEquals("MethodNotAllowed", method.json().path("error").asText());
        assertEquals("GET, POST", method.header("allow"));
        var malformed = api.post("/plans", "{\"name\": \"x\",, }");
        assertEquals(400, malformed.status());
        assertEquals("InvalidJson", malformed.json().path("error").asText());
        assertEquals("body: not valid JSON at line 1, column 14 (unexpected character ',')", malformed.json().path("message").asText());
        var big = api.post("/traces?file=big.json", "[" + "0,".repeat(ApiRequest.MAX_BODY_BYTES / 2) + "0]");
        assertEquals(413, big.status(), big.body());
        assertEquals("PayloadTooLarge", big.json().path("error").asText());
        var noRun = api.get("/runs/run-nope");
        for (ApiClient.Response r : List.of(unknown, method, malformed, big, noRun)) {
            List<String> fields = new ArrayList<>();
            r.json().fieldNames().forEachRemaining(fields::add);
            assertTrue(fields.equals(List.of("error", "message")) || fields.equals(List.of("error", "message", "errors")), r.body());
        }
    }
}
