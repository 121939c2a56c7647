package dev.richter.checks.safety;

import dev.richter.common.model.Marker;
import dev.richter.links.trace.Span;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/**
 * Whether a span carries the load-test {@link Marker}, in any of the forms tracers record it.
 *
 * <p>A span is marked when one of its attributes says {@code key = value} (values trimmed):
 * <ol>
 *   <li>{@code <key>} — the OpenTelemetry contrib baggage span processor copies each baggage
 *       member to an attribute of the same name (the shop: {@code richter-loadtest=1});</li>
 *   <li>{@code baggage.<key>} — Brave/Micrometer tag a baggage field with this prefix (corpus bug
 *       02: {@code baggage.lt.mark=1});</li>
 *   <li>an attribute named like the marker header ({@code baggage}, case-insensitive) whose value
 *       is a W3C baggage list ({@code k=v,k2=v2;prop}) with the member; members are trimmed,
 *       properties after {@code ;} ignored, values percent-decoded (W3C Baggage §3.3.1); for a
 *       non-baggage header the attribute value itself must equal the marker value.</li>
 * </ol>
 */
public final class MarkerOnSpan {
    /** Prefix Brave and Micrometer Tracing give baggage fields recorded as tags. */
    public static final String BAGGAGE_TAG_PREFIX = "baggage.";

    private MarkerOnSpan() {}

    /** True when {@code span} carries {@code marker} (see class comment for the forms). */
    public static boolean carries(Span span, Marker marker) {
        Map<String, String> a = span.attributes();
        if (matches(a.get(marker.key()), marker) || matches(a.get(BAGGAGE_TAG_PREFIX + marker.key()), marker)) {
            return true;
        }
        String header = marker.header() == null ? "" : marker.header().toLowerCase(Locale.ROOT);
        if (header.isEmpty()) {
            return false;
        }
        for (Map.Entry<String, String> e : a.entrySet()) {
            if (e.getKey().toLowerCase(Locale.ROOT).equals(header)) {
                if (header.equals("baggage") ? baggageHas(e.getValue(), marker) : matches(e.getValue(), marker)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean matches(String attributeValue, Marker marker) {
        return attributeValue != null && attributeValue.trim().equals(marker.value());
    }

    /** True when the W3C baggage list {@code header} has the member {@code key=value}. */
    static boolean baggageHas(String header, Marker marker) {
        if (header == null) {
            return false;
        }
        for (String member : header.split(",")) {
            String kv = member.split(";", 2)[0];
            int eq = kv.indexOf('=');
            if (eq <= 0 || !kv.substring(0, eq).trim().equals(marker.key())) {
                continue;
            }
            String raw = kv.substring(eq + 1).trim();
            try {
                if (URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8).equals(marker.value())) {
                    return true;
                }
            } catch (IllegalArgumentException badEscape) {
                // a malformed member drops only itself (W3C Baggage), keep looking
            }
        }
        return false;
    }
}
