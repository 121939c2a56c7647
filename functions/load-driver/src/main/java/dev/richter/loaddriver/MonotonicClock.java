package dev.richter.loaddriver;

import java.util.concurrent.locks.LockSupport;

/**
 * The monotonic time source of the arrival scheduler, injectable so tests run on virtual time.
 *
 * <p>{@link #nanoTime()} has the semantics of {@link System#nanoTime()}: nanoseconds from an
 * arbitrary origin, only differences are meaningful.
 */
public interface MonotonicClock {
    /** Current monotonic time, nanoseconds. */
    long nanoTime();

    /**
     * Blocks until {@link #nanoTime()} ≥ {@code deadlineNanos} (returns at once when already there).
     * May return early on interrupt; callers re-check the time.
     */
    void parkUntil(long deadlineNanos);

    /** The system clock: parks with {@link LockSupport#parkNanos} and spins for the last {@code spinNanos}. */
    static MonotonicClock system(long spinNanos) {
        return new SystemClock(spinNanos);
    }

    /** The system clock without the final spin (park only; Linux timer slack adds ~50–100 µs). */
    static MonotonicClock system() {
        return new SystemClock(0);
    }

    /**
     * {@link System#nanoTime()} and {@link LockSupport#parkNanos}; with {@code spinNanos} &gt; 0 it parks
     * until {@code spinNanos} before the deadline and busy-spins ({@link Thread#onSpinWait()}) the rest,
     * trading CPU for accuracy.
     *
     * @param spinNanos length of the final busy-spin, nanoseconds (0 = never spin)
     */
    record SystemClock(long spinNanos) implements MonotonicClock {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public void parkUntil(long deadlineNanos) {
            while (true) {
                long remainingNanos = deadlineNanos - System.nanoTime();
                if (remainingNanos <= 0 || Thread.currentThread().isInterrupted()) {
                    return;
                }
                if (remainingNanos > spinNanos) {
                    LockSupport.parkNanos(remainingNanos - spinNanos);
                } else {
                    Thread.onSpinWait();
                }
            }
        }
    }
}
