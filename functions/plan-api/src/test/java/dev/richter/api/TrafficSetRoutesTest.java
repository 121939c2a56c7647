package dev.richter.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /traffic-sets}, {@code GET /traffic-sets}, {@code GET /traffic-sets/{setId}} through the Lambda handler
 * (payload 2.0 events in, {@code {statusCode, body}} out) against an in-memory registry and audit table; every 2xx body
 * is checked against its component schema in {@code openapi.json}.
 */
class TrafficSetRoutesTest {
    private static final Path CORPUS = Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"));
    private final RegistryApiHarness api = new RegistryApiHarness();

    private static byte[] corpus(String relative) throws Exception {
        return Files.readAllBytes(CORPUS.resolve(relative));
    }

    private long trafficItems() {
        return api.items.keySet().stream().filter(k -> k.contains("\u0000traffic")).count();
    }

    @Test
    void importListAndReadAHar() throws Exception {
        var created = api.call("POST /traffic-sets", "t1", Map.of(), Map.of("format", "har", "file", "31.har"),
                corpus("bugs/31-har-postdata-params-only.har"));
        assertEquals(201, created.get("statusCode"), String.valueOf(created.get("body")));
        JsonNode summary = RegistryApiHarness.body(created);
        api.assertConforms("TrafficSet", summary);
        String setId = summary.path("setId").asText();
        assertTrue(setId.startsWith("ts-"));
        assertEquals("/traffic-sets/" + setId, ((Map<?, ?>) created.get("headers")).get("Location"));
        assertEquals("t1", summary.path("teamId").asText());
        assertEquals("31.har", summary.path("name").asText());
        assertEquals(1, summary.path("counts").path("imported").asInt());
        assertEquals(0, summary.path("endpoints").get(0).path("samples").size(), "the answer carries no samples");

        var read = api.call("GET /traffic-sets/{setId}", "t1", Map.of("setId", setId), Map.of(), null);
        assertEquals(200, read.get("statusCode"));
        JsonNode set = RegistryApiHarness.body(read);
        api.assertConforms("TrafficSet", set);
        JsonNode sample = set.path("endpoints").get(0).path("samples").get(0);
        assertEquals("POST", sample.path("method").asText());
        assertEquals("/login", sample.path("target").asText());
        assertEquals("user=alice&next=%2Fcart%3Fid%3D7", sample.path("body").asText());
        assertEquals("application/x-www-form-urlencoded", sample.path("contentType").asText());

        var list = api.call("GET /traffic-sets", "t1", Map.of(), Map.of(), null);
        assertEquals(200, list.get("statusCode"));
        api.assertConforms("TrafficSetPage", RegistryApiHarness.body(list));
        assertEquals(List.of(setId), ids(RegistryApiHarness.body(list)));

        // another team sees nothing of it
        assertEquals(404, api.call("GET /traffic-sets/{setId}", "t2", Map.of("setId", setId), Map.of(), null).get("statusCode"));
        assertEquals(List.of(), ids(RegistryApiHarness.body(api.call("GET /traffic-sets", "t2", Map.of(), Map.of(), null))));
        assertTrue(api.items.keySet().stream().anyMatch(k -> k.startsWith("audit\u0000t1\u0000")), "the import is audited");
    }

    @Test
    void listsPageWithACursor() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertEquals(201, api.call("POST /traffic-sets", "t1", Map.of(), Map.of("format", "nginx"), corpus("accesslog/nginx-test.log"))
                    .get("statusCode"));
        }
        JsonNode first = RegistryApiHarness.body(api.call("GET /traffic-sets", "t1", Map.of(), Map.of("limit", "2"), null));
        assertEquals(2, first.path("items").size());
        JsonNode second = RegistryApiHarness.body(api.call("GET /traffic-sets", "t1", Map.of(), Map.of("limit", "2", "cursor", first.path("nextCursor").asText()), null));
        assertEquals(1, second.path("items").size());
        assertFalse(second.has("nextCursor"));
        assertEquals(6, second.path("items").get(0).path("counts").path("imported").asInt());
    }

    @Test
    void aCustomNginxFormatAndAnAlbLogImport() throws Exception {
        String directive = "log_format edge '$remote_addr [$time_local] \"$request\" $status \"$http_user_agent\"';";
        byte[] log = ("10.0.0.1 [30/Nov/2026:10:00:00 +0000] \"GET /items/12 HTTP/1.1\" 200 \"curl/8\"\n"
                + "bad line\n"
                + "10.0.0.2 [30/Nov/2026:10:00:01 +0000] \"GET /items/13?token=s3cr3t HTTP/1.1\" 200 \"-\"\n").getBytes(StandardCharsets.UTF_8);
        var r = api.call("POST /traffic-sets", "t1", Map.of(), Map.of("format", "nginx", "logFormat", directive, "file", "edge.log"), log);
        assertEquals(201, r.get("statusCode"), String.valueOf(r.get("body")));
        JsonNode set = RegistryApiHarness.body(r);
        assertEquals("/items/{id}", set.path("endpoints").get(0).path("pathTemplate").asText());
        assertEquals(2, set.path("endpoints").get(0).path("count").asInt());
        assertEquals("edge.log:2", set.path("problems").get(0).path("position").asText());
        assertEquals("does not match the edge format", set.path("problems").get(0).path("reason").asText());
        JsonNode full = RegistryApiHarness.body(api.call("GET /traffic-sets/{setId}", "t1", Map.of("setId", set.path("setId").asText()), Map.of(), null));
        assertEquals("/items/13?token={{slot:query.token}}", full.path("endpoints").get(0).path("samples").get(1).path("target").asText());
        assertFalse(api.items.values().stream().flatMap(i -> i.values().stream()).anyMatch(v -> v.s() != null && v.s().contains("s3cr3t")),
                "the token never reaches storage");
    }

    @Test
    void badInputIs400WithThePositionAndNothingIsStored() throws Exception {
        var noFormat = api.call("POST /traffic-sets", "t1", Map.of(), Map.of(), corpus("har/charles.har"));
        assertEquals(400, noFormat.get("statusCode"));
        assertEquals("query.format", RegistryApiHarness.body(noFormat).path("errors").get(0).path("path").asText());

        var unknown = api.call("POST /traffic-sets", "t1", Map.of(), Map.of("format", "pcap"), corpus("har/charles.har"));
        assertEquals(400, unknown.get("statusCode"));
        assertEquals("query.format: 'pcap' is not one of har, nginx, apache, alb", RegistryApiHarness.body(unknown).path("message").asText());

        var formatForHar = api.call("POST /traffic-sets", "t1", Map.of(), Map.of("format", "har", "logFormat", "$request"), corpus("har/charles.har"));
        assertEquals("query.logFormat", RegistryApiHarness.body(formatForHar).path("errors").get(0).path("path").asText());

        var badDirective = api.call("POST /traffic-sets", "t1", Map.of(), Map.of("format", "nginx", "logFormat", "log_format x '$status';"),
                corpus("accesslog/nginx-test.log"));
        assertEquals(400, badDirective.get("statusCode"));
        assertEquals("InvalidTrafficFile", RegistryApiHarness.body(badDirective).path("error").asText());
        assertEquals("query.logFormat", RegistryApiHarness.body(badDirective).path("errors").get(0).path("path").asText());

        var notJson = api.call("POST /traffic-sets", "t1", Map.of(), Map.of("format", "har", "file", "cut.har"),
                "{\"log\": {\"entries\": [\n{]}}".getBytes(StandardCharsets.UTF_8));
        assertEquals(400, notJson.get("statusCode"));
        JsonNode error = RegistryApiHarness.body(notJson);
        assertEquals("InvalidTrafficFile", error.path("error").asText());
        assertEquals("cut.har:line 2, column 2", error.path("errors").get(0).path("path").asText());
        api.assertConforms("Error", error);

        var noLine = api.call("POST /traffic-sets", "t1", Map.of(), Map.of("format", "apache", "file", "x.log"),
                "GET / HTTP/1.1\nnot a log line\n".getBytes(StandardCharsets.UTF_8));
        assertEquals(400, noLine.get("statusCode"));
        assertEquals(List.of("x.log:1", "x.log:2"), RegistryApiHarness.body(noLine).path("errors").findValuesAsText("path"));
        assertEquals("x.log:1: does not match the combined or common format (and 1 more)", RegistryApiHarness.body(noLine).path("message").asText());

        var empty = api.call("POST /traffic-sets", "t1", Map.of(), Map.of("format", "har"), new byte[0]);
        assertEquals(400, empty.get("statusCode"));
        assertEquals(0, trafficItems(), "nothing stored");
    }

    /**
     * A HAR that is not JSON: the problem names the position and says what is wrong in plain words, never the parser's
     * own text ({@code Unexpected end-of-input: expected close marker for Array (start marker at [Source: REDACTED ...}).
     */
    @Test
    void aHarThatIsNotJsonGetsItsPositionAndAPlainReason() {
        Map<String, String> cases = new java.util.LinkedHashMap<>();
        cases.put("{\"log\": {\"entries\": [\n  {\"request\": {}}", "cut.har:line 2, column 18: not valid JSON "
                + "(the file ends before the JSON value does: the array opened at line 1, column 21 is not closed)");
        cases.put("{\"log\": {\"entries\": [],}}", "cut.har:line 1, column 24: not valid JSON (unexpected character '}')");
        cases.put("{\"log\": {\"entries\": [}}", "cut.har:line 1, column 22: not valid JSON "
                + "(unexpected '}': the array opened at line 1, column 21 is still open)");
        cases.put("{\"log\": {\"entries\": [{\"time\": 01}]}}", "cut.har:line 1, column 32: not valid JSON "
                + "(a number with a leading zero)");
        cases.put("{\"log\": {\"comment\": \"C:\\Users\"}}", "cut.har:line 1, column 25: not valid JSON "
                + "(unknown escape '\\U' in a string)");
        cases.put("{\"log\": {\"comment\": \"cut", "cut.har:line 1, column 25: not valid JSON (the file ends inside a string)");
        List<String> answers = new ArrayList<>();
        for (String har : cases.keySet()) {
            var r = api.call("POST /traffic-sets", "t1", Map.of(), Map.of("format", "har", "file", "cut.har"),
                    har.getBytes(StandardCharsets.UTF_8));
            assertEquals(400, r.get("statusCode"));
            JsonNode error = RegistryApiHarness.body(r);
            assertEquals("InvalidTrafficFile", error.path("error").asText());
            assertEquals(error.path("message").asText(), error.path("errors").get(0).path("path").asText() + ": "
                    + error.path("errors").get(0).path("reason").asText());
            answers.add(error.path("message").asText());
        }
        assertEquals(List.copyOf(cases.values()), answers);
        assertEquals(0, trafficItems(), "nothing stored");
    }

    @Test
    void aStoreFailureLeavesNoSet() throws Exception {
        api.failPutsWithPrefix = 1; // the manifest, written after the chunks
        byte[] big = corpus("har/firefox.har");
        var r = api.call("POST /traffic-sets", "t1", Map.of(), Map.of("format", "har"), big);
        assertEquals(500, r.get("statusCode"));
        assertEquals("InternalError", RegistryApiHarness.body(r).path("error").asText());
        assertEquals(List.of(), ids(RegistryApiHarness.body(api.call("GET /traffic-sets", "t1", Map.of(), Map.of(), null))));
        assertEquals(0, trafficItems(), "the chunk written was removed");
    }

    private static List<String> ids(JsonNode page) {
        List<String> out = new ArrayList<>();
        page.path("items").forEach(i -> out.add(i.path("setId").asText()));
        return out;
    }
}
