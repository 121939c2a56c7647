package dev.richter.sizing;

import java.util.ArrayList;
import java.util.List;

/**
 * How one step runs on AWS: how many load-driver workers it fans out to, and how its duration is cut
 * into <em>legs</em> that each fit in one load-driver invocation (Lambda's 900 s limit).
 *
 * <p>Rules (one place for plan-time checks, the plan estimate and step start):
 * <ul>
 *   <li>{@code workers = ceil(qps / perWorkerQps)}, at least 1 (DESIGN.md §5);</li>
 *   <li>one invocation covers {@code workerLeadMs} of waiting for its first due time, the leg itself, the
 *       last requests' deadline ({@code requestTimeoutMs}) plus the in-flight grace, and {@code legMarginMs}
 *       for the final flush, so {@code legMs = loadDriverTimeoutS·1000 − workerLeadMs − requestTimeoutMs −
 *       IN_FLIGHT_GRACE_MS − legMarginMs}, which must be at least {@link #MIN_LEG_MS};</li>
 *   <li>leg {@code l} owns the requests due in {@code [l·legMs, (l+1)·legMs)} after the step's start (the
 *       last leg everything after), so the step's schedule is the same whatever the leg count: exact counts,
 *       no gap, no burst at a boundary.</li>
 * </ul>
 *
 * @param workers         load-driver workers per leg
 * @param legMs           length of every leg but the last, milliseconds
 * @param legs            the legs in order
 */
public record StepLayout(int workers, long legMs, List<Leg> legs) {
    /** How long a worker waits for its in-flight requests past their deadline, milliseconds (the load driver's grace). */
    public static final long IN_FLIGHT_GRACE_MS = 1_000;
    /** The shortest useful leg, milliseconds. */
    public static final long MIN_LEG_MS = 1_000;

    /**
     * One leg of a step: the requests due in {@code [startOffsetMs, endOffsetMs)} after the step's start.
     *
     * @param legIndex      0-based
     * @param startOffsetMs first due offset it owns, milliseconds after the step's start
     * @param endOffsetMs   end of its due offsets (exclusive), milliseconds; the last leg's is the step's duration
     *                      and it also owns any later due time
     * @param last          true for the step's last leg
     */
    public record Leg(int legIndex, long startOffsetMs, long endOffsetMs, boolean last) {}

    public StepLayout {
        legs = List.copyOf(legs);
    }

    /**
     * Lays out one step.
     *
     * @param qps              target rate of the whole step, requests per second, ≥ 0
     * @param durationS        step duration, seconds, &gt; 0
     * @param perWorkerQps     rate one worker sends, requests per second, &gt; 0
     * @param requestTimeoutMs deadline of each request, milliseconds
     * @param quotas           timeouts and lead times
     * @throws IllegalArgumentException when a rate is not finite, {@code perWorkerQps ≤ 0}, or the load driver's
     *                                  timeout leaves a leg shorter than {@link #MIN_LEG_MS} (the message says why)
     */
    public static StepLayout of(double qps, int durationS, double perWorkerQps, int requestTimeoutMs, Quotas quotas) {
        if (!(perWorkerQps > 0) || Double.isInfinite(perWorkerQps) || !(qps >= 0) || Double.isInfinite(qps)) {
            throw new IllegalArgumentException("rates must be finite, qps >= 0 and perWorkerQps > 0: " + qps + ", "
                    + perWorkerQps);
        }
        if (durationS <= 0) {
            throw new IllegalArgumentException("durationS must be > 0, was " + durationS);
        }
        long legMs = legMs(requestTimeoutMs, quotas);
        if (legMs < MIN_LEG_MS) {
            throw new IllegalArgumentException("a load-driver invocation of " + quotas.loadDriverTimeoutS()
                    + " s leaves " + legMs + " ms per leg after the " + quotas.workerLeadMs() + " ms worker lead, the "
                    + requestTimeoutMs + " ms request timeout, " + IN_FLIGHT_GRACE_MS + " ms in-flight grace and "
                    + quotas.legMarginMs() + " ms margin; at least " + MIN_LEG_MS + " ms is needed");
        }
        int workers = workersFor(qps, perWorkerQps);
        long durationMs = durationS * 1000L;
        List<Leg> legs = new ArrayList<>();
        for (long start = 0; start < durationMs; start += legMs) {
            legs.add(leg(legs.size(), legMs, durationMs));
        }
        return new StepLayout(workers, legMs, legs);
    }

    /** The leg length a load-driver timeout allows for this request timeout, milliseconds (may be ≤ 0). */
    public static long legMs(int requestTimeoutMs, Quotas quotas) {
        return quotas.loadDriverTimeoutS() * 1000L - quotas.workerLeadMs() - drainMs(requestTimeoutMs, quotas);
    }

    /**
     * What an invocation needs after its last send, milliseconds: the last request's deadline, the in-flight grace
     * and the margin for the final flush and result write. A worker stops sending this long before its time runs out.
     */
    public static long drainMs(int requestTimeoutMs, Quotas quotas) {
        return requestTimeoutMs + IN_FLIGHT_GRACE_MS + quotas.legMarginMs();
    }

    /**
     * The due offsets leg {@code legIndex} owns: {@code [l·legMs, min((l+1)·legMs, duration))}, the last leg being the
     * one that reaches the step's duration.
     */
    public static Leg leg(int legIndex, long legMs, long durationMs) {
        long start = legIndex * legMs;
        long end = Math.min(durationMs, start + legMs);
        return new Leg(legIndex, start, end, end >= durationMs);
    }

    /**
     * Workers for a step: {@code ceil(stepQps / perWorkerQps)}, at least 1 (DESIGN.md §5).
     *
     * @throws IllegalArgumentException when {@code perWorkerQps ≤ 0} or a rate is not finite
     */
    public static int workersFor(double stepQps, double perWorkerQps) {
        if (!(perWorkerQps > 0) || Double.isInfinite(perWorkerQps) || Double.isNaN(stepQps) || Double.isInfinite(stepQps)) {
            throw new IllegalArgumentException("rates must be finite and perWorkerQps > 0: " + stepQps + ", " + perWorkerQps);
        }
        return (int) Math.max(1, Math.ceil(stepQps / perWorkerQps - 1e-9));
    }
}
