package dev.richter.data.traffic;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.common.JsonSyntax;
import dev.richter.common.http.UriReference;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;

/**
 * Reads a HAR 1.2 file (W3C Web Performance WG draft "HTTP Archive (HAR) format", version 1.2:
 * {@code log.entries[].request/response}) into {@link RecordedRequest}s, one per entry Richter can replay.
 *
 * <p>Rules, each from a real recorder's output:
 * <ul>
 *   <li>A UTF-8 byte order mark is skipped (Fiddler, some Windows tools).</li>
 *   <li>Request body: {@code postData.text} when present (decoded from base64 when the entry says
 *       {@code "encoding": "base64"}; a text that is not base64 is kept as text and noted); otherwise
 *       {@code postData.params} URL-encoded in order ({@code application/x-www-form-urlencoded}).</li>
 *   <li>A request with a body and no {@code Content-Type} header gets one from {@code postData.mimeType} (HAR 1.2:
 *       "Mime type of posted data"; Insomnia exports {@code headers: []}), so the replay does not send it untyped.</li>
 *   <li>A body declaring {@code Content-Encoding: gzip} whose bytes start with the gzip magic but do not inflate keeps
 *       its recorded bytes and gets a decode error (see https://github.com/mitmproxy/mitmproxy/issues/7452); for
 *       the response the raw HAR text is kept.</li>
 *   <li>A redirect chain (a 3xx whose {@code Location}/{@code redirectURL}, resolved against its URL as RFC 3986 §5.2
 *       says, is the URL of a later entry, compared without fragment and default port, scheme and host in any case) is
 *       one logical request: the first is kept, the hops are skipped as {@code redirect-hop}. Its replay follows the
 *       redirects to the end of the chain (the load driver's transports), so the hops are not requests of their own.</li>
 *   <li>Not replayable, counted by reason: WebSockets ({@code _webSocketMessages}, status 101 or an
 *       {@code Upgrade: websocket} request) as {@code websocket}, {@code data:} URLs as {@code data-url}, other
 *       non-http(s) schemes as {@code non-http-scheme}.</li>
 *   <li>An entry without a response (status 0 or none, often with {@code _error}: blocked by the client, connection
 *       refused, aborted) never reached a server and is skipped as {@code no-response} (mswjs/source#53; a HAR 1.2
 *       response status is the HTTP status received).</li>
 *   <li>An entry the browser answered from its memory or disk cache, or a service worker from its caches, made no
 *       request and is skipped as {@code from-cache} ({@link #servedWithoutRequest}: Chrome's {@code _fromCache},
 *       {@code _fromDiskCache}, {@code _serviceWorkerResponseSource}; cyrus-and/chrome-har-capturer#57).</li>
 *   <li>Several {@code cookie} fields (HTTP/2 and HTTP/3 browsers send one per cookie, and HARs record them so) are
 *       one {@code Cookie} header for the HTTP/1.1 replay, their values joined with {@code "; "}, at the first one's
 *       place (RFC 9113 §8.2.3, RFC 9114 §4.2.1).</li>
 *   <li>HTTP/2 pseudo-headers and connection-level headers ({@code Host}, {@code Content-Length},
 *       {@code Connection}, ...) are dropped: the replay sets its own.</li>
 * </ul>
 * An entry missing {@code request}, {@code request.method} or a parseable {@code request.url} is an
 * {@link ImportProblem} at its JSON path; the others are still read.
 */
public final class HarReader {
    /** Request headers the replay computes itself, lower case. */
    static final Set<String> DROPPED_HEADERS = Set.of("host", "content-length", "connection", "transfer-encoding",
            "keep-alive", "upgrade", "te", "proxy-connection", "trailer");

    private HarReader() {}

    /**
     * @param file  the file's name, used in positions only
     * @param bytes the file's bytes (UTF-8 JSON, optionally with a BOM)
     * @return the replayable requests, skips by reason and per-entry problems
     * @throws TrafficFormatException when the bytes are not JSON ({@code file:line L, column C}) or have no
     *                                {@code log.entries} array ({@code file:$.log.entries})
     */
    public static ReadResult read(String file, byte[] bytes) {
        int start = bytes.length >= 3 && (bytes[0] & 0xff) == 0xef && (bytes[1] & 0xff) == 0xbb && (bytes[2] & 0xff) == 0xbf ? 3 : 0;
        JsonNode root;
        try {
            root = Json.MAPPER.readTree(bytes, start, bytes.length - start);
        } catch (JsonProcessingException e) {
            String where = JsonSyntax.where(e);
            throw new TrafficFormatException(where.isEmpty() ? file : file + ":" + where,
                    "not valid JSON (" + JsonSyntax.reason(e, "file") + ")");
        } catch (IOException e) {
            throw new TrafficFormatException(file, "unreadable: " + e.getMessage());
        }
        if (root == null || !root.path("log").isObject()) {
            throw new TrafficFormatException(file + ":$.log", "missing: a HAR 1.2 file is {\"log\": {\"entries\": [...]}}");
        }
        JsonNode entries = root.get("log").get("entries");
        if (entries == null || !entries.isArray()) {
            throw new TrafficFormatException(file + ":$.log.entries", "missing or not an array");
        }
        List<RecordedRequest> requests = new ArrayList<>();
        Map<String, Integer> skipped = new LinkedHashMap<>();
        List<ImportProblem> problems = new ArrayList<>();
        Map<String, Integer> pendingRedirects = new LinkedHashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            String path = "$.log.entries[" + i + "]";
            JsonNode entry = entries.get(i);
            JsonNode req = entry.path("request");
            if (!req.isObject()) {
                problems.add(new ImportProblem(file + ":" + path + ".request", "missing or not an object"));
                continue;
            }
            String method = req.path("method").asText("").trim().toUpperCase(Locale.ROOT);
            if (method.isEmpty() || !method.chars().allMatch(c -> c > 32 && c < 127)) {
                problems.add(new ImportProblem(file + ":" + path + ".request.method", "missing or not an HTTP method"));
                continue;
            }
            String url = req.path("url").asText("");
            if (url.isBlank()) {
                problems.add(new ImportProblem(file + ":" + path + ".request.url", "missing"));
                continue;
            }
            URI uri;
            try {
                uri = new URI(url);
            } catch (URISyntaxException e) {
                uri = lenientUri(url);
                if (uri == null) {
                    problems.add(new ImportProblem(file + ":" + path + ".request.url", "not a URL: " + e.getReason()));
                    continue;
                }
            }
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            JsonNode resp = entry.path("response");
            int status = resp.path("status").asInt(0);
            if (scheme.equals("data")) {
                count(skipped, "data-url");
                continue;
            }
            if (status <= 0) {
                count(skipped, "no-response");
                continue;
            }
            if (servedWithoutRequest(entry, resp)) {
                count(skipped, "from-cache");
                continue;
            }
            if (entry.has("_webSocketMessages") || status == 101 || scheme.equals("ws") || scheme.equals("wss")
                    || "websocket".equalsIgnoreCase(header(req, "upgrade"))) {
                count(skipped, "websocket");
                continue;
            }
            if (!scheme.equals("http") && !scheme.equals("https")) {
                if (scheme.isEmpty()) {
                    problems.add(new ImportProblem(file + ":" + path + ".request.url", "not an absolute URL: " + url));
                } else {
                    count(skipped, "non-http-scheme");
                }
                continue;
            }
            Integer chainStart = pendingRedirects.remove(chainKey(uri));
            if (status >= 300 && status < 400) {
                String location = resp.path("redirectURL").asText("");
                if (location.isEmpty()) {
                    location = header(resp, "location");
                }
                if (!location.isEmpty()) {
                    try {
                        pendingRedirects.put(chainKey(UriReference.resolve(uri, location.trim())), i);
                    } catch (IllegalArgumentException ignored) {
                        // a Location that is not a URI ends the chain
                    }
                }
            }
            if (chainStart != null) {
                count(skipped, "redirect-hop");
                continue;
            }
            List<String> notes = new ArrayList<>();
            List<Header> headers = new ArrayList<>();
            for (JsonNode h : req.path("headers")) {
                String name = h.path("name").asText("");
                if (name.isEmpty() || name.startsWith(":") || DROPPED_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                    continue;
                }
                headers.add(new Header(name, h.path("value").asText("")));
            }
            headers = joinCookies(headers);
            JsonNode post = req.path("postData");
            String contentType = post.path("mimeType").asText("");
            if (contentType.isEmpty()) {
                contentType = header(req, "content-type");
            }
            byte[] body = new byte[0];
            if (post.isObject()) {
                if (post.has("text") && !post.get("text").isNull()) {
                    String text = post.get("text").asText("");
                    body = "base64".equalsIgnoreCase(post.path("encoding").asText(""))
                            ? base64OrText(text, "request body", notes) : text.getBytes(StandardCharsets.UTF_8);
                } else if (post.path("params").isArray() && !post.get("params").isEmpty()) {
                    if (contentType.isEmpty()) {
                        contentType = "application/x-www-form-urlencoded";
                    }
                    if (contentType.toLowerCase(Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
                        body = formEncode(post.get("params")).getBytes(StandardCharsets.UTF_8);
                    } else {
                        notes.add("request body: postData.params without text for " + contentType + " (body left empty)");
                    }
                }
            }
            if (body.length > 0 && !contentType.isEmpty()
                    && headers.stream().noneMatch(h -> h.name().equalsIgnoreCase("content-type"))) {
                headers.add(new Header("Content-Type", contentType));
            }
            if (isGzip(header(req, "content-encoding")) && looksGzip(body) && !inflates(body)) {
                notes.add("request body: Content-Encoding gzip but not valid gzip (recorded bytes kept)");
            }
            requests.add(new RecordedRequest(host(uri), method, target(uri), headers, body, contentType, notes,
                    response(resp, notes), file + ":" + path));
        }
        return new ReadResult(entries.size(), requests, skipped, problems);
    }

    /**
     * Whether the browser answered the entry without a network request, by the markers HAR exporters write (none is in
     * HAR 1.2; each is an exporter's custom field): Chrome DevTools' {@code _fromCache} ({@code "memory"} or
     * {@code "disk"}, devtools-frontend {@code HARLog}); {@code _fromDiskCache: true} on the entry or its response
     * (chrome-har-capturer, older DevTools); WebKit Web Inspector's {@code _fetchType} {@code "Memory Cache"} or
     * {@code "Disk Cache"} (Safari; {@code "Network Load"} is a request); a response a service worker took from Cache Storage or the HTTP cache
     * ({@code _fetchedViaServiceWorker} with {@code _serviceWorkerResponseSource} {@code cache-storage} or
     * {@code http-cache}, or a {@code _responseCacheStorageCacheName}). A 304 is a revalidation the server answered,
     * so a request.
     */
    static boolean servedWithoutRequest(JsonNode entry, JsonNode response) {
        if (!entry.path("_fromCache").asText("").isEmpty() || entry.path("_fromDiskCache").asBoolean(false)
                || response.path("_fromDiskCache").asBoolean(false)) {
            return true;
        }
        String fetchType = entry.path("_fetchType").asText("");
        if (fetchType.equals("Memory Cache") || fetchType.equals("Disk Cache")) {
            return true;
        }
        if (!response.path("_fetchedViaServiceWorker").asBoolean(false)) {
            return false;
        }
        String source = response.path("_serviceWorkerResponseSource").asText("");
        return source.equals("cache-storage") || source.equals("http-cache")
                || !response.path("_responseCacheStorageCacheName").asText("").isEmpty();
    }

    /** The recorded response: status, type, size; the raw text and a decode error when a gzip body does not inflate. */
    private static RecordedResponse response(JsonNode resp, List<String> notes) {
        JsonNode content = resp.path("content");
        String type = content.path("mimeType").asText("");
        long size = content.path("size").asLong(-1);
        String text = content.path("text").asText("");
        if (!text.isEmpty() && isGzip(header(resp, "content-encoding"))) {
            byte[] bytes;
            if ("base64".equalsIgnoreCase(content.path("encoding").asText(""))) {
                bytes = base64OrText(text, "response body", notes);
            } else {
                bytes = text.getBytes(StandardCharsets.ISO_8859_1);
            }
            if (looksGzip(bytes) && !inflates(bytes)) {
                String error = "Content-Encoding gzip but not valid gzip";
                notes.add("response body: " + error + " (raw body kept)");
                String raw = text.length() > RecordedResponse.MAX_RAW_BODY_CHARS ? text.substring(0, RecordedResponse.MAX_RAW_BODY_CHARS) : text;
                return new RecordedResponse(resp.path("status").asInt(0), type, size, error, raw);
            }
        }
        return new RecordedResponse(resp.path("status").asInt(0), type, size, "", "");
    }

    /**
     * The bytes of a text that claims base64 (RFC 4648 §4, line breaks allowed); the text's UTF-8 bytes, noted, when
     * it is not base64.
     */
    private static byte[] base64OrText(String text, String what, List<String> notes) {
        try {
            return Base64.getDecoder().decode(text.replaceAll("\\s+", ""));
        } catch (IllegalArgumentException e) {
            notes.add(what + ": encoding base64 but not base64 (kept as text)");
            return text.getBytes(StandardCharsets.UTF_8);
        }
    }

    /** {@code name=value&...} in order, each URL-encoded as {@code application/x-www-form-urlencoded} (WHATWG URL). */
    static String formEncode(JsonNode params) {
        StringBuilder b = new StringBuilder();
        for (JsonNode p : params) {
            if (!b.isEmpty()) {
                b.append('&');
            }
            b.append(URLEncoder.encode(p.path("name").asText(""), StandardCharsets.UTF_8)).append('=')
                    .append(URLEncoder.encode(p.path("value").asText(""), StandardCharsets.UTF_8));
        }
        return b.toString();
    }

    private static boolean isGzip(String contentEncoding) {
        return contentEncoding.toLowerCase(Locale.ROOT).contains("gzip");
    }

    private static boolean looksGzip(byte[] b) {
        return b.length >= 2 && (b[0] & 0xff) == 0x1f && (b[1] & 0xff) == 0x8b;
    }

    private static boolean inflates(byte[] b) {
        try (var in = new GZIPInputStream(new ByteArrayInputStream(b))) {
            in.transferTo(OutputStream.nullOutputStream());
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The first value of a header of a HAR request or response, or empty. */
    static String header(JsonNode message, String name) {
        for (JsonNode h : message.path("headers")) {
            if (h.path("name").asText("").equalsIgnoreCase(name)) {
                return h.path("value").asText("");
            }
        }
        return "";
    }

    /** {@code host[:port]} of an absolute URL, lower case, the port only when it is not the scheme's default. */
    static String host(URI uri) {
        String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
        int port = uri.getPort();
        boolean defaultPort = port < 0 || (port == 80 && "http".equalsIgnoreCase(uri.getScheme()))
                || (port == 443 && "https".equalsIgnoreCase(uri.getScheme()));
        return defaultPort ? host : host + ":" + port;
    }

    /** Path and query of a URL as recorded (raw, percent-encoding kept); {@code /} for an empty path. */
    static String target(URI uri) {
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        return uri.getRawQuery() == null ? path : path + "?" + uri.getRawQuery();
    }

    /** Browsers record URLs with characters {@link URI} refuses (e.g. {@code |}, spaces): percent-encode them. */
    private static URI lenientUri(String url) {
        try {
            return new URI(UriReference.encodeInvalid(url));
        } catch (URISyntaxException e) {
            return null;
        }
    }

    /**
     * What a request URL and a redirect's resolved {@code Location} are matched by: origin (scheme and host in lower
     * case, no default port, {@link UriReference#origin}), path and query; not the fragment, which is never sent.
     */
    private static String chainKey(URI uri) {
        return UriReference.origin(uri) + (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
                + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
    }

    static void count(Map<String, Integer> counts, String reason) {
        counts.merge(reason, 1, Integer::sum);
    }

    /** {@code headers} with every {@code cookie} field after the first folded into the first, joined with "; ". */
    static List<Header> joinCookies(List<Header> headers) {
        List<Header> out = new ArrayList<>();
        int first = -1;
        for (Header h : headers) {
            if (!h.name().equalsIgnoreCase("cookie")) {
                out.add(h);
            } else if (first < 0) {
                first = out.size();
                out.add(h);
            } else {
                Header joined = out.get(first);
                out.set(first, new Header(joined.name(), joined.value() + "; " + h.value()));
            }
        }
        return out;
    }
}
