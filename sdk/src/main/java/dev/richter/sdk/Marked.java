package dev.richter.sdk;

import java.io.UnsupportedEncodingException;
import java.net.URLDecoder;

/**
 * Whether the request being served carries the load-test marker. Only {@link #MARKED} requests are
 * ever answered by a mock.
 */
public enum Marked {
    MARKED, UNMARKED;

    /** Default baggage member key of the marker (Richter's {@code Marker.DEFAULT}). */
    public static final String DEFAULT_KEY = "richter-loadtest";
    /** Default baggage member value of the marker. */
    public static final String DEFAULT_VALUE = "1";

    /** {@link #MARKED} when {@code marked} is true. */
    public static Marked of(boolean marked) {
        return marked ? MARKED : UNMARKED;
    }

    /**
     * Reads the incoming W3C {@code baggage} header value (https://www.w3.org/TR/baggage/): members
     * separated by {@code ,}, properties after {@code ;} ignored, whitespace trimmed, values
     * percent-decoded as UTF-8. A malformed member is skipped on its own; the others still count.
     *
     * @param baggageHeader the header value, or null when the request had none (several {@code baggage}
     *     headers may be joined with {@code ,})
     * @param key marker member key, e.g. {@value #DEFAULT_KEY}
     * @param value marker member value, e.g. {@value #DEFAULT_VALUE}
     * @return MARKED when a member {@code key=value} is present
     */
    public static Marked fromBaggage(String baggageHeader, String key, String value) {
        if (baggageHeader == null || baggageHeader.isEmpty()) {
            return UNMARKED;
        }
        for (String member : baggageHeader.split(",")) {
            String kv = member.split(";", 2)[0];
            int eq = kv.indexOf('=');
            if (eq <= 0 || !kv.substring(0, eq).trim().equals(key)) {
                continue;
            }
            try {
                String decoded = URLDecoder.decode(kv.substring(eq + 1).trim().replace("+", "%2B"), "UTF-8");
                if (decoded.equals(value)) {
                    return MARKED;
                }
            } catch (IllegalArgumentException malformed) {
                // skip this member only
            } catch (UnsupportedEncodingException e) {
                throw new IllegalStateException("every JVM has UTF-8", e);
            }
        }
        return UNMARKED;
    }

    /**
     * The value of the first member named {@code key} of a W3C {@code baggage} header that decodes (read as {@link
     * #fromBaggage} reads members), e.g. the marker's proof ({@code MarkerProof.MEMBER}).
     *
     * @param baggageHeader the header value, or null when the request had none
     * @return the percent-decoded value, or null when no member of that key decodes
     */
    public static String memberValue(String baggageHeader, String key) {
        if (baggageHeader == null || baggageHeader.isEmpty()) {
            return null;
        }
        for (String member : baggageHeader.split(",")) {
            String kv = member.split(";", 2)[0];
            int eq = kv.indexOf('=');
            if (eq <= 0 || !kv.substring(0, eq).trim().equals(key)) {
                continue;
            }
            try {
                return URLDecoder.decode(kv.substring(eq + 1).trim().replace("+", "%2B"), "UTF-8");
            } catch (IllegalArgumentException malformed) {
                // the next member of the key may decode
            } catch (UnsupportedEncodingException e) {
                throw new IllegalStateException("every JVM has UTF-8", e);
            }
        }
        return null;
    }
}
