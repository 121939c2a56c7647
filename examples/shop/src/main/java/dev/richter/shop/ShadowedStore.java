package dev.richter.shop;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An in-memory key/value store with a production half and a shadow half. Marked (load-test)
 * writes and reads go only to the shadow half, unmarked ones only to the production half, so
 * {@link #productionCount()} proves that load-test traffic never touched production data.
 *
 * @param <V> the stored value type
 */
final class ShadowedStore<V> {

  /** Thrown on a marked access while the shadow store is down; never falls back to production. */
  static final class ShadowUnavailableException extends RuntimeException {
    ShadowUnavailableException() {
      super("shadow store unavailable");
    }
  }

  private final Map<String, V> production = new ConcurrentHashMap<>();
  private final Map<String, V> shadow = new ConcurrentHashMap<>();
  private final boolean shadowAvailable;

  /** @param shadowAvailable false simulates a missing/broken shadow store (health DOWN, marked writes fail) */
  ShadowedStore(boolean shadowAvailable) {
    this.shadowAvailable = shadowAvailable;
  }

  /**
   * Writes one value.
   *
   * @param marked true for load-test traffic: the write goes to the shadow half only
   * @throws ShadowUnavailableException if marked and the shadow store is down
   */
  void put(String id, V value, boolean marked) {
    half(marked).put(id, value);
  }

  /** Reads from the half the caller's marking selects; empty if absent there. */
  Optional<V> get(String id, boolean marked) {
    return Optional.ofNullable(half(marked).get(id));
  }

  private Map<String, V> half(boolean marked) {
    if (!marked) {
      return production;
    }
    if (!shadowAvailable) {
      throw new ShadowUnavailableException();
    }
    return shadow;
  }

  int productionCount() {
    return production.size();
  }

  int shadowCount() {
    return shadow.size();
  }

  boolean shadowAvailable() {
    return shadowAvailable;
  }
}
