package dev.richter.data.traffic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.richter.common.Json;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * HAR 1.2 import over every corpus HAR and the bug cases. Expected counts were taken by reading each file's
 * {@code log.entries}: one request per entry in all of them but the entries without a response and the hop of corpus
 * bug 11's redirect chain (websockets and data: URLs are in this module's {@code shop-session.har} fixture only).
 */
class HarImportTest {

    /** file, entries, imported, skipped, endpoints, decode errors. */
    @ParameterizedTest
    @CsvSource({
            "har/charles.har, 1, 1, 0, 1, 0",
            // mitmproxy.org/ (304) and the logo; www.google.com/ has no response (status 0, net::ERR_INTERNET_DISCONNECTED)
            "har/chrome.har, 3, 2, 1, 2, 0",
            // 14 GETs to mitmproxy.org and S3; github-btn.html twice with different queries is one endpoint
            "har/firefox.har, 14, 14, 0, 13, 0",
            "har/head-content-length.har, 1, 1, 0, 1, 0",
            "har/insomnia.har, 1, 1, 0, 1, 0",
            "har/mitmproxy-export-corrupted_gzip_body.har, 1, 1, 0, 1, 1",
            // http://163.com/ has no response (status 0: the connect failed); httpbin's 405 is a response
            "har/mitmproxy-export-error_log.har, 2, 1, 1, 1, 0",
            // two event-stream GETs whose last path segment is the same base64url token: one endpoint /meval/{token}
            "har/mitmproxy-export-event_stream.har, 2, 2, 0, 1, 0",
            "har/postdata.har, 1, 1, 0, 1, 0",
            "har/with-bom.har, 1, 1, 0, 1, 0",
            "bugs/09-har-corrupted-gzip-body.har, 2, 2, 0, 2, 1",
            // GET / answered 301 to /de-de/ (the hop, skipped), then the CSS
            "bugs/11-har-redirect-chain.har, 3, 2, 1, 2, 0",
            "bugs/31-har-postdata-params-only.har, 1, 1, 0, 1, 0",
            "bugs/34-har-blocked-status0.har, 3, 1, 2, 1, 0",
            // app.js from the memory cache and logo.png from the disk cache made no request
            "bugs/39-har-from-cache.har, 3, 1, 2, 1, 0"})
    void everyCorpusHarImports(String file, int entries, int imported, int skipped, int endpoints, int decodeErrors) {
        TrafficSet set = Corpus.har(file);
        assertEquals(entries, set.counts().entriesRead(), file);
        assertEquals(imported, set.counts().imported(), file);
        assertEquals(skipped, set.counts().skipped(), file);
        assertEquals(0, set.counts().problems(), file);
        assertEquals(endpoints, set.endpoints().size(), file);
        assertEquals(decodeErrors, set.counts().decodeErrors(), file);
        assertEquals(imported, set.endpoints().stream().mapToInt(TrafficSet.Endpoint::count).sum(), file);
    }

    @Test
    void chromeGroupsByHostAndScrubsTheCookie() {
        TrafficSet set = Corpus.har("har/chrome.har");
        assertEquals(List.of("mitmproxy.org GET /",
                        "www.google.com GET /images/branding/googlelogo/2x/googlelogo_light_color_272x92dp.png"),
                set.endpoints().stream().map(e -> e.host() + " " + e.method() + " " + e.pathTemplate()).sorted().toList());
        // the logo request carries a Cookie header (REDACTED in the corpus): it becomes a slot
        var logo = set.endpoints().stream().filter(e -> e.pathTemplate().endsWith(".png")).findFirst().orElseThrow().samples().get(0);
        assertEquals(List.of("header.cookie"), logo.slots());
        assertEquals("{{slot:header.cookie}}", logo.headers().stream().filter(h -> h.name().equalsIgnoreCase("cookie"))
                .findFirst().orElseThrow().value());
        assertEquals(List.of(0.5, 0.5), set.endpoints().stream().map(TrafficSet.Endpoint::weight).toList());
        assertEquals(Map.of("no-response", 1), set.skipped());
    }

    @Test
    void eventStreamTokensAreOneEndpointAndAuthorizationIsASlot() {
        TrafficSet set = Corpus.har("har/mitmproxy-export-event_stream.har");
        TrafficSet.Endpoint e = set.endpoints().get(0);
        assertEquals("clientstream.launchdarkly.com", e.host());
        assertEquals("/meval/{token}", e.pathTemplate());
        assertEquals(2, e.count());
        assertEquals(1.0, e.weight());
        assertEquals(List.of("header.authorization"), e.samples().get(0).slots());
        assertEquals(2, set.counts().scrubbedValues());
    }

    @Test
    void bug09CorruptedGzipKeepsTheRawBodyAndMarksADecodeError() {
        TrafficSet set = Corpus.har("bugs/09-har-corrupted-gzip-body.har");
        var ok = sample(set, "/ok");
        assertEquals("", ok.response().decodeError());
        assertEquals("", ok.response().rawBody());
        assertEquals(List.of(), ok.notes());
        var broken = sample(set, "/broken");
        assertEquals(200, broken.response().status());
        assertEquals("Content-Encoding gzip but not valid gzip", broken.response().decodeError());
        assertEquals("H4sIAAAAAAAAA3RoaXMtaXMtbm90LWRlZmxhdGU=", broken.response().rawBody());
        assertEquals(List.of("response body: Content-Encoding gzip but not valid gzip (raw body kept)"), broken.notes());
        assertEquals("GET", broken.method());
    }

    @Test
    void bug31FormParamsOnlyBecomeTheUrlEncodedBodyInOrder() {
        TrafficSet set = Corpus.har("bugs/31-har-postdata-params-only.har");
        assertEquals(1, set.counts().imported());
        TrafficSet.Endpoint e = set.endpoints().get(0);
        assertEquals("shop.example.com", e.host());
        assertEquals("POST", e.method());
        assertEquals("/login", e.pathTemplate());
        var s = e.samples().get(0);
        assertEquals("/login", s.target());
        assertEquals("application/x-www-form-urlencoded", s.contentType());
        assertEquals("user=alice&next=%2Fcart%3Fid%3D7", s.body());
        assertEquals(32, s.body().getBytes(StandardCharsets.UTF_8).length);
        assertEquals("text", s.bodyEncoding());
        assertEquals(List.of(), s.notes());
        // the 302 has no following entry: nothing is skipped
        assertEquals(Map.of(), set.skipped());
    }

    /**
     * Corpus bug 11 (grafana/k6#808): a redirect chain is one logical request, its first ({@code GET /}, recorded 301):
     * the hop {@code /de-de/} is skipped as {@code redirect-hop}, and the CSS whose Referer is the hop is the other half
     * of the mix, after it. The replay follows the redirect (the load driver's {@code Redirects}).
     */
    @Test
    void bug11ARedirectChainIsItsFirstRequestAndTheCssComesAfter() {
        TrafficSet set = Corpus.har("bugs/11-har-redirect-chain.har");
        assertEquals(Map.of("redirect-hop", 1), set.skipped());
        assertEquals(List.of("www.example.test GET / 1 0.5", "www.example.test GET /de-de/site.css 1 0.5"), set.endpoints().stream()
                .map(e -> e.host() + " " + e.method() + " " + e.pathTemplate() + " " + e.count() + " " + e.weight()).toList());
        var first = sample(set, "/");
        assertEquals(301, first.response().status());
        assertEquals("11-har-redirect-chain.har:$.log.entries[0]", first.source());
        assertEquals("11-har-redirect-chain.har:$.log.entries[2]", sample(set, "/de-de/site.css").source());
    }

    /**
     * A hop is the entry of the URL its redirect's {@code Location} names, however the Location writes it: a host in
     * another case, the scheme's default port, a fragment (never sent), dot segments, or a reference relative to the
     * redirect's URL resolved as RFC 3986 §5.2 says (a query-only {@code ?lang=de} keeps the path). Corpus bug 11 with
     * its Location so rewritten, and with its first URL moved to {@code /start} for the query-only reference.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "http://www.example.test/|https://WWW.Example.TEST:443/de-de/#main|https://www.example.test/de-de/",
            "http://www.example.test/|https://www.example.test/x/../de-de/./|https://www.example.test/de-de/",
            "https://www.example.test/start?from=ad|?lang=de|https://www.example.test/start?lang=de",
            "https://www.example.test/a/b|../de-de/|https://www.example.test/de-de/"})
    void aHopIsTheEntryItsLocationNames(String firstUrl, String location, String hopUrl) {
        JsonNode har = Json.read(new String(Corpus.bytes("bugs/11-har-redirect-chain.har"), StandardCharsets.UTF_8), JsonNode.class);
        JsonNode entries = har.path("log").path("entries");
        ((ObjectNode) entries.get(0).path("request")).put("url", firstUrl);
        ObjectNode redirect = (ObjectNode) entries.get(0).path("response");
        redirect.put("redirectURL", location);
        ((ObjectNode) redirect.path("headers").get(0)).put("value", location);
        ((ObjectNode) entries.get(1).path("request")).put("url", hopUrl);
        TrafficSet set = TrafficImporter.importFile(TrafficImporter.Format.HAR, "chain.har", Json.write(har).getBytes(StandardCharsets.UTF_8), null);
        assertEquals(Map.of("redirect-hop", 1), set.skipped(), location);
        assertEquals(2, set.counts().imported(), location);
    }

    /**
     * A recorder that gives the body's type only in {@code postData.mimeType} (HAR 1.2: "Mime type of posted data") and
     * records no {@code Content-Type} header, as Insomnia's export {@code har/insomnia.har} records {@code headers: []}:
     * the stored request carries {@code Content-Type} from {@code postData.mimeType}, so its replay is not a form or
     * text body without a type (issue 24, finding 13: {@code POST /login} with a form body and {@code headers={}}).
     * Corpus bug 31 (a params-only form) and {@code har/postdata.har} (a text body), each with its
     * {@code Content-Type} header taken out; as recorded, each keeps its one header.
     */
    @Test
    void aBodyTypedOnlyByPostDataMimeTypeIsSentWithThatContentType() {
        var login = sample(harWithoutContentType("bugs/31-har-postdata-params-only.har"), "/login");
        assertEquals(List.of(new Header("Content-Type", "application/x-www-form-urlencoded")), login.headers());
        assertEquals("user=alice&next=%2Fcart%3Fid%3D7", login.body());
        assertEquals("application/x-www-form-urlencoded", login.contentType());

        var text = harWithoutContentType("har/postdata.har").endpoints().get(0).samples().get(0);
        assertEquals("POST", text.method());
        assertEquals(new Header("Content-Type", "text/plain;charset=UTF-8"), text.headers().get(text.headers().size() - 1));
        assertEquals(1, contentTypes(text.headers()), text.headers().toString());

        assertEquals(List.of(new Header("Content-Type", "application/x-www-form-urlencoded")),
                sample(Corpus.har("bugs/31-har-postdata-params-only.har"), "/login").headers());
        assertEquals(1, contentTypes(Corpus.har("har/postdata.har").endpoints().get(0).samples().get(0).headers()));
        // a GET with an empty postData (no text, type "") has no body, so no Content-Type is made up
        assertEquals(0, contentTypes(Corpus.har("har/insomnia.har").endpoints().get(0).samples().get(0).headers()));
    }

    /** The corpus HAR {@code relative} with every request's {@code Content-Type} header removed, imported. */
    private static TrafficSet harWithoutContentType(String relative) {
        JsonNode har = Json.read(new String(Corpus.bytes(relative), StandardCharsets.UTF_8), JsonNode.class);
        for (JsonNode entry : har.path("log").path("entries")) {
            var headers = (ArrayNode) entry.path("request").path("headers");
            for (int i = headers.size() - 1; i >= 0; i--) {
                if (headers.get(i).path("name").asText().equalsIgnoreCase("content-type")) {
                    headers.remove(i);
                }
            }
        }
        return TrafficImporter.importFile(TrafficImporter.Format.HAR, relative, Json.write(har).getBytes(StandardCharsets.UTF_8), null);
    }

    private static long contentTypes(List<Header> headers) {
        return headers.stream().filter(h -> h.name().equalsIgnoreCase("content-type")).count();
    }

    /**
     * An entry the browser recorded without a response (status 0, with {@code _error}: blocked by the client, the
     * connection refused) never reached a server: it is skipped with its reason, not replayed (corpus bug 34).
     */
    @Test
    void bug34EntriesThatNeverReachedAServerAreSkipped() {
        TrafficSet set = Corpus.har("bugs/34-har-blocked-status0.har");
        assertEquals(1, set.counts().imported());
        assertEquals(Map.of("no-response", 2), set.skipped());
        assertEquals(List.of("GET /api/items"), set.endpoints().stream().map(e -> e.method() + " " + e.pathTemplate()).toList());
    }

    /**
     * Corpus bug 39: entries Chrome served from its memory or disk cache ({@code "_fromCache": "memory"|"disk"}) made
     * no request; replaying them would weigh static files into the mix the servers never saw.
     */
    @Test
    void bug39EntriesServedFromTheBrowserCacheAreSkipped() {
        TrafficSet set = Corpus.har("bugs/39-har-from-cache.har");
        assertEquals(Map.of("from-cache", 2), set.skipped());
        assertEquals(List.of("GET /api/items 1.0"), set.endpoints().stream().map(e -> e.method() + " " + e.pathTemplate() + " " + e.weight()).toList());
    }

    /**
     * The kind of bug 39: every marker a HAR exporter writes on an entry that made no network request. Chrome DevTools
     * ({@code HARLog}: {@code _fromCache} "memory" or "disk"), Safari's Web Inspector ({@code _fetchType} "Memory
     * Cache" or "Disk Cache"), chrome-har-capturer and older exporters
     * ({@code _fromDiskCache: true} on the entry or its response), and a response a service worker answered from Cache
     * Storage or the HTTP cache ({@code _fetchedViaServiceWorker} with {@code _serviceWorkerResponseSource}
     * {@code cache-storage} or {@code http-cache}, or a {@code _responseCacheStorageCacheName}). A service worker that
     * went to the network, a 304 revalidation and {@code "_fromCache": ""} are requests.
     */
    @ParameterizedTest
    @CsvSource(delimiterString = " | ", value = {
            "'\"_fromCache\": \"memory\"' | '' | from-cache",
            "'\"_fromCache\": \"disk\"' | '' | from-cache",
            "'\"_fromDiskCache\": true' | '' | from-cache",
            "'' | '\"_fromDiskCache\": true' | from-cache",
            "'' | '\"_fetchedViaServiceWorker\": true, \"_serviceWorkerResponseSource\": \"cache-storage\"' | from-cache",
            "'' | '\"_fetchedViaServiceWorker\": true, \"_serviceWorkerResponseSource\": \"http-cache\"' | from-cache",
            "'' | '\"_fetchedViaServiceWorker\": true, \"_responseCacheStorageCacheName\": \"v1\"' | from-cache",
            "'' | '\"_fetchedViaServiceWorker\": true, \"_serviceWorkerResponseSource\": \"network\"' | imported",
            "'\"_fetchType\": \"Memory Cache\"' | '' | from-cache",
            "'\"_fetchType\": \"Disk Cache\"' | '' | from-cache",
            "'\"_fetchType\": \"Network Load\"' | '' | imported",
            "'\"_fromCache\": \"\"' | '' | imported",
            "'\"_fromDiskCache\": false' | '' | imported",
            "'' | '' | imported"})
    void everyEntryThatMadeNoNetworkRequestIsSkipped(String entryFields, String responseFields, String expected) {
        String har = """
                {"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [{"startedDateTime": "2026-12-01T10:00:00Z",
                  "time": 1, %s "request": {"method": "GET", "url": "https://shop.test/static/app.js", "headers": []},
                  "response": {"status": 200, %s "headers": [], "content": {"size": 1, "mimeType": "text/javascript"}}}]}}"""
                .formatted(entryFields.isEmpty() ? "" : entryFields + ",", responseFields.isEmpty() ? "" : responseFields + ",");
        ReadResult read = HarReader.read("t.har", har.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertEquals(List.of(), read.problems());
        if (expected.equals("imported")) {
            assertEquals(1, read.requests().size());
            assertEquals(Map.of(), read.skipped());
        } else {
            assertEquals(0, read.requests().size());
            assertEquals(Map.of(expected, 1), read.skipped());
        }
    }

    /**
     * An HTTP/2 browser sends one {@code cookie} field per cookie; the HTTP/1.1 replay sends them as one {@code Cookie}
     * header joined with "; " (RFC 9113 §8.2.3), so they are one header and one slot (corpus bug 33).
     */
    @Test
    void bug33SplitHttp2CookiesAreOneCookieHeader() {
        ReadResult read = HarReader.read("cookie.har", Corpus.bytes("bugs/33-har-h2-split-cookie.har"));
        assertEquals(List.of(new Header("accept", "application/json"), new Header("cookie", "session=abc123; locale=en-GB; ab_bucket=7")),
                read.requests().get(0).headers());
        var sample = sample(Corpus.har("bugs/33-har-h2-split-cookie.har"), "/api/cart");
        assertEquals(List.of(new Header("accept", "application/json"), new Header("cookie", "{{slot:header.cookie}}")),
                sample.headers());
        assertEquals(List.of("header.cookie"), sample.slots());
    }

    @Test
    void withBomReadsLikeWithout() {
        assertEquals(Corpus.har("har/postdata.har").endpoints().get(0).samples().get(0).body(),
                Corpus.har("har/with-bom.har").endpoints().get(0).samples().get(0).body());
    }

    @Test
    void redirectsWebsocketsDataUrlsBadBase64AndBadEntries() {
        TrafficSet set = TrafficImporter.importFile(TrafficImporter.Format.HAR, "shop-session.har",
                Corpus.fixture("shop-session.har"), null);
        assertEquals(new TrafficSet.ImportCounts(10, 5, 4, 1, 9, 1), set.counts());
        assertEquals(Map.of("redirect-hop", 1, "websocket", 1, "data-url", 1, "non-http-scheme", 1), set.skipped());
        assertEquals(List.of(new ImportProblem("shop-session.har:$.log.entries[7].request.url", "missing")), set.problems());
        assertEquals(List.of("PUT /users/{id} 2 0.4", "GET /items/{uuid} 1 0.2", "POST /login 1 0.2", "POST /orders 1 0.2"),
                set.endpoints().stream().map(e -> e.method() + " " + e.pathTemplate() + " " + e.count() + " " + e.weight())
                        .sorted((a, b) -> a.startsWith("PUT") ? -1 : b.startsWith("PUT") ? 1 : a.compareTo(b)).toList());

        var login = sample(set, "/login");
        assertEquals("/login?next=%2Faccount", login.target());
        assertEquals("user={{slot:email}}&password={{slot:form.password}}", login.body());
        assertEquals(List.of("form.password", "email"), login.slots());
        assertEquals(List.of("Content-Type"), login.headers().stream().map(Header::name).toList());
        assertEquals("shop-session.har:$.log.entries[0]", login.source());

        var user = sample(set, "/users/123");
        assertEquals("/users/123?access_token={{slot:query.access_token}}&page=2", user.target());
        assertEquals(List.of("Authorization: {{slot:header.authorization}}", "Cookie: {{slot:header.cookie}}",
                "Content-Type: application/json"), user.headers().stream().map(h -> h.name() + ": " + h.value()).toList());
        assertEquals("{\"email\":\"{{slot:email}}\",\"backup\":\"{{slot:email_2}}\",\"phone\":\"{{slot:phone}}\","
                + "\"card\":\"{{slot:card}}\",\"order\":\"1234567890123\",\"when\":\"2026-11-30 10:00:01\"}", user.body());
        assertEquals(List.of("header.authorization", "header.cookie", "query.access_token", "card", "email", "email_2", "phone"),
                user.slots());

        var orders = sample(set, "/orders");
        assertEquals("not base64 at all!", orders.body());
        assertEquals(List.of("request body: encoding base64 but not base64 (kept as text)"), orders.notes());
    }

    @Test
    void notJsonIsRefusedWithItsLineAndColumn() {
        var e = assertThrows(TrafficFormatException.class, () -> TrafficImporter.importFile(TrafficImporter.Format.HAR,
                "cut.har", "{\"log\": {\"entries\": [\n  {\"request\": ,}]}}".getBytes(StandardCharsets.UTF_8), null));
        assertEquals("cut.har:line 2, column 15", e.problems().get(0).position());
        assertEquals("not valid JSON (unexpected character ',')", e.problems().get(0).reason(), "plain words, not the parser's");
    }

    @Test
    void aHarWithoutEntriesIsRefusedAtItsJsonPath() {
        var e = assertThrows(TrafficFormatException.class, () -> TrafficImporter.importFile(TrafficImporter.Format.HAR,
                "x.har", "{\"log\": {\"version\": \"1.2\"}}".getBytes(StandardCharsets.UTF_8), null));
        assertEquals(List.of(new ImportProblem("x.har:$.log.entries", "missing or not an array")), e.problems());
    }

    @Test
    void aHarWhoseEveryEntryIsBadIsRefusedWithEachPath() {
        var e = assertThrows(TrafficFormatException.class, () -> TrafficImporter.importFile(TrafficImporter.Format.HAR,
                "x.har", "{\"log\": {\"entries\": [{\"request\": {\"url\": \"https://a/\"}}, {}]}}".getBytes(StandardCharsets.UTF_8), null));
        assertEquals(List.of(new ImportProblem("x.har:$.log.entries[0].request.method", "missing or not an HTTP method"),
                new ImportProblem("x.har:$.log.entries[1].request", "missing or not an object")), e.problems());
    }

    static TrafficSet.Sample sample(TrafficSet set, String pathPrefix) {
        return set.endpoints().stream().flatMap(e -> e.samples().stream()).filter(s -> s.target().startsWith(pathPrefix))
                .findFirst().orElseThrow(() -> new AssertionError("no sample " + pathPrefix));
    }
}
