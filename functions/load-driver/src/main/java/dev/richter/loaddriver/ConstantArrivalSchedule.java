package dev.richter.loaddriver;

/**
 * Constant arrival rate: global request {@code j} is due at {@code j / qps} seconds, for
 * {@code j < qps · durationS} (exact: 2 QPS × 30 s = 60 requests, 0.5 QPS × 30 s = 15; a fractional
 * product is rounded up, e.g. 0.5 QPS × 3 s = 2 requests at 0 s and 2 s).
 *
 * <p>Worker {@code k} of {@code n} sends {@code qps / n} and is phase-shifted by {@code k / qps} seconds
 * (its request {@code i} is due at {@code (i·n + k) / qps}), as in {@code WorkerTask}.
 *
 * @param qps         the whole step's rate (all workers), requests per second, ≥ 0 (sub-1 rates allowed)
 * @param durationS   step duration, seconds, &gt; 0
 * @param workerIndex this worker, 0-based
 * @param workerCount workers in the step, ≥ 1
 */
public record ConstantArrivalSchedule(double qps, double durationS, int workerIndex, int workerCount)
        implements ArrivalSchedule {
    /** Tolerance for the product qps × duration, so 0.1 × 30 counts as exactly 3, not 4. */
    private static final double COUNT_EPSILON = 1e-9;

    /** @throws IllegalArgumentException on a negative or non-finite rate, a non-positive duration or a bad worker */
    public ConstantArrivalSchedule {
        if (!(qps >= 0) || Double.isInfinite(qps)) {
            throw new IllegalArgumentException("qps must be finite and >= 0, was " + qps);
        }
        if (!(durationS > 0) || Double.isInfinite(durationS)) {
            throw new IllegalArgumentException("durationS must be finite and > 0, was " + durationS);
        }
        ArrivalSchedule.checkWorker(workerIndex, workerCount);
    }

    /** A single worker's schedule (worker 0 of 1). */
    public static ConstantArrivalSchedule single(double qps, double durationS) {
        return new ConstantArrivalSchedule(qps, durationS, 0, 1);
    }

    /** Requests of the whole step, all workers. */
    public long totalCount() {
        return (long) Math.ceil(qps * durationS - COUNT_EPSILON);
    }

    @Override
    public long count() {
        return ArrivalSchedule.shareOf(totalCount(), workerIndex, workerCount);
    }

    @Override
    public long dueOffsetNanos(long i) {
        long j = i * workerCount + workerIndex;
        return Math.round(j * 1e9 / qps);
    }
}
