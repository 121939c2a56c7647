package dev.richter.loaddriver;

import java.util.PriorityQueue;

/**
 * Deterministic virtual time for tests: {@link #parkUntil} jumps forward, running timers due on the way
 * (in time order, on the parking thread). Not thread-safe beyond that single-thread use.
 */
final class VirtualClock implements MonotonicClock {
    private record Timer(long atNanos, long seq, Runnable action) {}

    private final PriorityQueue<Timer> timers = new PriorityQueue<>(
            (a, b) -> a.atNanos != b.atNanos ? Long.compare(a.atNanos, b.atNanos) : Long.compare(a.seq, b.seq));
    private long nowNanos;
    private long seq;

    VirtualClock(long startNanos) {
        this.nowNanos = startNanos;
    }

    @Override
    public synchronized long nanoTime() {
        return nowNanos;
    }

    @Override
    public void parkUntil(long deadlineNanos) {
        while (true) {
            Timer t;
            synchronized (this) {
                t = timers.peek();
                if (t == null || t.atNanos > deadlineNanos) {
                    nowNanos = Math.max(nowNanos, deadlineNanos);
                    return;
                }
                timers.poll();
                nowNanos = Math.max(nowNanos, t.atNanos);
            }
            t.action.run();
        }
    }

    /** Moves time forward without running timers (a slow dispatch). */
    synchronized void advance(long nanos) {
        nowNanos += nanos;
    }

    /** Runs {@code action} when virtual time reaches {@code atNanos}. */
    synchronized void at(long atNanos, Runnable action) {
        timers.add(new Timer(atNanos, seq++, action));
    }
}
