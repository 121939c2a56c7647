package dev.richter.loaddriver;

/**
 * The part of a worker's step schedule that one leg owns: the worker's requests whose due offsets lie in
 * {@code [fromNanos, toNanos)} after the step's start, at their original due times.
 *
 * <p>Every leg of a step uses the same {@code t0} and the same step schedule, and the legs' ranges partition
 * the step's time, so the legs together send exactly the step's requests: no request twice, none lost, no gap
 * and no burst at a boundary, whatever the step's length.
 *
 * @param step      the worker's whole-step schedule
 * @param first     index in {@code step} of the leg's first request
 * @param end       index in {@code step} after the leg's last request
 */
public record LegSchedule(ArrivalSchedule step, long first, long end) implements ArrivalSchedule {
    /** @throws IllegalArgumentException when the index range is not inside the step */
    public LegSchedule {
        if (first < 0 || end < first || end > step.count()) {
            throw new IllegalArgumentException("leg [" + first + ", " + end + ") is outside the step's " + step.count()
                    + " requests");
        }
    }

    /**
     * The requests of {@code step} due in {@code [fromNanos, toNanos)}.
     *
     * @param step      the worker's whole-step schedule (due offsets non-decreasing)
     * @param fromNanos first due offset of the leg, nanoseconds after the step's start
     * @param toNanos   end of the leg's due offsets (exclusive), nanoseconds; {@link Long#MAX_VALUE} for the last leg
     */
    public static LegSchedule of(ArrivalSchedule step, long fromNanos, long toNanos) {
        return new LegSchedule(step, firstAtOrAfter(step, fromNanos), firstAtOrAfter(step, toNanos));
    }

    /** The smallest index whose due offset is ≥ {@code offsetNanos} ({@code step.count()} when none): binary search. */
    static long firstAtOrAfter(ArrivalSchedule step, long offsetNanos) {
        long lo = 0;
        long hi = step.count();
        while (lo < hi) {
            long mid = (lo + hi) >>> 1;
            if (step.dueOffsetNanos(mid) < offsetNanos) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    @Override
    public long count() {
        return end - first;
    }

    @Override
    public long dueOffsetNanos(long i) {
        return step.dueOffsetNanos(first + i);
    }
}
