package dev.richter.shop;

import java.util.concurrent.Callable;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A simulated datastore connection pool: {@code maxConnections} permits, each held for the duration
 * of one store operation plus {@code holdMs} of simulated I/O latency. It gives the service a real
 * saturation point (capacity ≈ maxConnections × 1000 / holdMs operations per second) and feeds the
 * {@code shop_pool_connections_*} metrics.
 */
final class ConnectionPool {

  /** Thrown when no connection frees up within the acquire timeout; the service answers 503. */
  static final class PoolExhaustedException extends RuntimeException {
    PoolExhaustedException(long timeoutMs) {
      super("no pool connection within " + timeoutMs + " ms");
    }
  }

  private final int maxConnections;
  private final long acquireTimeoutMs;
  private final long holdMs;
  private final Semaphore permits;

  /**
   * @param maxConnections pool size (≥ 1)
   * @param acquireTimeoutMs how long a caller waits for a free connection, in ms
   * @param holdMs simulated latency of each operation while holding the connection, in ms (0 = none)
   */
  ConnectionPool(int maxConnections, long acquireTimeoutMs, long holdMs) {
    if (maxConnections < 1) {
      throw new IllegalArgumentException("maxConnections must be >= 1");
    }
    this.maxConnections = maxConnections;
    this.acquireTimeoutMs = acquireTimeoutMs;
    this.holdMs = holdMs;
    this.permits = new Semaphore(maxConnections);
  }

  /**
   * Runs {@code op} while holding one connection.
   *
   * @return what {@code op} returns
   * @throws PoolExhaustedException if no connection is free within the acquire timeout
   */
  <T> T withConnection(Callable<T> op) throws Exception {
    if (!permits.tryAcquire(acquireTimeoutMs, TimeUnit.MILLISECONDS)) {
      throw new PoolExhaustedException(acquireTimeoutMs);
    }
    try {
      if (holdMs > 0) {
        Thread.sleep(holdMs);
      }
      return op.call();
    } finally {
      permits.release();
    }
  }

  /** Connections in use right now. */
  int active() {
    return maxConnections - permits.availablePermits();
  }

  /** Pool size. */
  int max() {
    return maxConnections;
  }
}
