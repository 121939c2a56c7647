package dev.richter.common.model;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/**
 * Whether a span's attributes carry the load-test {@link Marker}, in the forms tracers record it: an attribute
 * {@code <key>} (the OpenTelemetry contrib baggage span processor copies each baggage member to an attribute of the
 * same name), {@code baggage.<key>} (Brave and Micrometer Tracing tag baggage fields with this prefix), or an
 * attribute named like the marker header whose value is a W3C baggage list with the member (members trimmed,
 * properties after {@code ;} ignored, values percent-decoded: W3C Baggage §3.3.1; corpus bug 01). Values are trimmed.
 *
 * <p>Works on the attribute map alone, so any module can use it without the span model of the link builder.
 */
public final class MarkerAttributes {
    /** Prefix Brave and Micrometer Tracing give baggage fields recorded as tags. */
    public static final String BAGGAGE_TAG_PREFIX = "baggage.";

    private MarkerAttributes() {}

    /** True when {@code attributes} carry {@code marker}; false for a null map. */
    public static boolean carries(Map<String, String> attributes, Marker marker) {
        if (attributes == null) {
            return false;
        }
        if (same(attributes.get(marker.key()), marker.value()) || same(attributes.get(BAGGAGE_TAG_PREFIX + marker.key()), marker.value())) {
            return true;
        }
        String header = marker.header() == null ? "" : marker.header().toLowerCase(Locale.ROOT);
        if (header.isEmpty()) {
            return false;
        }
        for (Map.Entry<String, String> e : attributes.entrySet()) {
            if (e.getKey().toLowerCase(Locale.ROOT).equals(header)
                    && (header.equals("baggage") ? baggageHas(e.getValue(), marker) : same(e.getValue(), marker.value()))) {
                return true;
            }
        }
        return false;
    }

    private static boolean same(String attributeValue, String value) {
        return attributeValue != null && attributeValue.trim().equals(value);
    }

    private static boolean baggageHas(String list, Marker marker) {
        if (list == null) {
            return false;
        }
        for (String member : list.split(",")) {
            String kv = member.split(";", 2)[0];
            int eq = kv.indexOf('=');
            if (eq <= 0 || !kv.substring(0, eq).trim().equals(marker.key())) {
                continue;
            }
            try {
                if (URLDecoder.decode(kv.substring(eq + 1).trim().replace("+", "%2B"), StandardCharsets.UTF_8).equals(marker.value())) {
                    return true;
                }
            } catch (IllegalArgumentException badEscape) {
                // a malformed member drops only itself (W3C Baggage)
            }
        }
        return false;
    }
}
