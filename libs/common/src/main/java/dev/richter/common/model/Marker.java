package dev.richter.common.model;

/**
 * The load-test marker carried by every request Richter sends.
 *
 * <p>Default: W3C Baggage member {@code richter-loadtest=1} in the {@code baggage} header
 * (https://www.w3.org/TR/baggage/). The header and key are configurable per team.
 *
 * @param header HTTP header that carries the marker, e.g. {@code baggage}
 * @param key    baggage member key (or header value name), e.g. {@code richter-loadtest}
 * @param value  member value, e.g. {@code 1}
 */
public record Marker(String header, String key, String value) {
    /** The default marker: {@code baggage: richter-loadtest=1}. */
    public static final Marker DEFAULT = new Marker("baggage", "richter-loadtest", "1");
}
