package dev.richter.loaddriver;

/**
 * Linearly ramping arrival rate from {@code startQps} to {@code endQps} over {@code durationS}.
 *
 * <p>The rate at time {@code t} is {@code r(t) = a + (b − a)·t / D}; the expected arrivals by {@code t} are
 * {@code C(t) = a·t + (b − a)·t² / (2D)}. Global request {@code j} is due when {@code C(t) = j}, i.e.
 * {@code t_j = 2j / (a + √(a² + 2·s·j))} with {@code s = (b − a)/D} (the cancellation-free root), and the
 * step has {@code ⌈C(D)⌉} requests (a ramp 0 → 10 QPS over 10 s sends 50). Worker {@code k} of {@code n}
 * takes global requests {@code j ≡ k (mod n)}, like {@link ConstantArrivalSchedule}.
 *
 * @param startQps    rate at t0, whole step, requests per second, ≥ 0
 * @param endQps      rate at t0 + duration, ≥ 0 (may be lower than {@code startQps})
 * @param durationS   ramp duration, seconds, &gt; 0
 * @param workerIndex this worker, 0-based
 * @param workerCount workers in the step, ≥ 1
 */
public record RampingArrivalSchedule(double startQps, double endQps, double durationS, int workerIndex,
                                     int workerCount) implements ArrivalSchedule {
    private static final double COUNT_EPSILON = 1e-9;

    /** @throws IllegalArgumentException on negative or non-finite rates, a non-positive duration or a bad worker */
    public RampingArrivalSchedule {
        if (!(startQps >= 0) || !(endQps >= 0) || Double.isInfinite(startQps) || Double.isInfinite(endQps)) {
            throw new IllegalArgumentException("rates must be finite and >= 0, were " + startQps + ", " + endQps);
        }
        if (!(durationS > 0) || Double.isInfinite(durationS)) {
            throw new IllegalArgumentException("durationS must be finite and > 0, was " + durationS);
        }
        ArrivalSchedule.checkWorker(workerIndex, workerCount);
    }

    /** Requests of the whole ramp, all workers: ⌈(a + b)·D / 2⌉. */
    public long totalCount() {
        return (long) Math.ceil((startQps + endQps) * durationS / 2 - COUNT_EPSILON);
    }

    @Override
    public long count() {
        return ArrivalSchedule.shareOf(totalCount(), workerIndex, workerCount);
    }

    @Override
    public long dueOffsetNanos(long i) {
        long j = i * workerCount + workerIndex;
        if (j == 0) {
            return 0;
        }
        double slopeQpsPerS = (endQps - startQps) / durationS;
        double discriminant = Math.max(0, startQps * startQps + 2 * slopeQpsPerS * j);
        double tS = 2.0 * j / (startQps + Math.sqrt(discriminant));
        return Math.round(tS * 1e9);
    }
}
