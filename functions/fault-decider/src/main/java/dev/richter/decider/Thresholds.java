package dev.richter.decider;

import static dev.richter.common.ConfigCheck.atLeast;
import static dev.richter.common.ConfigCheck.between;
import static dev.richter.common.ConfigCheck.positiveFraction;
import static dev.richter.common.ConfigCheck.require;

/**
 * Resource and passive-evidence thresholds (DESIGN.md §4 "Default thresholds"). Immutable; each default is a
 * {@code DEFAULT_*} constant below (its unit in its name or its docstring) and {@link #defaults()} holds them all.
 * A static threshold fires on one observation; a dynamic one (sliding mean ± kσ, EWMA control limit, % over
 * baseline) fires only once its detector holds at least {@code minSamples} observations of the current QPS step
 * (no verdict from a cold window).
 *
 * <p>Build a variant by name, never by position: {@code Thresholds.builder().heapUsedMaxRatio(0.85).build()}, or
 * {@code t.toBuilder()...build()} over other thresholds. Stored as the {@code thresholds} object of
 * {@link DecisionRules#fromJson(String)}, field names as below. A ratio threshold above 1 never fires (it switches
 * its rule off); a horizon of 0 switches the trend or exhaustion rule off.
 *
 * @param minSuccessRate            passive evidence fails when the load driver's success rate over the passive
 *                                  window is below this, 0..1 (default {@value #DEFAULT_MIN_SUCCESS_RATE})
 * @param minPassiveRequests        passive rates count only with at least this many requests in the window, ≥ 0
 *                                  (default {@value #DEFAULT_MIN_PASSIVE_REQUESTS})
 * @param p99MaxMs                  passive p99 latency above this fails, milliseconds, ≥ 0
 *                                  (default {@value #DEFAULT_P99_MAX_MS})
 * @param p99OverBaselineRatio      passive p99 above this multiple of the p99 baseline (median p99 of the warm-up's
 *                                  last step's rounds, of the pre-test's when the run has no warm-up) fails, ≥ 0
 *                                  (default {@value #DEFAULT_P99_OVER_BASELINE_RATIO})...
 * @param p99OverBaselineMinDeltaMs ...and only when it is also at least this much above the baseline, ms, ≥ 0
 *                                  (default {@value #DEFAULT_P99_OVER_BASELINE_MIN_DELTA_MS})
 * @param connectionsInUseMaxRatio  active pool connections / pool max above this is a breach, ≥ 0
 *                                  (default {@value #DEFAULT_CONNECTIONS_IN_USE_MAX_RATIO})
 * @param connectionsSigmaK         active-connection ratio above the step's sliding mean + k·σ is a breach, ≥ 0
 *                                  (default {@value #DEFAULT_CONNECTIONS_SIGMA_K})
 * @param heapUsedMaxRatio          heap used / max above this is a breach, ≥ 0 (default {@value #DEFAULT_HEAP_USED_MAX_RATIO})
 * @param heapEwmaAlpha             smoothing factor of the heap EWMA forecast, in (0, 1] (default {@value #DEFAULT_HEAP_EWMA_ALPHA})
 * @param heapEwmaControlK          heap above the EWMA forecast + k·σ (EWMA variance) is a breach, ≥ 0
 *                                  (default {@value #DEFAULT_HEAP_EWMA_CONTROL_K})
 * @param cpuMaxRatio               CPU in use above this is a breach, ≥ 0 (default {@value #DEFAULT_CPU_MAX_RATIO})
 * @param minSamples                observations a dynamic detector needs in the current step before it may fire, ≥ 1
 *                                  (default {@value #DEFAULT_MIN_SAMPLES})
 * @param slidingWindowSize         observations kept by sliding windows, ≥ {@code minSamples}
 *                                  (default {@value #DEFAULT_SLIDING_WINDOW_SIZE})
 * @param trendSamples              heap observations of the current step in the least-squares trend, ≥ 2
 *                                  (default {@value #DEFAULT_TREND_SAMPLES})
 * @param trendMinRise              the heap trend counts only when the newest sample is at least this much above the
 *                                  oldest, heap ratio, ≥ 0 (default {@value #DEFAULT_TREND_MIN_RISE})
 * @param trendHorizonS             a rising heap forecast to cross {@code heapUsedMaxRatio} within this many seconds is
 *                                  a {@code trend} breach, ≥ 0 (default {@value #DEFAULT_TREND_HORIZON_S})
 * @param exhaustionHorizonS        a heap above {@code heapUsedMaxRatio} and forecast to reach 100 % within this many
 *                                  seconds is an {@code exhaustion} breach, which makes the module DAMAGED, ≥ 0
 *                                  (default {@value #DEFAULT_EXHAUSTION_HORIZON_S}; 0 switches the rule off)
 * @param hostCpuMaxRatio           saturation: the host's CPU in use ({@code hostCpuRatio}) above this, ≥ 0
 *                                  (default {@value #DEFAULT_HOST_CPU_MAX_RATIO}); the process CPU uses {@code cpuMaxRatio}
 *                                  and pool use {@code connectionsInUseMaxRatio}
 * @param connectionsPendingMax     saturation: more threads than this waiting for a pool connection, ≥ 0
 *                                  (default {@value #DEFAULT_CONNECTIONS_PENDING_MAX})
 * @param threadPoolInUseMaxRatio   saturation: the fullest thread pool's busy / max above this, ≥ 0
 *                                  (default {@value #DEFAULT_THREAD_POOL_IN_USE_MAX_RATIO})
 * @param executorQueuedTasksMax    saturation: more tasks than this queued in instrumented executors, ≥ 0
 *                                  (default {@value #DEFAULT_EXECUTOR_QUEUED_TASKS_MAX})
 * @param gcTimeMaxFraction         saturation: GC pause seconds per wall second between two rounds above this, ≥ 0
 *                                  (default {@value #DEFAULT_GC_TIME_MAX_FRACTION})
 * @param healthLatencyOverBaselineRatio saturation: an HTTP or gRPC health probe slower than this multiple of its
 *                                  pre-test baseline (median of the pre-test rounds' latency), ≥ 0
 *                                  (default {@value #DEFAULT_HEALTH_LATENCY_OVER_BASELINE_RATIO})...
 * @param healthLatencyMinMs        ...and slower than this floor, ms, ≥ 0 (default {@value #DEFAULT_HEALTH_LATENCY_MIN_MS})
 * @param saturationConsecutiveRounds rounds in a row some saturation signal must be past its threshold for the
 *                                  {@code saturation} rule to make the module SUSPECT, ≥ 1
 *                                  (default {@value #DEFAULT_SATURATION_CONSECUTIVE_ROUNDS})
 */
public record Thresholds(double minSuccessRate, long minPassiveRequests, double p99MaxMs, double p99OverBaselineRatio,
                         double p99OverBaselineMinDeltaMs, double connectionsInUseMaxRatio, double connectionsSigmaK, double heapUsedMaxRatio,
                         double heapEwmaAlpha, double heapEwmaControlK, double cpuMaxRatio, int minSamples,
                         int slidingWindowSize, int trendSamples, double trendMinRise, double trendHorizonS,
                         double exhaustionHorizonS, double hostCpuMaxRatio, double connectionsPendingMax,
                         double threadPoolInUseMaxRatio, double executorQueuedTasksMax, double gcTimeMaxFraction,
                         double healthLatencyOverBaselineRatio, double healthLatencyMinMs, int saturationConsecutiveRounds) {
    /** Success rate below 99.9 % fails passive evidence (DESIGN.md §4). */
    public static final double DEFAULT_MIN_SUCCESS_RATE = 0.999;
    /** Requests a passive window needs before its success rate and p99 count. */
    public static final long DEFAULT_MIN_PASSIVE_REQUESTS = 10;
    /** p99 over 3000 ms fails passive evidence (DESIGN.md §4). */
    public static final double DEFAULT_P99_MAX_MS = 3000;
    /** p99 over 130 % of the p99 baseline fails passive evidence (DESIGN.md §4). */
    public static final double DEFAULT_P99_OVER_BASELINE_RATIO = 1.30;
    /** ms the p99 must also exceed the baseline by: 130 % of a 4 ms baseline is scheduling jitter, not degradation. */
    public static final double DEFAULT_P99_OVER_BASELINE_MIN_DELTA_MS = 50;
    /** Active connections over 95 % of the pool are a breach (DESIGN.md §4). */
    public static final double DEFAULT_CONNECTIONS_IN_USE_MAX_RATIO = 0.95;
    /** Active connections over the step's mean + 4σ are a breach (DESIGN.md §4). */
    public static final double DEFAULT_CONNECTIONS_SIGMA_K = 4;
    /** Heap over 90 % of max is a breach (DESIGN.md §4). */
    public static final double DEFAULT_HEAP_USED_MAX_RATIO = 0.90;
    /** Smoothing factor of the heap EWMA forecast. */
    public static final double DEFAULT_HEAP_EWMA_ALPHA = 0.3;
    /** Heap over the EWMA forecast + 3σ is a breach. */
    public static final double DEFAULT_HEAP_EWMA_CONTROL_K = 3;
    /** CPU over 95 % is a breach. */
    public static final double DEFAULT_CPU_MAX_RATIO = 0.95;
    /** Observations of the current step a dynamic detector needs before it may fire (DESIGN.md §4: no cold window). */
    public static final int DEFAULT_MIN_SAMPLES = 5;
    /** Observations a sliding window keeps: 30 rounds, 30 to 60 s at the monitor's 1–2 s waits. */
    public static final int DEFAULT_SLIDING_WINDOW_SIZE = 30;
    /** Heap samples in the least-squares trend: with the monitor's 1–2 s rounds a leak is seen rising within 4 s. */
    public static final int DEFAULT_TREND_SAMPLES = 3;
    /**
     * Least heap rise over the trend's samples for the trend to count: the full range of a healthy heap's
     * round-to-round wander in the fault-injection bench, so scrape-to-scrape noise is not a trend.
     */
    public static final double DEFAULT_TREND_MIN_RISE = 0.15;
    /** Seconds ahead a rising heap may be forecast to cross {@code heapUsedMaxRatio} before it is a breach. */
    public static final double DEFAULT_TREND_HORIZON_S = 10;
    /** Seconds ahead a heap over its threshold may be forecast to be full before the module is DAMAGED (DESIGN.md §4). */
    public static final double DEFAULT_EXHAUSTION_HORIZON_S = 5;

    /** The host's CPU over 90 % is saturation: the trial's gateway host ran full while every health answer said UP. */
    public static final double DEFAULT_HOST_CPU_MAX_RATIO = 0.90;
    /** Any thread waiting for a pool connection, round after round, is a pool that is too small for the load. */
    public static final double DEFAULT_CONNECTIONS_PENDING_MAX = 0;
    /** A thread pool over 95 % busy is saturated (the same margin as the connection pool's). */
    public static final double DEFAULT_THREAD_POOL_IN_USE_MAX_RATIO = 0.95;
    /** More than 100 tasks queued in an executor is work arriving faster than the pool drains it. */
    public static final double DEFAULT_EXECUTOR_QUEUED_TASKS_MAX = 100;
    /** More than 10 % of wall time in GC pauses: the JVM spends its time collecting, not serving. */
    public static final double DEFAULT_GC_TIME_MAX_FRACTION = 0.10;
    /** A health probe five times slower than before the test (the trial's gateway went from 40 to 450 ms). */
    public static final double DEFAULT_HEALTH_LATENCY_OVER_BASELINE_RATIO = 5;
    /** ...and slower than 200 ms: five times a 3 ms answer is scheduling jitter, not saturation. */
    public static final double DEFAULT_HEALTH_LATENCY_MIN_MS = 200;
    /** Three rounds in a row (3 to 6 s at the monitor's waits): one busy scrape is not saturation. */
    public static final int DEFAULT_SATURATION_CONSECUTIVE_ROUNDS = 3;

    private static final Thresholds DEFAULTS = new Builder().build();

    /** @throws IllegalArgumentException naming the field and its rule when a value is out of range (see the params) */
    public Thresholds {
        between("minSuccessRate", minSuccessRate, 0, 1);
        atLeast("minPassiveRequests", minPassiveRequests, 0);
        atLeast("p99MaxMs", p99MaxMs, 0);
        atLeast("p99OverBaselineRatio", p99OverBaselineRatio, 0);
        atLeast("p99OverBaselineMinDeltaMs", p99OverBaselineMinDeltaMs, 0);
        atLeast("connectionsInUseMaxRatio", connectionsInUseMaxRatio, 0);
        atLeast("connectionsSigmaK", connectionsSigmaK, 0);
        atLeast("heapUsedMaxRatio", heapUsedMaxRatio, 0);
        positiveFraction("heapEwmaAlpha", heapEwmaAlpha);
        atLeast("heapEwmaControlK", heapEwmaControlK, 0);
        atLeast("cpuMaxRatio", cpuMaxRatio, 0);
        atLeast("minSamples", minSamples, 1);
        require(slidingWindowSize >= minSamples, "slidingWindowSize", ">= minSamples (" + minSamples + ")", slidingWindowSize);
        atLeast("trendSamples", trendSamples, 2);
        atLeast("trendMinRise", trendMinRise, 0);
        atLeast("trendHorizonS", trendHorizonS, 0);
        atLeast("exhaustionHorizonS", exhaustionHorizonS, 0);
        atLeast("hostCpuMaxRatio", hostCpuMaxRatio, 0);
        atLeast("connectionsPendingMax", connectionsPendingMax, 0);
        atLeast("threadPoolInUseMaxRatio", threadPoolInUseMaxRatio, 0);
        atLeast("executorQueuedTasksMax", executorQueuedTasksMax, 0);
        atLeast("gcTimeMaxFraction", gcTimeMaxFraction, 0);
        atLeast("healthLatencyOverBaselineRatio", healthLatencyOverBaselineRatio, 0);
        atLeast("healthLatencyMinMs", healthLatencyMinMs, 0);
        atLeast("saturationConsecutiveRounds", saturationConsecutiveRounds, 1);
    }

    /** DESIGN.md §4 defaults: every field its {@code DEFAULT_*} constant. */
    public static Thresholds defaults() {
        return DEFAULTS;
    }

    /** A builder starting from {@link #defaults()}. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these thresholds. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /**
     * Sets thresholds by name; {@link #build()} validates them all (the record's rules). Not thread-safe; each
     * setter takes the unit of the record component of the same name and returns this builder.
     */
    public static final class Builder {
        private double minSuccessRate = DEFAULT_MIN_SUCCESS_RATE;
        private long minPassiveRequests = DEFAULT_MIN_PASSIVE_REQUESTS;
        private double p99MaxMs = DEFAULT_P99_MAX_MS;
        private double p99OverBaselineRatio = DEFAULT_P99_OVER_BASELINE_RATIO;
        private double p99OverBaselineMinDeltaMs = DEFAULT_P99_OVER_BASELINE_MIN_DELTA_MS;
        private double connectionsInUseMaxRatio = DEFAULT_CONNECTIONS_IN_USE_MAX_RATIO;
        private double connectionsSigmaK = DEFAULT_CONNECTIONS_SIGMA_K;
        private double heapUsedMaxRatio = DEFAULT_HEAP_USED_MAX_RATIO;
        private double heapEwmaAlpha = DEFAULT_HEAP_EWMA_ALPHA;
        private double heapEwmaControlK = DEFAULT_HEAP_EWMA_CONTROL_K;
        private double cpuMaxRatio = DEFAULT_CPU_MAX_RATIO;
        private int minSamples = DEFAULT_MIN_SAMPLES;
        private int slidingWindowSize = DEFAULT_SLIDING_WINDOW_SIZE;
        private int trendSamples = DEFAULT_TREND_SAMPLES;
        private double trendMinRise = DEFAULT_TREND_MIN_RISE;
        private double trendHorizonS = DEFAULT_TREND_HORIZON_S;
        private double exhaustionHorizonS = DEFAULT_EXHAUSTION_HORIZON_S;
        private double hostCpuMaxRatio = DEFAULT_HOST_CPU_MAX_RATIO;
        private double connectionsPendingMax = DEFAULT_CONNECTIONS_PENDING_MAX;
        private double threadPoolInUseMaxRatio = DEFAULT_THREAD_POOL_IN_USE_MAX_RATIO;
        private double executorQueuedTasksMax = DEFAULT_EXECUTOR_QUEUED_TASKS_MAX;
        private double gcTimeMaxFraction = DEFAULT_GC_TIME_MAX_FRACTION;
        private double healthLatencyOverBaselineRatio = DEFAULT_HEALTH_LATENCY_OVER_BASELINE_RATIO;
        private double healthLatencyMinMs = DEFAULT_HEALTH_LATENCY_MIN_MS;
        private int saturationConsecutiveRounds = DEFAULT_SATURATION_CONSECUTIVE_ROUNDS;

        private Builder() {}

        private Builder(Thresholds t) {
            minSuccessRate = t.minSuccessRate;
            minPassiveRequests = t.minPassiveRequests;
            p99MaxMs = t.p99MaxMs;
            p99OverBaselineRatio = t.p99OverBaselineRatio;
            p99OverBaselineMinDeltaMs = t.p99OverBaselineMinDeltaMs;
            connectionsInUseMaxRatio = t.connectionsInUseMaxRatio;
            connectionsSigmaK = t.connectionsSigmaK;
            heapUsedMaxRatio = t.heapUsedMaxRatio;
            heapEwmaAlpha = t.heapEwmaAlpha;
            heapEwmaControlK = t.heapEwmaControlK;
            cpuMaxRatio = t.cpuMaxRatio;
            minSamples = t.minSamples;
            slidingWindowSize = t.slidingWindowSize;
            trendSamples = t.trendSamples;
            trendMinRise = t.trendMinRise;
            trendHorizonS = t.trendHorizonS;
            exhaustionHorizonS = t.exhaustionHorizonS;
            hostCpuMaxRatio = t.hostCpuMaxRatio;
            connectionsPendingMax = t.connectionsPendingMax;
            threadPoolInUseMaxRatio = t.threadPoolInUseMaxRatio;
            executorQueuedTasksMax = t.executorQueuedTasksMax;
            gcTimeMaxFraction = t.gcTimeMaxFraction;
            healthLatencyOverBaselineRatio = t.healthLatencyOverBaselineRatio;
            healthLatencyMinMs = t.healthLatencyMinMs;
            saturationConsecutiveRounds = t.saturationConsecutiveRounds;
        }

        /** Success rate, 0..1. */
        public Builder minSuccessRate(double v) {
            minSuccessRate = v;
            return this;
        }

        /** Requests, ≥ 0. */
        public Builder minPassiveRequests(long v) {
            minPassiveRequests = v;
            return this;
        }

        /** Milliseconds, ≥ 0. */
        public Builder p99MaxMs(double v) {
            p99MaxMs = v;
            return this;
        }

        /** Multiple of the baseline p99, ≥ 0. */
        public Builder p99OverBaselineRatio(double v) {
            p99OverBaselineRatio = v;
            return this;
        }

        /** Milliseconds, ≥ 0. */
        public Builder p99OverBaselineMinDeltaMs(double v) {
            p99OverBaselineMinDeltaMs = v;
            return this;
        }

        /** Connections in use / pool max, ≥ 0. */
        public Builder connectionsInUseMaxRatio(double v) {
            connectionsInUseMaxRatio = v;
            return this;
        }

        /** Standard deviations, ≥ 0. */
        public Builder connectionsSigmaK(double v) {
            connectionsSigmaK = v;
            return this;
        }

        /** Heap used / max, ≥ 0. */
        public Builder heapUsedMaxRatio(double v) {
            heapUsedMaxRatio = v;
            return this;
        }

        /** Smoothing factor, in (0, 1]. */
        public Builder heapEwmaAlpha(double v) {
            heapEwmaAlpha = v;
            return this;
        }

        /** Standard deviations, ≥ 0. */
        public Builder heapEwmaControlK(double v) {
            heapEwmaControlK = v;
            return this;
        }

        /** CPU in use, ≥ 0. */
        public Builder cpuMaxRatio(double v) {
            cpuMaxRatio = v;
            return this;
        }

        /** Observations, ≥ 1. */
        public Builder minSamples(int v) {
            minSamples = v;
            return this;
        }

        /** Observations, ≥ {@code minSamples}. */
        public Builder slidingWindowSize(int v) {
            slidingWindowSize = v;
            return this;
        }

        /** Observations, ≥ 2. */
        public Builder trendSamples(int v) {
            trendSamples = v;
            return this;
        }

        /** Heap ratio, ≥ 0. */
        public Builder trendMinRise(double v) {
            trendMinRise = v;
            return this;
        }

        /** Seconds, ≥ 0. */
        public Builder trendHorizonS(double v) {
            trendHorizonS = v;
            return this;
        }

        /** Seconds, ≥ 0 (0: no exhaustion rule). */
        public Builder exhaustionHorizonS(double v) {
            exhaustionHorizonS = v;
            return this;
        }

        /** Host CPU in use, ≥ 0. */
        public Builder hostCpuMaxRatio(double v) {
            hostCpuMaxRatio = v;
            return this;
        }

        /** Waiting threads, ≥ 0. */
        public Builder connectionsPendingMax(double v) {
            connectionsPendingMax = v;
            return this;
        }

        /** Busy threads / max, ≥ 0. */
        public Builder threadPoolInUseMaxRatio(double v) {
            threadPoolInUseMaxRatio = v;
            return this;
        }

        /** Queued tasks, ≥ 0. */
        public Builder executorQueuedTasksMax(double v) {
            executorQueuedTasksMax = v;
            return this;
        }

        /** GC seconds per wall second, ≥ 0. */
        public Builder gcTimeMaxFraction(double v) {
            gcTimeMaxFraction = v;
            return this;
        }

        /** Multiple of the baseline latency, ≥ 0. */
        public Builder healthLatencyOverBaselineRatio(double v) {
            healthLatencyOverBaselineRatio = v;
            return this;
        }

        /** Milliseconds, ≥ 0. */
        public Builder healthLatencyMinMs(double v) {
            healthLatencyMinMs = v;
            return this;
        }

        /** Rounds, ≥ 1. */
        public Builder saturationConsecutiveRounds(int v) {
            saturationConsecutiveRounds = v;
            return this;
        }

        /** @throws IllegalArgumentException naming the first field out of range and its rule */
        public Thresholds build() {
            return new Thresholds(minSuccessRate, minPassiveRequests, p99MaxMs, p99OverBaselineRatio,
                    p99OverBaselineMinDeltaMs, connectionsInUseMaxRatio, connectionsSigmaK, heapUsedMaxRatio, heapEwmaAlpha,
                    heapEwmaControlK, cpuMaxRatio, minSamples, slidingWindowSize, trendSamples, trendMinRise, trendHorizonS,
                    exhaustionHorizonS, hostCpuMaxRatio, connectionsPendingMax, threadPoolInUseMaxRatio,
                    executorQueuedTasksMax, gcTimeMaxFraction, healthLatencyOverBaselineRatio, healthLatencyMinMs,
                    saturationConsecutiveRounds);
        }
    }
}
