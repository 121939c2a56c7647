package dev.richter.common.model;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Whether a span's attributes carry the load-test {@link Marker}, in the forms tracers record it: an attribute
 * {@code <key>} (the OpenTelemetry contrib baggage span processor copies each baggage member to an attribute of the
 * same name), {@code baggage.<key>} (Brave and Micrometer Tracing tag baggage fields with this prefix), or an
 * attribute named like the marker header whose value is a W3C baggage list with the member (members trimmed,
 * properties after {@code ;} ignored, values percent-decoded: W3C Baggage §3.3.1; corpus bug 01). Values are trimmed.
 *
 * <p>A header captured by OpenTelemetry's instrumentations ({@code messaging.header.<name>} for Kafka and other
 * messaging, {@code http.request.header.<name>}: semantic conventions, a string array with one element per header)
 * counts too, every element read: a Kafka record may carry several {@code baggage} headers (W3C Baggage: "Multiple
 * baggage headers are allowed"; corpus bug 47), and the marker may be in any. An array arrives as the trace reader
 * keeps it: OTLP JSON's {@code {"values":[{"stringValue":...}]}} or a JSON array of strings.
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
            String key = e.getKey().toLowerCase(Locale.ROOT);
            if (key.equals(header)
                    && (header.equals("baggage") ? baggageHas(e.getValue(), marker) : same(e.getValue(), marker.value()))) {
                return true;
            }
            if (key.equals("messaging.header." + header) || key.equals("http.request.header." + header)) {
                for (String value : headerValues(e.getValue())) {
                    if (header.equals("baggage") ? baggageHas(value, marker) : same(value, marker.value())) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** The values of a captured header attribute: each element of an array (OTLP {@code arrayValue} or JSON), else the text. */
    static List<String> headerValues(String attribute) {
        String text = attribute == null ? "" : attribute.strip();
        if (!text.startsWith("[") && !text.startsWith("{\"values\"")) {
            return List.of(text);
        }
        try {
            JsonNode node = Json.MAPPER.readTree(text);
            JsonNode array = node.isArray() ? node : node.path("values");
            List<String> out = new ArrayList<>();
            for (JsonNode element : array) {
                out.add(element.isObject() ? element.path("stringValue").asText("") : element.asText(""));
            }
            return out;
        } catch (java.io.IOException notJson) {
            return List.of(text);
        }
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
