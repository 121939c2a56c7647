package dev.richter.shop;

import java.util.List;
import java.util.Map;

/**
 * The load-test marker: a W3C baggage member (default {@code richter-loadtest=1}) whose presence
 * marks a request as load-test ("shadow") traffic.
 *
 * @param key baggage member key, e.g. {@code richter-loadtest}
 * @param value the value that marks, e.g. {@code 1}; compared after percent-decoding
 */
public record Marker(String key, String value) {

  /** Richter's default marker, {@code richter-loadtest=1} (DESIGN.md §2). */
  public static final Marker DEFAULT = new Marker("richter-loadtest", "1");

  /**
   * Reads the marker from env {@code SHOP_MARKER} ({@code key=value}); {@link #DEFAULT} when unset.
   *
   * @throws IllegalArgumentException if the variable is set but is not {@code key=value}
   */
  public static Marker fromEnv() {
    String spec = Env.str("SHOP_MARKER", "");
    if (spec.isBlank()) {
      return DEFAULT;
    }
    int eq = spec.indexOf('=');
    if (eq <= 0 || eq == spec.length() - 1) {
      throw new IllegalArgumentException("SHOP_MARKER must be key=value, got: " + spec);
    }
    return new Marker(spec.substring(0, eq).trim(), spec.substring(eq + 1).trim());
  }

  /**
   * Tells whether a request carries this marker.
   *
   * @param baggageHeaderValues all {@code baggage} header values of the request (may be null)
   * @return true if the parsed baggage holds {@code key} with exactly {@code value}
   */
  public boolean isMarked(List<String> baggageHeaderValues) {
    Map<String, String> members = Baggage.parse(baggageHeaderValues);
    return value.equals(members.get(key));
  }
}
