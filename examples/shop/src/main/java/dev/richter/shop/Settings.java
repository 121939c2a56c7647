package dev.richter.shop;

import java.time.Duration;

/**
 * Settings shared by the three services, read from the environment.
 *
 * @param bindHost address to bind ({@code SHOP_BIND_HOST}, default {@code 127.0.0.1})
 * @param threads request-handling threads per service ({@code SHOP_THREADS}, default 32)
 * @param poolSize simulated datastore pool size ({@code SHOP_POOL_SIZE}, default 20)
 * @param poolTimeoutMs wait for a free pool connection before 503, in ms ({@code SHOP_POOL_TIMEOUT_MS}, default 1000)
 * @param storeLatencyMs simulated latency of each store write or charge, in ms ({@code SHOP_STORE_LATENCY_MS}, default 2)
 * @param downstreamTimeout timeout of each downstream call ({@code SHOP_DOWNSTREAM_TIMEOUT_MS}, default 5000)
 * @param shadowStoreUp false when {@code SHOP_SHADOW_STORE_DOWN=1}: shadowStore health DOWN, marked writes 503
 * @param breakAsyncMarker {@code SHOP_BREAK_ASYNC_MARKER=1}: inventory calls payment on detached threads (marker lost)
 * @param realPayment {@code SHOP_REAL_PAYMENT=1}: placeholder, payment is called for real even for marked traffic
 *     (today it always is; the flag only documents the intent of a run)
 * @param marker the load-test marker ({@code SHOP_MARKER}, default {@code richter-loadtest=1})
 */
record Settings(String bindHost, int threads, int poolSize, long poolTimeoutMs, long storeLatencyMs,
    Duration downstreamTimeout, boolean shadowStoreUp, boolean breakAsyncMarker, boolean realPayment,
    Marker marker) {

  /** Reads every setting from the environment, with the defaults above. */
  static Settings fromEnv() {
    return new Settings(
        Env.str("SHOP_BIND_HOST", "127.0.0.1"),
        Env.integer("SHOP_THREADS", 32),
        Env.integer("SHOP_POOL_SIZE", 20),
        Env.integer("SHOP_POOL_TIMEOUT_MS", 1000),
        Env.integer("SHOP_STORE_LATENCY_MS", 2),
        Duration.ofMillis(Env.integer("SHOP_DOWNSTREAM_TIMEOUT_MS", 5000)),
        !Env.flag("SHOP_SHADOW_STORE_DOWN"),
        Env.flag("SHOP_BREAK_ASYNC_MARKER"),
        Env.flag("SHOP_REAL_PAYMENT"),
        Marker.fromEnv());
  }

  /** Defaults for tests: ephemeral-friendly, no simulated latency. */
  static Settings defaults() {
    return new Settings("127.0.0.1", 8, 4, 1000, 0, Duration.ofSeconds(5), true, false, false, Marker.DEFAULT);
  }

  ConnectionPool newPool() {
    return new ConnectionPool(poolSize, poolTimeoutMs, storeLatencyMs);
  }
}
