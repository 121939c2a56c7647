package dev.richter.loaddriver;

import java.util.function.BooleanSupplier;

/**
 * Runs an {@link ArrivalSchedule} on the calling thread: for each request {@code i} it parks until
 * {@code t0 + dueOffset(i)} and hands the request to a {@link Dispatch}. Due times are absolute, so
 * sleep overshoot never accumulates, and a dispatch that returns late only makes the next requests
 * late (they are dispatched at once, with their original due time) — never shifts the schedule.
 *
 * <p>Parking happens in slices of at most {@code maxParkSliceNanos} so a stop request is noticed within
 * one slice even at sub-1 QPS rates.
 */
public final class ArrivalScheduler {
    /** Receives each due request. Runs on the scheduler thread: must not block. */
    @FunctionalInterface
    public interface Dispatch {
        /**
         * @param index     the worker's request index, 0-based
         * @param dueNanos  due time ({@link Clock} nanos)
         * @param nowNanos  the clock when the scheduler woke for it (≥ dueNanos)
         */
        void onDue(long index, long dueNanos, long nowNanos);
    }

    /** Default longest single park, nanoseconds (50 ms: a stop is noticed within 50 ms). */
    public static final long DEFAULT_MAX_PARK_SLICE_NANOS = 50_000_000L;

    private final Clock clock;
    private final long maxParkSliceNanos;

    /**
     * @param clock             time source
     * @param maxParkSliceNanos longest single park, nanoseconds, &gt; 0
     */
    public ArrivalScheduler(Clock clock, long maxParkSliceNanos) {
        if (maxParkSliceNanos <= 0) {
            throw new IllegalArgumentException("maxParkSliceNanos must be > 0");
        }
        this.clock = clock;
        this.maxParkSliceNanos = maxParkSliceNanos;
    }

    /** A scheduler with {@link #DEFAULT_MAX_PARK_SLICE_NANOS}. */
    public ArrivalScheduler(Clock clock) {
        this(clock, DEFAULT_MAX_PARK_SLICE_NANOS);
    }

    /**
     * Dispatches every request of {@code schedule} at its due time, until the schedule ends or
     * {@code stop} turns true (checked before each request and between park slices).
     *
     * @param schedule the worker's schedule
     * @param t0Nanos  step start ({@link Clock} nanos); may be in the future
     * @param stop     stop condition (e.g. the abort flag)
     * @param dispatch receives each due request
     * @return requests dispatched (= {@code schedule.count()} unless stopped)
     */
    public long run(ArrivalSchedule schedule, long t0Nanos, BooleanSupplier stop, Dispatch dispatch) {
        long count = schedule.count();
        long dispatched = 0;
        for (long i = 0; i < count; i++) {
            long dueNanos = t0Nanos + schedule.dueOffsetNanos(i);
            long nowNanos = clock.nanoTime();
            while (nowNanos - dueNanos < 0) {
                if (stop.getAsBoolean()) {
                    return dispatched;
                }
                long sliceEnd = dueNanos - nowNanos > maxParkSliceNanos ? nowNanos + maxParkSliceNanos : dueNanos;
                clock.parkUntil(sliceEnd);
                nowNanos = clock.nanoTime();
            }
            if (stop.getAsBoolean()) {
                return dispatched;
            }
            dispatch.onDue(i, dueNanos, nowNanos);
            dispatched++;
        }
        return dispatched;
    }
}
