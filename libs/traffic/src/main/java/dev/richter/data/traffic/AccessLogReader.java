package dev.richter.data.traffic;

import dev.richter.common.http.UriReference;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;

/**
 * Reads nginx and Apache access logs, one request a line, by {@link LogFormat} grammars tried in order.
 *
 * <p>Values: {@code -} is absent (nginx and Apache log an empty value so); escapes are decoded as nginx
 * ({@code \xHH} for {@code "}, {@code \} and bytes outside printable ASCII, nginx 1.1.6+) and Apache
 * ({@code \"}, {@code \\}, {@code \n}, {@code \t}, {@code \xhh}) write them, and the bytes read as UTF-8.
 * The request comes from {@code $request} ({@code "METHOD target PROTOCOL"}) or from {@code $request_method} with
 * {@code $request_uri} (or {@code $uri} and {@code $args}); headers from {@code $http_<name>} ({@code Host}, {@code Content-Length} and the other headers a replay sets itself dropped),
 * cookies from {@code $cookie_<name>}; the body from {@code $request_body}, its type from {@code $content_type}.
 *
 * <p>A line no grammar matches, or whose request is not {@code METHOD target [PROTOCOL]}, is an {@link ImportProblem}
 * {@code file:line} and the next line is read. An empty request ({@code "-"} or {@code ""}, what nginx and Apache log
 * for a connection that sent no request, e.g. a 408) is skipped as {@code no-request-line}.
 */
public final class AccessLogReader {
    private AccessLogReader() {}

    /**
     * @param file    the file's name, used in positions
     * @param bytes   the log (UTF-8 or ASCII, {@code \n} or {@code \r\n} line ends)
     * @param formats grammars tried in order for each line (e.g. {@link LogFormat#COMBINED}, {@link LogFormat#COMMON})
     */
    public static ReadResult read(String file, byte[] bytes, List<LogFormat> formats) {
        String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\r?\n", -1);
        List<RecordedRequest> requests = new ArrayList<>();
        Map<String, Integer> skipped = new LinkedHashMap<>();
        List<ImportProblem> problems = new ArrayList<>();
        int read = 0;
        for (int n = 0; n < lines.length; n++) {
            String line = lines[n];
            if (line.isBlank()) {
                continue;
            }
            read++;
            String position = file + ":" + (n + 1);
            Map<String, String> values = null;
            Map<String, String> raws = new LinkedHashMap<>();
            for (LogFormat f : formats) {
                Matcher m = f.pattern().matcher(line);
                if (m.matches()) {
                    values = new LinkedHashMap<>();
                    for (int g = 0; g < f.variables().size(); g++) {
                        String raw = m.group(g + 1);
                        if (raw != null && !raw.equals("-")) {
                            values.putIfAbsent(f.variables().get(g), unescape(raw));
                            raws.putIfAbsent(f.variables().get(g), raw);
                        }
                    }
                    break;
                }
            }
            if (values == null) {
                problems.add(new ImportProblem(position, "does not match the " + formats.stream().map(LogFormat::name)
                        .reduce((a, b) -> a + " or " + b).orElse("") + " format"));
                continue;
            }
            String method;
            String target;
            String request = values.get("request");
            if (values.containsKey("request_method")) {
                method = values.get("request_method");
                target = uriText(raws.getOrDefault("request_uri", raws.getOrDefault("uri", "")));
                String args = raws.getOrDefault("args", raws.get("query_string"));
                if (!values.containsKey("request_uri") && args != null && !args.isEmpty()) {
                    target = target + "?" + uriText(args);
                }
            } else if (request == null || request.isBlank()) {
                HarReader.count(skipped, "no-request-line");
                continue;
            } else {
                String[] parts = requestLine(raws.get("request"));
                if (parts == null || !parts[0].chars().allMatch(c -> c >= 'A' && c <= 'Z')) {
                    problems.add(new ImportProblem(position, "request '" + request + "' is not METHOD target PROTOCOL"));
                    continue;
                }
                method = parts[0];
                target = parts[1];
            }
            if (method == null || method.isEmpty() || target == null || target.isEmpty()) {
                HarReader.count(skipped, "no-request-line");
                continue;
            }
            String host = values.getOrDefault("host", values.getOrDefault("http_host", values.getOrDefault("server_name", "")));
            if (target.startsWith("http://") || target.startsWith("https://")) {
                int slash = target.indexOf('/', target.indexOf("//") + 2);
                host = target.substring(target.indexOf("//") + 2, slash < 0 ? target.length() : slash);
                target = slash < 0 ? "/" : target.substring(slash);
            } else if (!target.startsWith("/")) {
                problems.add(new ImportProblem(position, "request target '" + target + "' is not a path"));
                continue;
            }
            List<Header> headers = new ArrayList<>();
            StringBuilder cookies = new StringBuilder();
            for (var e : values.entrySet()) {
                String var = e.getKey();
                if (var.startsWith("http_") && !HarReader.DROPPED_HEADERS.contains(var.substring(5).replace('_', '-'))) {
                    headers.add(new Header(headerName(var.substring(5)), e.getValue()));
                } else if (var.startsWith("cookie_")) {
                    cookies.append(cookies.isEmpty() ? "" : "; ").append(var.substring(7)).append('=').append(e.getValue());
                }
            }
            if (!cookies.isEmpty() && headers.stream().noneMatch(h -> h.name().equalsIgnoreCase("cookie"))) {
                headers.add(new Header("Cookie", cookies.toString()));
            }
            String body = values.getOrDefault("request_body", "");
            int status = parseInt(values.get("status"));
            long sent = parseInt(values.getOrDefault("body_bytes_sent", values.get("bytes_sent")));
            requests.add(new RecordedRequest(host.toLowerCase(Locale.ROOT), method, target, headers, body.getBytes(StandardCharsets.UTF_8),
                    values.getOrDefault("content_type", ""), List.of(), RecordedResponse.status(status, values.containsKey("body_bytes_sent") || values.containsKey("bytes_sent") ? sent : -1),
                    position));
        }
        return new ReadResult(read, requests, skipped, problems);
    }

    /**
     * A logged request line {@code METHOD target PROTOCOL} (escapes as logged) as {@code [method, target]}: the method
     * is the first word, the protocol the last when it is {@code HTTP/...}, and the target everything between, raw
     * spaces included (a server or load balancer may log a request line with a space in its URL, e.g. ALB's
     * {@code SpaceInUri}); the target as {@link #uriText}. {@code null} when there is no target.
     */
    static String[] requestLine(String logged) {
        String line = logged == null ? "" : logged.strip();
        int first = line.indexOf(' ');
        if (first <= 0) {
            return null;
        }
        int last = line.lastIndexOf(' ');
        String target = (last > first && line.startsWith("HTTP/", last + 1) ? line.substring(first + 1, last) : line.substring(first + 1)).strip();
        return target.isEmpty() ? null : new String[] {line.substring(0, first), uriText(target)};
    }

    /**
     * A logged URL or target as URI text: its escapes decoded to the bytes they stand for ({@link #unescapeBytes}),
     * then every octet no URI may hold percent-encoded (RFC 3986 §2.1: controls, space, non-ASCII and
     * {@code "<>\^`{|}}), and a {@code %} that starts no {@code %HH} as {@code %25}; percent-encodings already there
     * are kept. {@code /search?q=\x22red\x22} → {@code /search?q=%22red%22}, {@code /a b} → {@code /a%20b}.
     */
    static String uriText(String logged) {
        String encoded = UriReference.encodeInvalid(unescapeBytes(logged));
        return encoded.indexOf('%') < 0 ? encoded : STRAY_PERCENT.matcher(encoded).replaceAll("%25");
    }

    /** A {@code %} not followed by two hex digits. */
    private static final java.util.regex.Pattern STRAY_PERCENT = java.util.regex.Pattern.compile("%(?![0-9A-Fa-f]{2})");

    /** {@code user_agent} → {@code User-Agent}. */
    static String headerName(String var) {
        StringBuilder b = new StringBuilder();
        for (String part : var.split("_")) {
            if (part.isEmpty()) {
                continue;
            }
            if (!b.isEmpty()) {
                b.append('-');
            }
            b.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1).toLowerCase(Locale.ROOT));
        }
        return b.toString();
    }

    private static int parseInt(String s) {
        if (s == null) {
            return 0;
        }
        try {
            return Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /**
     * Decodes nginx and Apache log escapes: {@code \xHH} to the byte, {@code \"}, {@code \\}, {@code \n}, {@code \r},
     * {@code \t}; the bytes are read as UTF-8. Any other backslash is kept as written.
     */
    public static String unescape(String raw) {
        if (raw.indexOf('\\') < 0) {
            return raw;
        }
        return new String(unescapeBytes(raw), StandardCharsets.UTF_8);
    }

    /**
     * The bytes {@code raw} stands for, escapes decoded as {@link #unescape} does, before any UTF-8 decoding: a logged
     * {@code \xFF} stays the octet 0xFF (for a URL, which is percent-encoded octet by octet).
     */
    static byte[] unescapeBytes(String raw) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length());
        byte[] b = raw.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < b.length; i++) {
            if (b[i] != '\\' || i + 1 >= b.length) {
                out.write(b[i]);
                continue;
            }
            byte next = b[i + 1];
            if (next == 'x' && i + 3 < b.length && hex(b[i + 2]) >= 0 && hex(b[i + 3]) >= 0) {
                out.write(hex(b[i + 2]) * 16 + hex(b[i + 3]));
                i += 3;
            } else if (next == '"' || next == '\\') {
                out.write(next);
                i++;
            } else if (next == 'n' || next == 't' || next == 'r') {
                out.write(next == 'n' ? '\n' : next == 't' ? '\t' : '\r');
                i++;
            } else {
                out.write(b[i]);
            }
        }
        return out.toByteArray();
    }

    private static int hex(byte c) {
        return Character.digit(c, 16);
    }
}
