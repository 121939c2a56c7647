package dev.richter.data.traffic;

import java.util.regex.Pattern;

/**
 * Turns a request path into its endpoint template, segment by segment, so requests to the same endpoint group
 * together: {@code /users/123/orders/9f0c...} → {@code /users/{id}/orders/{uuid}}. The query is not part of the
 * template.
 *
 * <p>A segment becomes: {@code {id}} when it is all digits; {@code {uuid}} when it is an RFC 9562 UUID (any version);
 * {@code {hex}} when it is 16 or more hexadecimal characters with at least one digit (hashes, object ids);
 * {@code {token}} when it is 20 or more characters of the base64 or base64url alphabet with both letters and digits
 * (opaque tokens, JWT parts); {@code {slot}} when it holds a scrubbed value ({@link PiiScrubber}). Any other segment
 * is kept as written, so {@code /v1/items} stays as is.
 */
public final class PathNormalizer {
    private static final Pattern NUMERIC = Pattern.compile("\\d+");
    private static final Pattern UUID = Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final Pattern HEX = Pattern.compile("(?=.*\\d)[0-9a-fA-F]{16,}");
    private static final Pattern TOKEN = Pattern.compile("(?=.*\\d)(?=.*[A-Za-z])[A-Za-z0-9+/_=-]{20,}");

    private PathNormalizer() {}

    /** The template of {@code target}'s path ({@code /} for an empty path); the query is dropped. */
    public static String template(String target) {
        int q = target.indexOf('?');
        String path = q < 0 ? target : target.substring(0, q);
        if (path.isEmpty() || path.equals("/")) {
            return "/";
        }
        String[] segments = path.split("/", -1);
        StringBuilder b = new StringBuilder();
        for (int i = 1; i < segments.length; i++) {
            b.append('/').append(segment(segments[i]));
        }
        return b.toString();
    }

    static String segment(String s) {
        if (s.isEmpty()) {
            return s;
        }
        if (s.contains("{{slot:")) {
            return "{slot}";
        }
        if (NUMERIC.matcher(s).matches()) {
            return "{id}";
        }
        if (UUID.matcher(s).matches()) {
            return "{uuid}";
        }
        if (HEX.matcher(s).matches()) {
            return "{hex}";
        }
        if (TOKEN.matcher(s).matches()) {
            return "{token}";
        }
        return s;
    }
}
