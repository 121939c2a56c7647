package dev.richter.loaddriver;

import dev.richter.common.model.Marker;
import dev.richter.common.model.ReplayRequest;
import dev.richter.common.model.Scenario;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A replayed request whose path, header values or text body hold placeholders, parsed once when the worker starts
 * and rendered per send ({@link #render}): {@code {{data.<dataSetId>.<column>}}} (the column of the row drawn from that
 * data set for this request), {@code {{gen.uuid}}} (a random UUID), {@code {{gen.timestampMs}}} (epoch milliseconds
 * at render), {@code {{gen.seq}}} (the scenario's request counter in this worker, from 0). Rendering concatenates the
 * parsed parts; nothing is parsed per send. A data value in the path is percent-encoded (every byte outside RFC 3986
 * {@code unreserved}), and CR and LF are dropped from header values, so a value can never break the request line or a
 * header. Any other {@code {{...}}} (a scrubbed {@code {{slot:...}}} no template filled) is sent as written.
 */
final class RequestTemplate {
    /** Placeholders this class fills. */
    static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{\\s*(data\\.([A-Za-z0-9_-]+)\\.([^}\\s]+)|gen\\.(uuid|timestampMs|seq))\\s*}}");

    /** One parsed piece: a literal, a data column ({@code binding}, {@code column}) or a generator. */
    private record Part(String literal, int binding, int column, String generator) {}

    private final String method;
    private final String base;
    private final List<Part> path;
    private final Map<String, List<Part>> headers;
    private final List<Part> textBody;
    private final byte[] rawBody;
    private final int timeoutMs;
    private final HttpTransport.Capture capture;

    private RequestTemplate(String method, String base, List<Part> path, Map<String, List<Part>> headers,
                            List<Part> textBody, byte[] rawBody, int timeoutMs, HttpTransport.Capture capture) {
        this.capture = capture;
        this.method = method;
        this.base = base;
        this.path = path;
        this.headers = headers;
        this.textBody = textBody;
        this.rawBody = rawBody;
        this.timeoutMs = timeoutMs;
    }

    /** Whether {@code r} holds a placeholder this class fills. */
    static boolean isTemplated(ReplayRequest r) {
        if (PLACEHOLDER.matcher(r.path() == null ? "" : r.path()).find()) {
            return true;
        }
        for (String v : r.headers().values()) {
            if (PLACEHOLDER.matcher(v).find()) {
                return true;
            }
        }
        String text = textOf(r.bodyBase64());
        return text != null && PLACEHOLDER.matcher(text).find();
    }

    /**
     * Parses a request of a scenario (the marker merged into its headers first, as for any replayed request).
     *
     * @throws IllegalArgumentException for a {@code {{data.<id>.<column>}}} whose data set the scenario does not bind
     *                                  or whose column it lacks, or a path that is not a valid URI with its
     *                                  placeholders filled
     */
    static RequestTemplate parse(Scenario scenario, ReplayRequest r, Marker marker, int timeoutMs) {
        OutboundRequest plain = TrafficMix.toOutbound(scenario.targetBaseUrl(), new ReplayRequest(r.method(), "/", Map.of(), null), marker, timeoutMs);
        String uri = plain.uri().toString();
        String base = uri.substring(0, uri.length() - 1);
        String p = r.path() == null || r.path().isEmpty() ? "/" : r.path().startsWith("/") ? r.path() : "/" + r.path();
        List<Part> path = parts(p, scenario);
        URI.create(base + render(path, List.of(), "0", "0", "00000000-0000-0000-0000-000000000000", true));
        Map<String, List<Part>> headers = new LinkedHashMap<>();
        TrafficMix.withMarker(r.headers(), marker).forEach((k, v) -> headers.put(k, parts(v, scenario)));
        String text = textOf(r.bodyBase64());
        byte[] raw = r.bodyBase64() == null || r.bodyBase64().isEmpty() ? new byte[0] : Base64.getDecoder().decode(r.bodyBase64());
        List<Part> textBody = text != null && PLACEHOLDER.matcher(text).find() ? parts(text, scenario) : null;
        return new RequestTemplate(plain.method(), base, path, headers, textBody, raw, timeoutMs, HttpTransport.Capture.of(r.expect()));
    }

    /**
     * The request for one send.
     *
     * @param values the values of the row drawn for this request from each bound data set, by binding (null for a
     *               binding with no rows: its placeholders render empty)
     * @param seq    the scenario's request counter
     * @param nowMs  epoch milliseconds, for {@code {{gen.timestampMs}}}
     */
    OutboundRequest render(List<List<String>> values, long seq, long nowMs) {
        String uuid = UUID.randomUUID().toString();
        String s = Long.toString(seq);
        String ts = Long.toString(nowMs);
        URI uri = URI.create(base + render(path, values, s, ts, uuid, true));
        Map<String, String> h = new LinkedHashMap<>();
        headers.forEach((k, v) -> h.put(k, render(v, values, s, ts, uuid, false).replace("\r", "").replace("\n", "")));
        byte[] body = textBody == null ? rawBody : render(textBody, values, s, ts, uuid, false).getBytes(StandardCharsets.UTF_8);
        return new OutboundRequest(uri, method, h, body, timeoutMs, capture);
    }

    private static String render(List<Part> parts, List<List<String>> values, String seq, String ts, String uuid, boolean encode) {
        StringBuilder out = new StringBuilder();
        for (Part p : parts) {
            if (p.literal() != null) {
                out.append(p.literal());
            } else if (p.generator() != null) {
                out.append(switch (p.generator()) {
                    case "uuid" -> uuid;
                    case "timestampMs" -> ts;
                    default -> seq;
                });
            } else {
                List<String> row = p.binding() < values.size() ? values.get(p.binding()) : null;
                String v = row == null ? "" : row.get(p.column());
                out.append(encode ? percentEncode(v) : v);
            }
        }
        return out.toString();
    }

    private static List<Part> parts(String text, Scenario scenario) {
        List<Part> parts = new ArrayList<>();
        Matcher m = PLACEHOLDER.matcher(text);
        int at = 0;
        while (m.find()) {
            if (m.start() > at) {
                parts.add(new Part(text.substring(at, m.start()), -1, -1, null));
            }
            if (m.group(4) != null) {
                parts.add(new Part(null, -1, -1, m.group(4)));
            } else {
                int binding = -1;
                for (int i = 0; i < scenario.data().size(); i++) {
                    if (scenario.data().get(i).dataSetId().equals(m.group(2))) {
                        binding = i;
                    }
                }
                if (binding < 0) {
                    throw new IllegalArgumentException("scenario '" + scenario.name() + "': " + m.group()
                            + " names data set '" + m.group(2) + "', which the scenario does not bind");
                }
                int column = scenario.data().get(binding).columns().indexOf(m.group(3));
                if (column < 0) {
                    throw new IllegalArgumentException("scenario '" + scenario.name() + "': " + m.group() + " names no column of data set '"
                            + m.group(2) + "' (columns: " + String.join(", ", scenario.data().get(binding).columns()) + ")");
                }
                parts.add(new Part(null, binding, column, null));
            }
            at = m.end();
        }
        if (at < text.length()) {
            parts.add(new Part(text.substring(at), -1, -1, null));
        }
        return parts;
    }

    /** The body as UTF-8 text when it is valid UTF-8, else null. */
    private static String textOf(String bodyBase64) {
        if (bodyBase64 == null || bodyBase64.isEmpty()) {
            return null;
        }
        byte[] bytes = Base64.getDecoder().decode(bodyBase64);
        String text = new String(bytes, StandardCharsets.UTF_8);
        return Arrays.equals(text.getBytes(StandardCharsets.UTF_8), bytes) ? text : null;
    }

    /** Percent-encodes every UTF-8 byte outside RFC 3986 unreserved ({@code A-Z a-z 0-9 - . _ ~}). */
    static String percentEncode(String v) {
        StringBuilder out = null;
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            boolean unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '.' || c == '_' || c == '~';
            if (!unreserved && out == null) {
                out = new StringBuilder(v.substring(0, i));
            }
            if (out != null) {
                if (unreserved) {
                    out.append(c);
                } else {
                    int end = Character.isHighSurrogate(c) && i + 1 < v.length() ? i + 2 : i + 1;
                    for (byte b : v.substring(i, end).getBytes(StandardCharsets.UTF_8)) {
                        out.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xF, 16)))
                                .append(Character.toUpperCase(Character.forDigit(b & 0xF, 16)));
                    }
                    i = end - 1;
                }
            }
        }
        return out == null ? v : out.toString();
    }
}
