package dev.richter.data.traffic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * nginx, Apache, custom {@code log_format} and ALB access logs. Corpus counts were taken by reading each file: one
 * request a line, except lines whose request is {@code "-"} or {@code ""} (a connection that sent no request, logged
 * with 408 or 400), which are skipped as {@code no-request-line}.
 */
class AccessLogImportTest {

    /** file, format, lines, imported, skipped (no request line), endpoints. */
    @ParameterizedTest
    @CsvSource({
            // GET / twice, favicon, notfound, hmm; line 3 is "-" 408
            "accesslog/apache-darwin-2.4.23.log, apache, 6, 5, 1, 4",
            // lines 3 and 6 are "-" 408; line 7 starts with a virtual host (vhost_combined)
            "accesslog/apache-test.log, apache, 7, 5, 2, 5",
            // 13 GETs: / four times (two 304s), favicon, test and test1 twice each
            "accesslog/nginx-access.log, nginx, 13, 13, 0, 7",
            // /ocelot three times (two behind forwarded chains), a quoted X-Forwarded-For chain first; line 7 is "" 400
            "accesslog/nginx-test.log, nginx, 7, 6, 1, 4"})
    void everyCorpusLogImports(String file, String format, int lines, int imported, int skipped, int endpoints) {
        TrafficSet set = TrafficImporter.importFile(TrafficImporter.Format.parse(format), file, Corpus.bytes(file), null);
        assertEquals(new TrafficSet.ImportCounts(lines, imported, skipped, 0, 0, 0), set.counts(), file);
        assertEquals(skipped == 0 ? Map.of() : Map.of("no-request-line", skipped), set.skipped(), file);
        assertEquals(endpoints, set.endpoints().size(), file);
    }

    @Test
    void nginxWeightsComeFromFrequencies() {
        TrafficSet set = TrafficImporter.importFile(TrafficImporter.Format.NGINX, "nginx-access.log",
                Corpus.bytes("accesslog/nginx-access.log"), null);
        var top = set.endpoints().get(0);
        assertEquals("GET /", top.method() + " " + top.pathTemplate());
        assertEquals(4, top.count());
        assertEquals(0.307692, top.weight());
        var ua = top.samples().get(0).headers();
        assertEquals(List.of(new Header("User-Agent", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_12_0) AppleWebKit/537.36 "
                + "(KHTML, like Gecko) Chrome/54.0.2840.59 Safari/537.36")), ua, "the referer '-' is absent");
        assertEquals(200, top.samples().get(0).response().status());
        assertEquals(612, top.samples().get(0).response().bodyBytes());
        assertEquals("nginx-access.log:1", top.samples().get(0).source());
    }

    @Test
    void aBadLineIsReportedByFileAndLineAndTheImportGoesOn() {
        String log = new String(Corpus.bytes("accesslog/apache-darwin-2.4.23.log"), StandardCharsets.UTF_8)
                .replaceFirst("\n", "\nthis line is not a log line\n");
        TrafficSet set = TrafficImporter.importFile(TrafficImporter.Format.APACHE, "access.log",
                log.getBytes(StandardCharsets.UTF_8), null);
        assertEquals(new TrafficSet.ImportCounts(7, 5, 1, 1, 0, 0), set.counts());
        assertEquals(List.of(new ImportProblem("access.log:2", "does not match the combined or common format")), set.problems());
        assertEquals("access.log:2: does not match the combined or common format", set.problems().get(0).toString());
    }

    @Test
    void escapedBytesAreDecodedAndDashesAreAbsent() {
        String line = "127.0.0.1 - - [07/Dec/2016:11:05:07 +0100] \"GET /search?q=\\x22caf\\xC3\\xA9\\x22 HTTP/1.1\" 200 5 "
                + "\"-\" \"agent \\\"quoted\\\" \\\\ back\"\n";
        TrafficSet set = TrafficImporter.importFile(TrafficImporter.Format.NGINX, "esc.log", line.getBytes(StandardCharsets.UTF_8), null);
        var s = set.endpoints().get(0).samples().get(0);
        // the target is what the replay sends: a URI, the decoded bytes percent-encoded
        assertEquals("/search?q=%22caf%C3%A9%22", s.target());
        assertEquals(List.of(new Header("User-Agent", "agent \"quoted\" \\ back")), s.headers());
    }

    @Test
    void aLineOfOnlyBadLinesIsRefusedWithEachLine() {
        var e = assertThrows(TrafficFormatException.class, () -> TrafficImporter.importFile(TrafficImporter.Format.NGINX,
                "bad.log", "one\n\nGET / HTTP/1.1\n".getBytes(StandardCharsets.UTF_8), null));
        assertEquals(List.of(new ImportProblem("bad.log:1", "does not match the combined or common format"),
                new ImportProblem("bad.log:3", "does not match the combined or common format")), e.problems());
    }

    @Test
    void aCustomLogFormatDirectiveIsTheLineGrammar() {
        String directive = "log_format api escape=default '$remote_addr - [$time_local] \"$request_method $request_uri\" '\n"
                + "    '$status $request_time \"$http_authorization\" \"$content_type\" \"$request_body\" $host';";
        TrafficSet set = TrafficImporter.importFile(TrafficImporter.Format.NGINX, "nginx-api.log",
                Corpus.fixture("nginx-api-access-log.txt"), directive);
        assertEquals(new TrafficSet.ImportCounts(4, 3, 0, 1, 3, 0), set.counts());
        assertEquals(List.of(new ImportProblem("nginx-api.log:4", "does not match the api format")), set.problems());
        assertEquals(List.of("shop.example.com GET /orders/{id} 2 0.666667", "shop.example.com POST /orders 1 0.333333"),
                set.endpoints().stream().map(e -> e.host() + " " + e.method() + " " + e.pathTemplate() + " " + e.count() + " " + e.weight()).toList());
        var post = HarImportTest.sample(set, "/orders?");
        assertEquals("/orders?token={{slot:query.token}}", post.target());
        assertEquals(List.of(new Header("Authorization", "{{slot:header.authorization}}")), post.headers());
        assertEquals("application/json", post.contentType());
        assertEquals("{\"email\":\"{{slot:email}}\",\"sku\":\"A-1\"}", post.body());
        assertEquals(201, post.response().status());
        var get = HarImportTest.sample(set, "/orders/981");
        assertEquals(List.of(), get.headers());
        assertEquals("none", get.bodyEncoding());
        assertEquals("", get.contentType());
    }

    /**
     * An upstream variable holds one value per upstream tried, "separated by commas and colons like addresses in
     * $upstream_addr" (nginx's upstream module): {@code 0.000, 0.029} and {@code 0.002, 0.010 : 0.030} are one field
     * (corpus bug 32).
     */
    @Test
    void bug32UpstreamVariablesWithSeveralValuesAreOneField() {
        String directive = new String(Corpus.bytes("bugs/32-nginx-upstream-multi.logformat"), StandardCharsets.UTF_8);
        TrafficSet set = TrafficImporter.importFile(TrafficImporter.Format.NGINX, "upstream.log",
                Corpus.bytes("bugs/32-nginx-upstream-multi.log"), directive);
        assertEquals(List.of(), set.problems());
        assertEquals(3, set.counts().imported());
        assertEquals(List.of("GET /api/items 2", "POST /api/cart 1"),
                set.endpoints().stream().map(e -> e.method() + " " + e.pathTemplate() + " " + e.count()).toList());
        assertEquals(201, HarImportTest.sample(set, "/api/cart").response().status());
        LogFormat addresses = LogFormat.parseDirective("log_format up '$remote_addr [$time_local] \"$request\" $status "
                + "$upstream_addr $upstream_status';");
        TrafficSet retried = TrafficImporter.importFile(TrafficImporter.Format.NGINX, "addr.log", ("192.0.2.1 "
                + "[01/Dec/2026:10:00:01 +0000] \"GET /a HTTP/1.1\" 200 192.168.1.1:80, 192.168.1.2:80 : unix:/tmp/up.sock "
                + "502, 504 : 200\n").getBytes(StandardCharsets.UTF_8), addresses.template());
        assertEquals(List.of(), retried.problems());
        assertEquals(1, retried.counts().imported());
    }

    @Test
    void aLogFormatWithoutTheRequestIsRefused() {
        var e = assertThrows(TrafficFormatException.class, () -> LogFormat.parseDirective("log_format x '$remote_addr $status';"));
        assertEquals(List.of(new ImportProblem("logFormat",
                "the format logs no request: it needs $request, or $request_method with $request_uri or $uri")), e.problems());
        var unterminated = assertThrows(TrafficFormatException.class, () -> LogFormat.parseDirective("log_format x '$request"));
        assertEquals("logFormat", unterminated.problems().get(0).position());
    }

    @Test
    void combinedIsTheNginxPredefinedFormatWrittenAsADirective() {
        LogFormat f = LogFormat.parseDirective("log_format combined '$remote_addr - $remote_user [$time_local] '\n"
                + "                    '\"$request\" $status $body_bytes_sent '\n"
                + "                    '\"$http_referer\" \"$http_user_agent\"';");
        assertEquals(List.of("remote_addr", "remote_user", "time_local", "request", "status", "body_bytes_sent",
                "http_referer", "http_user_agent"), f.variables());
        TrafficSet set = TrafficImporter.importFile(TrafficImporter.Format.NGINX, "nginx-access.log",
                Corpus.bytes("accesslog/nginx-access.log"), f.template());
        // written out, the format is strict: the line that starts with a virtual host no longer matches
        assertEquals(12, set.counts().imported());
        assertEquals(List.of(new ImportProblem("nginx-access.log:13", "does not match the custom format")), set.problems());
    }

    @Test
    void albLogs() {
        TrafficSet set = TrafficImporter.importFile(TrafficImporter.Format.ALB, "alb.log", Corpus.fixture("alb-access-log.txt"), null);
        assertEquals(new TrafficSet.ImportCounts(7, 3, 2, 2, 1, 0), set.counts());
        assertEquals(Map.of("websocket", 1, "malformed-request", 1), set.skipped());
        assertEquals(List.of(new ImportProblem("alb.log:6", "type 'this' is not one of grpcs, h2, http, https, ws, wss"),
                new ImportProblem("alb.log:7", "expected at least 14 fields of the ALB access log format, found 3")), set.problems());
        assertEquals(List.of("www.example.com GET /users/{id} 2 0.666667", "10.0.2.105:773 POST /orders 1 0.333333"),
                set.endpoints().stream().map(e -> e.host() + " " + e.method() + " " + e.pathTemplate() + " " + e.count() + " " + e.weight()).toList());
        var first = set.endpoints().get(0).samples();
        assertEquals("/users/42?api_key={{slot:query.api_key}}&page=1", first.get(0).target());
        assertEquals(List.of(new Header("User-Agent", "curl/7.46.0")), first.get(0).headers());
        assertEquals(List.of(new Header("User-Agent", "Mozilla/5.0 (X11) \"quoted\"")), first.get(1).headers());
        assertEquals(200, first.get(1).response().status());
        assertEquals(57, first.get(1).response().bodyBytes());
    }
    /**
     * Corpus bug 38: ALB logs the request line as the client sent it (Elastic Load Balancing, "Access logs for your
     * Application Load Balancer": "The load balancer preserves the URL sent by the client, as is"), so a URL with a raw
     * space, forwarded under desync mitigation as {@code Acceptable}/{@code SpaceInUri}, is logged with the space; and it
     * writes a double quote in a quoted field as {@code \x22} (DataBiosphere/azul#4920). Both import, percent-encoded.
     */
    @Test
    void albRequestLineWithARawSpaceOrAnEscapedQuoteImports() {
        TrafficSet set = TrafficImporter.importFile(TrafficImporter.Format.ALB, "38.log", Corpus.bytes("bugs/38-alb-space-in-uri.log"), null);
        assertEquals(new TrafficSet.ImportCounts(3, 3, 0, 0, 0, 0), set.counts());
        assertEquals(List.of(), set.problems());
        assertEquals(List.of("/search?q=blue%20shoes", "/search?q=red", "/search?q=%22red%22"),
                set.endpoints().stream().flatMap(e -> e.samples().stream()).sorted(java.util.Comparator.comparing(TrafficSet.Sample::source))
                        .map(TrafficSet.Sample::target).toList());
    }

    /**
     * The kind of bug 38: every byte ALB writes as {@code \xHH} ({@code "}, {@code \}, controls, bytes of non-ASCII
     * characters) and every raw character no URI may hold (space, {@code <>^`{|}}) in the URL of an ALB request line
     * reads as its percent-encoding (RFC 3986 §2.1), existing percent-encodings kept as they are.
     */
    @ParameterizedTest
    @CsvSource(delimiterString = " => ", quoteCharacter = '\'', value = {
            "GET http://shop.test:80/a b/c d HTTP/1.1 => GET => /a%20b/c%20d",
            "GET http://shop.test:80/p?x=a\\x5cb HTTP/1.1 => GET => /p?x=a%5Cb",
            "GET http://shop.test:80/caf\\xc3\\xa9?q=\\x22x\\x22 HTTP/1.1 => GET => /caf%C3%A9?q=%22x%22",
            "GET http://shop.test:80/p?q=\\x00\\x7f\\xff HTTP/1.1 => GET => /p?q=%00%7F%FF",
            "POST http://shop.test:80/p?q={a|b}<c>^`x` HTTP/1.1 => POST => /p?q=%7Ba%7Cb%7D%3Cc%3E%5E%60x%60",
            "GET http://shop.test:80/p?q=already%20encoded  twice HTTP/1.1 => GET => /p?q=already%20encoded%20%20twice",
            "GET https://shop.test:443/s p HTTP/2.0 => GET => /s%20p",
            "GET http://shop.test:80/p?q=100% HTTP/1.1 => GET => /p?q=100%25",
            "GET http://shop.test:80/p?q=%zz&r=%4 HTTP/1.1 => GET => /p?q=%25zz&r=%254",
            "GET http://shop.test:80/a\\tb HTTP/1.1 => GET => /a%09b"})
    void everyByteAlbEscapesInARequestLineReadsAsItsPercentEncoding(String request, String method, String target) {
        String line = "http 2026-12-01T10:00:01.000000Z app/a/1 198.51.100.7:40000 10.0.1.5:8080 0.001 0.010 0.000 200 200 120 850 \""
                + request + "\" \"ua\" - - arn \"Root=1\" \"-\" \"-\" 0 2026-12-01T10:00:01.000000Z \"forward\" \"-\" \"-\" \"10.0.1.5:8080\" \"200\" \"Acceptable\" \"SpaceInUri\" TID_1";
        ReadResult read = AlbLogReader.read("alb.log", line.getBytes(StandardCharsets.UTF_8));
        assertEquals(List.of(), read.problems());
        assertEquals(1, read.requests().size());
        assertEquals(method, read.requests().get(0).method());
        assertEquals("shop.test", read.requests().get(0).host());
        assertEquals(target, read.requests().get(0).target());
    }
    /**
     * The same kind in nginx and Apache logs: nginx writes {@code "} and bytes outside printable ASCII as
     * {@code \xHH}, Apache {@code \"} and {@code \xhh}, and a request line may hold a raw space; the target reads as
     * URI text, so the replay can send it.
     */
    @ParameterizedTest
    @CsvSource(delimiterString = " => ", value = {
            "GET /search?q=\\x22red\\x22 HTTP/1.1 => /search?q=%22red%22",
            "GET /search?q=blue shoes HTTP/1.1 => /search?q=blue%20shoes",
            "GET /a\\\"b HTTP/1.0 => /a%22b",
            "GET /caf\\xC3\\xA9 HTTP/1.1 => /caf%C3%A9",
            "GET /p?x=1%2C2 HTTP/1.1 => /p?x=1%2C2",
            "GET /old-style => /old-style"})
    void nginxAndApacheRequestLinesReadAsUriText(String request, String target) {
        String line = "127.0.0.1 - - [07/Dec/2016:11:05:07 +0100] \"" + request + "\" 200 5 \"-\" \"ua\"\n";
        ReadResult read = AccessLogReader.read("a.log", line.getBytes(StandardCharsets.UTF_8), List.of(LogFormat.COMBINED));
        assertEquals(List.of(), read.problems());
        assertEquals(target, read.requests().get(0).target());
    }
}
