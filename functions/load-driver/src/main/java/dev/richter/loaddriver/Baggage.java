package dev.richter.loaddriver;

import java.io.ByteArrayOutputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * W3C Baggage header parsing and marker merging (https://www.w3.org/TR/baggage/).
 *
 * <p>Rules applied: list-members are separated by {@code ,} with optional whitespace; a member is
 * {@code key=value} optionally followed by {@code ;properties}; keys are tokens (RFC 7230) and are not
 * decoded; values are percent-decoded as UTF-8. A malformed member is dropped on its own — the rest of
 * the header survives (the failure in open-telemetry/opentelemetry-python#2934 was dropping the whole
 * header, corpus case {@code bugs/01}).
 */
public final class Baggage {
    private Baggage() {}

    /**
     * One list-member.
     *
     * @param key        member key (token, as written)
     * @param value      percent-decoded value
     * @param properties the raw text after the first {@code ;} (without it), empty when none
     * @param raw        the member exactly as written (trimmed), used when re-serializing unchanged members
     */
    public record Member(String key, String value, String properties, String raw) {}

    /**
     * Parses a baggage header.
     *
     * @param header header value, may be null or blank
     * @return the valid members in order; malformed members are left out
     */
    public static List<Member> parse(String header) {
        List<Member> members = new ArrayList<>();
        if (header == null) {
            return members;
        }
        for (String part : header.split(",")) {
            parseMember(part.strip()).ifPresent(members::add);
        }
        return members;
    }

    /**
     * Merges {@code key=value} into an existing baggage header: the marker member comes first (so it
     * survives truncation downstream), any previous member with the same key is replaced, every other
     * valid member is kept byte-for-byte, malformed members are dropped.
     *
     * @param existingHeader current header value, may be null
     * @param key            marker key, a token, e.g. {@code richter-loadtest}
     * @param value          marker value (raw; percent-encoded here when needed)
     * @return the merged header value
     * @throws IllegalArgumentException when {@code key} is not a token
     */
    public static String merge(String existingHeader, String key, String value) {
        if (!isToken(key)) {
            throw new IllegalArgumentException("baggage key is not a token: " + key);
        }
        StringBuilder out = new StringBuilder(key).append('=').append(encodeValue(value));
        for (Member m : parse(existingHeader)) {
            if (!m.key().equals(key)) {
                out.append(',').append(m.raw());
            }
        }
        return out.toString();
    }

    /** Percent-encodes every character outside W3C {@code baggage-octet} (and {@code %} itself), as UTF-8. */
    public static String encodeValue(String value) {
        StringBuilder sb = new StringBuilder();
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (isBaggageOctet(c) && c != '%') {
                sb.append((char) c);
            } else {
                sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return sb.toString();
    }

    private static Optional<Member> parseMember(String raw) {
        if (raw.isEmpty()) {
            return Optional.empty();
        }
        int semi = raw.indexOf(';');
        String keyValue = semi < 0 ? raw : raw.substring(0, semi);
        String properties = semi < 0 ? "" : raw.substring(semi + 1).strip();
        int eq = keyValue.indexOf('=');
        if (eq <= 0) {
            return Optional.empty();
        }
        String key = keyValue.substring(0, eq).strip();
        String rawValue = keyValue.substring(eq + 1).strip();
        if (!isToken(key)) {
            return Optional.empty();
        }
        return decodeValue(rawValue).map(v -> new Member(key, v, properties, raw));
    }

    private static Optional<String> decodeValue(String rawValue) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(rawValue.length());
        for (int i = 0; i < rawValue.length(); i++) {
            char c = rawValue.charAt(i);
            if (c == '%') {
                if (i + 2 >= rawValue.length()) {
                    return Optional.empty();
                }
                int hi = Character.digit(rawValue.charAt(i + 1), 16);
                int lo = Character.digit(rawValue.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    return Optional.empty();
                }
                bytes.write(hi << 4 | lo);
                i += 2;
            } else if (c < 0x80 && isBaggageOctet(c)) {
                bytes.write(c);
            } else {
                return Optional.empty();
            }
        }
        try {
            return Optional.of(StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray())).toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }

    /** W3C baggage-octet: %x21 / %x23-2B / %x2D-3A / %x3C-5B / %x5D-7E. */
    private static boolean isBaggageOctet(int c) {
        return c == 0x21 || (c >= 0x23 && c <= 0x2B) || (c >= 0x2D && c <= 0x3A)
                || (c >= 0x3C && c <= 0x5B) || (c >= 0x5D && c <= 0x7E);
    }

    /** RFC 7230 token. */
    static boolean isToken(String s) {
        if (s == null || s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
