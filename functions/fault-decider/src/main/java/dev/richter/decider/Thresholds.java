package dev.richter.decider;

/**
 * Resource and passive-evidence thresholds (DESIGN.md §4 "Default thresholds"). Immutable; the
 * defaults live in {@link #defaults()} only. A static threshold fires on one observation; a dynamic
 * one (sliding mean ± kσ, EWMA control limit, % over baseline) fires only once its detector holds
 * at least {@code minSamples} observations of the current QPS step (no verdict from a cold window).
 *
 * @param minSuccessRate          passive evidence fails when the load driver's success rate over the
 *                                passive window is below this (default 0.999)
 * @param minPassiveRequests      passive rates count only with at least this many requests in the window (default 10)
 * @param p99MaxMs                passive p99 latency above this fails, milliseconds (default 3000)
 * @param p99OverBaselineRatio    passive p99 above this multiple of the pre-test baseline (median of the
 *                                pre-test rounds' p99) fails (default 1.30)...
 * @param p99OverBaselineMinDeltaMs ...and only when it is also at least this much above the baseline, ms
 *                                (default 50: 130 % of a 4 ms baseline is scheduling jitter, not degradation)
 * @param connectionsInUseMaxRatio active pool connections / pool max above this is a breach (default 0.95)
 * @param connectionsSigmaK       active-connection ratio above the step's sliding mean + k·σ is a breach (default 4)
 * @param heapUsedMaxRatio        heap used / max above this is a breach (default 0.90)
 * @param heapEwmaAlpha           smoothing factor of the heap EWMA forecast, 0..1 (default 0.3)
 * @param heapEwmaControlK        heap above the EWMA forecast + k·σ (EWMA variance) is a breach (default 3)
 * @param cpuMaxRatio             CPU in use above this is a breach (default 0.95)
 * @param minSamples              observations a dynamic detector needs in the current step before it may fire (default 5)
 * @param slidingWindowSize       observations kept by sliding windows (default 30)
 * @param trendSamples            heap observations of the current step in the least-squares trend (default 3: with the
 *                                monitor's 1–2 s rounds, a leak is seen rising within 4 s)
 * @param trendMinRise            the heap trend counts only when the newest sample is at least this much above the
 *                                oldest (default 0.15, the full range of a healthy heap's round-to-round wander in the
 *                                fault-injection bench), so scrape-to-scrape noise is not a trend
 * @param trendHorizonS           a rising heap forecast to cross {@code heapUsedMaxRatio} within this many seconds is a
 *                                {@code trend} breach (default 10)
 * @param exhaustionHorizonS      a heap above {@code heapUsedMaxRatio} and forecast to reach 100 % within this many seconds
 *                                is an {@code exhaustion} breach, which makes the module DAMAGED (default 5; 0 switches
 *                                the rule off)
 */
public record Thresholds(double minSuccessRate, long minPassiveRequests, double p99MaxMs, double p99OverBaselineRatio,
                         double p99OverBaselineMinDeltaMs, double connectionsInUseMaxRatio, double connectionsSigmaK, double heapUsedMaxRatio,
                         double heapEwmaAlpha, double heapEwmaControlK, double cpuMaxRatio, int minSamples,
                         int slidingWindowSize, int trendSamples, double trendMinRise, double trendHorizonS,
                         double exhaustionHorizonS) {
    private static final Thresholds DEFAULTS =
            new Thresholds(0.999, 10, 3000, 1.30, 50, 0.95, 4, 0.90, 0.3, 3, 0.95, 5, 30, 3, 0.15, 10, 5);

    public Thresholds {
        if (minSuccessRate < 0 || minSuccessRate > 1) throw new IllegalArgumentException("minSuccessRate must be in 0..1");
        if (heapEwmaAlpha <= 0 || heapEwmaAlpha > 1) throw new IllegalArgumentException("heapEwmaAlpha must be in (0,1]");
        if (minSamples < 1) throw new IllegalArgumentException("minSamples must be >= 1");
        if (slidingWindowSize < minSamples) throw new IllegalArgumentException("slidingWindowSize must be >= minSamples");
        if (trendSamples < 2) throw new IllegalArgumentException("trendSamples must be >= 2");
        if (trendHorizonS < 0 || exhaustionHorizonS < 0) throw new IllegalArgumentException("trend horizons must be >= 0");
    }

    /** DESIGN.md §4 defaults. */
    public static Thresholds defaults() {
        return DEFAULTS;
    }
}
