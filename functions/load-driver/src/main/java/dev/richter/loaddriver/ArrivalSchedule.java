package dev.richter.loaddriver;

/**
 * When each request of one worker is due, as an offset from the step's start {@code t0}
 * (open model: due times never depend on responses).
 *
 * <p>Every implementation describes one global stream of requests {@code j = 0, 1, 2, …} for the whole
 * step (all workers) and gives worker {@code k} of {@code n} the requests {@code j ≡ k (mod n)}, so
 * worker {@code k}'s request {@code i} is global request {@code j = i·n + k}. The merged stream of all
 * workers is then exactly the single-worker stream: uniform, with exact total counts.
 */
public sealed interface ArrivalSchedule permits ConstantArrivalSchedule, RampingArrivalSchedule, LegSchedule {
    /** Requests this worker sends in the step (≥ 0). */
    long count();

    /** Due time of this worker's request {@code i} (0 ≤ i &lt; {@link #count()}), nanoseconds after t0. */
    long dueOffsetNanos(long i);

    /**
     * Requests of worker {@code k} of {@code n} when the global stream has {@code total} requests:
     * the number of {@code j < total} with {@code j % n == k}.
     */
    static long shareOf(long total, int workerIndex, int workerCount) {
        if (workerIndex >= total) {
            return 0;
        }
        return (total - 1 - workerIndex) / workerCount + 1;
    }

    /** Validates a worker index/count pair; throws {@link IllegalArgumentException} when out of range. */
    static void checkWorker(int workerIndex, int workerCount) {
        if (workerCount < 1 || workerIndex < 0 || workerIndex >= workerCount) {
            throw new IllegalArgumentException("worker " + workerIndex + " of " + workerCount + " is out of range");
        }
    }
}
