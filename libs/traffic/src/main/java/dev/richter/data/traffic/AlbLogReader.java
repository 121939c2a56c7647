package dev.richter.data.traffic;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads AWS Application Load Balancer access logs (Elastic Load Balancing docs, "Access logs for your Application
 * Load Balancer", access log entries: space-separated fields, those with spaces in double quotes). The fields used, by
 * position: 0 {@code type} ({@code http}, {@code https}, {@code h2}, {@code grpcs}, {@code ws}, {@code wss}),
 * 8 {@code elb_status_code}, 11 {@code sent_bytes}, 12 {@code request} ({@code "METHOD absolute-URL PROTOCOL"}),
 * 13 {@code user_agent}. An entry has at least 14 fields; AWS appends fields over time, so later ones are ignored.
 *
 * <p>The request line is logged as the client sent it ("The load balancer preserves the URL sent by the client, as
 * is"): under desync mitigation a URL with a raw space is forwarded (classification {@code Acceptable}, reason
 * {@code SpaceInUri}) and logged with the space, so the method is the first word, the protocol the last
 * ({@code HTTP/...}) and the URL everything between. In quoted fields ALB writes {@code "} as {@code \x22} and other
 * bytes as {@code \xHH} (seen in real logs: DataBiosphere/azul#4920); {@code \"} and {@code \\} are read too. The
 * URL's bytes, escapes decoded, are percent-encoded where no URI may hold them (RFC 3986 §2.1: controls, space,
 * non-ASCII octets, {@code "<>\^`{|}}), so {@code /search?q=blue shoes} imports as {@code /search?q=blue%20shoes} and
 * {@code ?q=\x22red\x22} as {@code ?q=%22red%22}; percent-encodings already there are kept, a stray {@code %} reads
 * {@code %25} ({@link AccessLogReader#uriText}; nginx and Apache logs are read by the same rule).
 *
 * <p>{@code ws}/{@code wss} entries are skipped as {@code websocket}; a request the load balancer could not parse
 * (logged as {@code "- http://host:80- -"}) as {@code malformed-request}. A line with too few fields, an unknown
 * type or an unparseable URL is an {@link ImportProblem} {@code file:line}. A gzip-compressed file (as ALB writes them
 * to S3) must be decompressed first.
 */
public final class AlbLogReader {
    private static final Set<String> TYPES = Set.of("http", "https", "h2", "grpcs", "ws", "wss");

    private AlbLogReader() {}

    /** @param file the file's name, used in positions; @param bytes the log, UTF-8 */
    public static ReadResult read(String file, byte[] bytes) {
        String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\r?\n", -1);
        List<RecordedRequest> requests = new ArrayList<>();
        Map<String, Integer> skipped = new LinkedHashMap<>();
        List<ImportProblem> problems = new ArrayList<>();
        int read = 0;
        for (int n = 0; n < lines.length; n++) {
            if (lines[n].isBlank()) {
                continue;
            }
            read++;
            String position = file + ":" + (n + 1);
            List<String> f;
            try {
                f = fields(lines[n]);
            } catch (IllegalArgumentException e) {
                problems.add(new ImportProblem(position, e.getMessage()));
                continue;
            }
            if (f.size() < 14) {
                problems.add(new ImportProblem(position, "expected at least 14 fields of the ALB access log format, found " + f.size()));
                continue;
            }
            String type = f.get(0);
            if (!TYPES.contains(type)) {
                problems.add(new ImportProblem(position, "type '" + type + "' is not one of " + String.join(", ", TYPES.stream().sorted().toList())));
                continue;
            }
            if (type.startsWith("ws")) {
                HarReader.count(skipped, "websocket");
                continue;
            }
            String[] request = request(f.get(12));
            if (request == null) {
                HarReader.count(skipped, "malformed-request");
                continue;
            }
            URI uri;
            try {
                uri = new URI(request[1]);
            } catch (URISyntaxException e) {
                problems.add(new ImportProblem(position, "request URL '" + request[1] + "' is not a URL: " + e.getReason()));
                continue;
            }
            String userAgent = AccessLogReader.unescape(f.get(13));
            List<Header> headers = new ArrayList<>();
            if (!userAgent.equals("-") && !userAgent.isEmpty()) {
                headers.add(new Header("User-Agent", userAgent));
            }
            int status = parse(f.get(8));
            long sent = parse(f.get(11));
            requests.add(new RecordedRequest(HarReader.host(uri), request[0], HarReader.target(uri), headers, new byte[0], "", List.of(),
                    RecordedResponse.status(status, sent), position));
        }
        return new ReadResult(read, requests, skipped, problems);
    }

    /**
     * The logged request line {@code "METHOD URL PROTOCOL"} (escapes as logged) as {@code [method, URL]}, the URL's
     * escapes decoded and the octets no URI may hold percent-encoded; {@code null} for a request ALB could not parse
     * ({@code "- http://host:80- -"}) or a line without a URL.
     */
    static String[] request(String logged) {
        String line = logged.strip();
        return line.startsWith("-") ? null : AccessLogReader.requestLine(line);
    }

    /** Splits a line into fields: runs of non-blanks, or double-quoted strings (escapes kept as logged). */
    static List<String> fields(String line) {
        List<String> out = new ArrayList<>();
        int i = 0;
        while (i < line.length()) {
            char c = line.charAt(i);
            if (c == ' ') {
                i++;
            } else if (c == '"') {
                int j = i + 1;
                StringBuilder b = new StringBuilder();
                while (j < line.length() && line.charAt(j) != '"') {
                    if (line.charAt(j) == '\\' && j + 1 < line.length()) {
                        b.append(line, j, j + 2);
                        j += 2;
                    } else {
                        b.append(line.charAt(j++));
                    }
                }
                if (j >= line.length()) {
                    throw new IllegalArgumentException("unterminated quoted field at column " + (i + 1));
                }
                out.add(b.toString());
                i = j + 1;
            } else {
                int j = line.indexOf(' ', i);
                j = j < 0 ? line.length() : j;
                out.add(line.substring(i, j));
                i = j;
            }
        }
        return out;
    }

    private static int parse(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
