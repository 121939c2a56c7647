package dev.richter.loaddriver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.Json;
import dev.richter.common.model.Counters;
import dev.richter.common.model.HistogramCodec;
import dev.richter.common.model.Marker;
import dev.richter.common.model.ReplayRequest;
import dev.richter.common.model.Scenario;
import dev.richter.common.model.WorkerResult;
import dev.richter.common.model.WorkerTask;
import dev.richter.data.StoredSets;
import dev.richter.data.traffic.TrafficImporter;
import dev.richter.data.traffic.TrafficSet;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Redirects of a replayed request over real sockets on loopback (both transports, HTTP/1.1 and h2c): a chain within the
 * target under test is one request whose latency covers every hop and whose outcome is the final status; a redirect
 * that leaves the target, or one hop too many, is a failure with its reason and is never sent.
 */
class RedirectsTest {
    private static final String MARKER = "richter-loadtest=1";

    static java.util.stream.Stream<Supplier<HttpTransport>> transports() {
        return LoadDriverTest.transports();
    }

    private static WorkerTask task(String baseUrl, List<ReplayRequest> requests, double qps, int timeoutMs, int maxInFlight) {
        return new WorkerTask("run-r", "team-a", "formal", 0, qps, 1, 0, 1, 0, timeoutMs, maxInFlight, 1000, Marker.DEFAULT,
                List.of(new Scenario("site", "web", baseUrl, 1, requests)));
    }

    private static WorkerResult run(HttpTransport transport, WorkerTask task) {
        return new LoadDriver(transport, new ResultSink.InMemory(), id -> false).run(task);
    }

    private static ReplayRequest get(String path) {
        return new ReplayRequest("GET", path, Map.of("x-replay", "1"), null);
    }

    private static Shedding.Answer redirect(int status, String location) {
        return new Shedding.Answer(status, Map.of("Location", location));
    }

    private static List<String> paths(TestServer server) {
        return server.seen.stream().map(TestServer.Seen::path).toList();
    }

    /**
     * Corpus bug 11 (grafana/k6#808): {@code GET /} answered 301 to {@code /de-de/}, then a CSS whose Referer is the
     * redirect target. Imported, the chain is one request (its first, {@code GET /}; the hop {@code /de-de/} is skipped
     * as {@code redirect-hop}) beside the CSS, half the weight each, {@code /} first; replayed one at a time against a
     * target that redirects as the recorded one did, every {@code GET /} is followed to {@code /de-de/} before the CSS
     * goes, each hop with the marker and the recorded headers, and every request counts by its final 200.
     */
    @ParameterizedTest
    @MethodSource("transports")
    void corpusCase11_theRedirectChainIsOneRequestFollowedBeforeTheCss(Supplier<HttpTransport> transports) throws Exception {
        Path har = BaggageTest.BUGS.resolve("11-har-redirect-chain.har");
        TrafficSet set = TrafficImporter.importFile(TrafficImporter.Format.HAR, har.getFileName().toString(), Files.readAllBytes(har), null);
        assertEquals(Map.of("redirect-hop", 1), set.skipped());
        assertEquals(List.of("GET / 1 0.5", "GET /de-de/site.css 1 0.5"), set.endpoints().stream()
                .map(e -> e.method() + " " + e.pathTemplate() + " " + e.count() + " " + e.weight()).toList());
        List<ReplayRequest> requests = StoredSets.replayRequests(Json.MAPPER.valueToTree(set));
        assertEquals(List.of("/", "/de-de/site.css", "/", "/de-de/site.css"),
                requests.subList(0, 4).stream().map(ReplayRequest::path).toList());

        try (TestServer server = new TestServer(0); HttpTransport transport = transports.get()) {
            // the recorded Location (https://www.example.test/de-de/) is another origin than this target: the target
            // under test answers with its own
            server.routes.put("/", redirect(301, "/de-de/"));
            Counters c = run(transport, task(server.baseUrl(), requests, 5, 2000, 1)).counters();
            assertTrue(c.sent() >= 3, c.toString()); // one at a time: a request due while one is in flight is dropped
            assertEquals(c.sent(), c.ok(), c.toString());
            assertEquals(Map.of(), c.httpErrors());
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < c.sent(); i++) {
                expected.addAll(i % 2 == 0 ? List.of("/", "/de-de/") : List.of("/de-de/site.css"));
            }
            assertEquals(expected, paths(server), "the hop reaches the target once per GET /, before the CSS");
            for (TestServer.Seen s : server.seen) {
                assertEquals("GET", s.method());
                assertTrue(s.baggage().contains(MARKER), s.path() + ": " + s.baggage());
                assertEquals("gzip", s.headers().getFirst("Accept-Encoding"), s.path());
            }
        }
    }

    /**
     * A chain of two redirects within the target (a relative path reference, then an absolute path with a query) is one
     * request: three hops reach the server, each with the marker and the template's headers; the latency from the send
     * covers all three (the server takes 50 ms each); the outcome is the final 200.
     */
    @ParameterizedTest
    @MethodSource("transports")
    void aChainWithinTheTargetIsOneRequestWhoseLatencyCoversEveryHop(Supplier<HttpTransport> transports) throws Exception {
        try (TestServer server = new TestServer(50); HttpTransport transport = transports.get()) {
            server.routes.put("/shop/a", redirect(302, "b"));
            server.routes.put("/shop/b", redirect(307, "/shop/c?x=1#top"));
            WorkerResult r = run(transport, task(server.baseUrl(), List.of(get("/shop/a")), 5, 2000, 64));
            Counters c = r.counters();
            assertEquals(5, c.ok(), c.toString());
            assertEquals(Map.of(), c.httpErrors());
            assertEquals(15, server.seen.size(), paths(server).toString());
            assertEquals(Map.of("/shop/a", 5L, "/shop/b", 5L, "/shop/c?x=1", 5L), countByPath(server));
            for (TestServer.Seen s : server.seen) {
                assertTrue(s.baggage().contains(MARKER), s.path() + ": " + s.baggage());
                assertEquals("1", s.headers().getFirst("x-replay"), s.path());
            }
            Histogram fromSend = HistogramCodec.decode(r.latencyFromSendHist());
            assertEquals(5, fromSend.getTotalCount());
            assertTrue(fromSend.getMinValue() >= 150_000, "three hops of 50 ms: " + fromSend.getMinValue() + " µs");
        }
    }

    private static Map<String, Long> countByPath(TestServer server) {
        Map<String, Long> out = new LinkedHashMap<>();
        server.seen.forEach(s -> out.merge(s.path(), 1L, Long::sum));
        return out;
    }

    /**
     * What the hop sends by status (RFC 9110 §15.4.2-15.4.9, Fetch "HTTP-redirect fetch" step 12): 303 turns any method
     * but HEAD into GET, 301 and 302 turn POST into GET, each without the body and its Content-Type; 307 and 308 keep the
     * method and the body; a PUT answered 301 stays a PUT.
     */
    @ParameterizedTest
    @MethodSource("transports")
    void theHopsMethodAndBodyFollowTheRedirectStatus(Supplier<HttpTransport> transports) throws Exception {
        try (TestServer server = new TestServer(0); HttpTransport transport = transports.get()) {
            for (int status : new int[] {301, 302, 303, 307, 308}) {
                server.routes.put("/r" + status, redirect(status, "/to" + status));
            }
            byte[] body = "user=alice".getBytes(StandardCharsets.UTF_8);
            record Case(String method, int status, String hopMethod, boolean keepsBody) {}
            List<Case> cases = List.of(new Case("POST", 301, "GET", false), new Case("POST", 302, "GET", false),
                    new Case("POST", 303, "GET", false), new Case("PUT", 303, "GET", false), new Case("HEAD", 303, "HEAD", false),
                    new Case("POST", 307, "POST", true), new Case("POST", 308, "POST", true), new Case("PUT", 301, "PUT", true));
            for (Case k : cases) {
                server.seen.clear();
                Map<String, String> headers = new LinkedHashMap<>(Map.of("Content-Type", "application/x-www-form-urlencoded",
                        "x-replay", "1", "baggage", MARKER));
                byte[] sent = k.method().equals("HEAD") ? new byte[0] : body;
                HttpTransport.ResponseHead answer = transport.prepare(new OutboundRequest(
                        URI.create(server.baseUrl() + "/r" + k.status()), k.method(), headers, sent, 2000)).send().get(5, TimeUnit.SECONDS);
                assertEquals(200, answer.status(), k.toString());
                assertEquals(2, server.seen.size(), k.toString());
                TestServer.Seen hop = server.seen.get(1);
                assertEquals("/to" + k.status(), hop.path(), k.toString());
                assertEquals(k.hopMethod(), hop.method(), k.toString());
                assertArrayEquals(k.keepsBody() ? body : new byte[0], hop.body(), k.toString());
                // a hop that stays of its method keeps every header; one that becomes a GET drops the body's
                assertEquals(k.hopMethod().equals(k.method()) ? "application/x-www-form-urlencoded" : null,
                        hop.headers().getFirst("Content-Type"), k.toString());
                assertEquals("1", hop.headers().getFirst("x-replay"), k.toString());
                assertEquals(MARKER, hop.baggage(), k.toString());
            }
        }
    }

    /**
     * Tests run on production: a redirect is followed only within the target under test (same scheme, host and port as
     * the scenario's base URL). One to another port (absolute, or as a network-path reference), to the same host and
     * port over https, or to another name of the same machine is a failure counted by its status and reason, and the
     * other origin receives nothing: not one request with the marker.
     */
    @ParameterizedTest
    @MethodSource("transports")
    void aRedirectOutOfTheTargetIsAFailureAndNeverReachesTheOtherOrigin(Supplier<HttpTransport> transports) throws Exception {
        try (TestServer server = new TestServer(0); TestServer other = new TestServer(0); HttpTransport transport = transports.get()) {
            int port = URI.create(server.baseUrl()).getPort();
            int otherPort = URI.create(other.baseUrl()).getPort();
            server.routes.put("/absolute", redirect(302, other.baseUrl() + "/steal"));
            server.routes.put("/network-path", redirect(301, "//127.0.0.1:" + otherPort + "/steal"));
            server.routes.put("/https", redirect(308, "https://127.0.0.1:" + port + "/secure"));
            server.routes.put("/other-name", redirect(303, "http://localhost:" + port + "/x"));
            Counters c = run(transport, task(server.baseUrl(), List.of(get("/absolute"), get("/network-path"), get("/https"),
                    get("/other-name")), 8, 2000, 64)).counters();
            assertEquals(8, c.sent(), c.toString());
            assertEquals(0, c.ok(), c.toString());
            assertEquals(Map.of("302 redirect out of scope: http://127.0.0.1:" + otherPort, 2L,
                    "301 redirect out of scope: http://127.0.0.1:" + otherPort, 2L,
                    "308 redirect out of scope: https://127.0.0.1:" + port, 2L,
                    "303 redirect out of scope: http://localhost:" + port, 2L), c.httpErrors());
            assertEquals(0, other.seen.size(), "the other origin received nothing");
            assertEquals(8, server.seen.size(), "only the first requests reached the target: " + paths(server));
        }
    }

    /** A redirect loop is followed up to the hop limit, then the request fails with its reason: 1 + 10 hops each. */
    @ParameterizedTest
    @MethodSource("transports")
    void oneRedirectMoreThanTheLimitIsAFailure(Supplier<HttpTransport> transports) throws Exception {
        try (TestServer server = new TestServer(0); HttpTransport transport = transports.get()) {
            server.routes.put("/loop", redirect(302, "/loop"));
            Counters c = run(transport, task(server.baseUrl(), List.of(get("/loop")), 2, 3000, 64)).counters();
            assertEquals(0, c.ok(), c.toString());
            assertEquals(Map.of("302 too many redirects (more than 10)", 2L), c.httpErrors());
            assertEquals(2 * (1 + Redirects.MAX_REDIRECTS), server.seen.size());
        }
    }

    /**
     * A 3xx that is the final answer is not a success: 300 (the choice is the client's; not followed) by its status, a 301
     * without Location with its reason. 304 answers a conditional request (RFC 9110 §15.4.5: the client's copy is
     * current), so it is a success.
     */
    @ParameterizedTest
    @MethodSource("transports")
    void aFinalThreeHundredIsNotASuccess(Supplier<HttpTransport> transports) throws Exception {
        try (TestServer server = new TestServer(0); HttpTransport transport = transports.get()) {
            server.routes.put("/choices", redirect(300, "/first-choice"));
            server.routes.put("/moved", new Shedding.Answer(301, Map.of()));
            server.routes.put("/cached", new Shedding.Answer(304, Map.of()));
            Counters c = run(transport, task(server.baseUrl(), List.of(get("/choices"), get("/moved"), get("/cached")), 6, 2000, 64))
                    .counters();
            assertEquals(2, c.ok(), c.toString());
            assertEquals(Map.of("300", 2L, "301 redirect without Location", 2L), c.httpErrors());
            assertEquals(6, server.seen.size(), paths(server).toString());
        }
    }

    /** The request's deadline covers the whole chain: three hops of 200 ms time out a request of 500 ms. */
    @ParameterizedTest
    @MethodSource("transports")
    void theDeadlineCoversTheWholeChain(Supplier<HttpTransport> transports) throws Exception {
        try (TestServer server = new TestServer(200); HttpTransport transport = transports.get()) {
            for (int hop = 1; hop < 3; hop++) {
                server.routes.put("/" + hop, redirect(302, "/" + (hop + 1)));
            }
            Counters c = run(transport, task(server.baseUrl(), List.of(get("/1")), 3, 500, 64)).counters();
            assertEquals(3, c.timeouts(), c.toString());
            assertEquals(0, c.ok(), c.toString());
        }
    }

    /** On HTTP/2 (h2c) the hops are streams of the one connection; the chain is one request by its final status. */
    @Test
    void h2cFollowsTheChainOnItsStreams() throws Exception {
        try (Http2TestServer server = new Http2TestServer(0, null);
             NettyHttpTransport transport = new NettyHttpTransport(1, NettyHttpTransport.Options.DEFAULT
                     .withCleartext(NettyHttpTransport.Protocol.HTTP_2))) {
            server.routes.put("/a", redirect(301, "/b"));
            server.routes.put("/loop", redirect(307, "/loop"));
            Counters c = run(transport, task(server.baseUrl(), List.of(get("/a"), get("/loop")), 10, 2000, 64)).counters();
            assertEquals(5, c.ok(), c.toString());
            assertEquals(Map.of("307 too many redirects (more than 10)", 5L), c.httpErrors());
            assertEquals(5 * 2 + 5 * (1 + Redirects.MAX_REDIRECTS), server.seen.size());
            assertTrue(server.seen.stream().allMatch(s -> s.protocol().equals("h2") && s.baggage().contains(MARKER)));
            assertEquals(1, server.connections.get());
        }
    }

    /**
     * The next hop of a request (no network): the Location resolved against the request's URL (RFC 3986 §5.2), the
     * fragment dropped, the scope compared by scheme, host (in any case) and port (a default port written or not), and
     * the hop sent to the target's own authority.
     */
    @Test
    void theNextHopIsResolvedAgainstTheRequestAndKeptInItsOrigin() throws Exception {
        OutboundRequest post = new OutboundRequest(URI.create("http://shop.test/a/b/c?q=1"), "POST",
                Map.of("Content-Type", "text/plain", "Content-Language", "en", "baggage", MARKER), "x".getBytes(StandardCharsets.UTF_8), 1000);
        assertEquals("http://shop.test/a/b/d", Redirects.next(post, 307, "d").uri().toString());
        assertEquals("http://shop.test/a/b/c?y", Redirects.next(post, 307, "?y").uri().toString());
        assertEquals("http://shop.test/g", Redirects.next(post, 307, "../../../g").uri().toString());
        assertEquals("http://shop.test/a/b/c?q=1", Redirects.next(post, 307, "#frag").uri().toString());
        assertEquals("http://shop.test/x", Redirects.next(post, 307, "HTTP://SHOP.test:80/x").uri().toString());
        // a Location's octets as the transports decode them (ISO-8859-1, one char each): UTF-8 é, then a space
        assertEquals("http://shop.test/caf%C3%A9%20bar", Redirects.next(post, 307, "/caf\u00c3\u00a9 bar").uri().toString());
        assertEquals("http://shop.test/private", Redirects.next(post, 307, "http://user:secret@shop.test/private").uri().toString());

        OutboundRequest get = Redirects.next(post, 303, "/done");
        assertEquals("GET", get.method());
        assertEquals(0, get.body().length);
        assertEquals(Map.of("baggage", MARKER), get.headers());
        OutboundRequest kept = Redirects.next(post, 308, "/again");
        assertEquals("POST", kept.method());
        assertEquals(post.headers(), kept.headers());
        assertEquals(1000, kept.timeoutMs());

        RedirectException out = assertThrows(RedirectException.class, () -> Redirects.next(post, 302, "https://shop.test/a"));
        assertEquals("302 redirect out of scope: https://shop.test", out.counterKey());
        assertEquals("301 redirect out of scope: http://shop.test:8080",
                assertThrows(RedirectException.class, () -> Redirects.next(post, 301, "//shop.test:8080/")).counterKey());
        assertEquals("302 redirect Location is not a URI reference",
                assertThrows(RedirectException.class, () -> Redirects.next(post, 302, "http://[bad")).counterKey());
        assertEquals("302 redirect without Location",
                assertThrows(RedirectException.class, () -> Redirects.next(post, 302, null)).counterKey());
        assertNull(HttpTransport.ResponseHead.of(200, Map.of("location", "/x"), Map::get).location());
        assertEquals("/x", HttpTransport.ResponseHead.of(301, Map.of("location", "/x"), Map::get).location());
    }
}
