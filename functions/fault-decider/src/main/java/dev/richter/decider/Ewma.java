package dev.richter.decider;

/**
 * Exponentially weighted moving average with an EWMA variance, used as a one-step forecast with
 * control limits ({@code forecast ± k·σ}); Roberts (1959) EWMA control chart, variance after
 * Finch, "Incremental calculation of weighted mean and variance" (2009). Immutable.
 *
 * @param mean     current forecast
 * @param variance current EWMA variance
 * @param count    observations folded in
 */
public record Ewma(double mean, double variance, int count) {
    /** No observation yet. */
    public static Ewma empty() {
        return new Ewma(0, 0, 0);
    }

    /** Folds {@code x} in with smoothing {@code alpha} (0..1]. The first observation sets the mean. */
    public Ewma update(double x, double alpha) {
        if (count == 0) return new Ewma(x, 0, 1);
        double diff = x - mean;
        double incr = alpha * diff;
        return new Ewma(mean + incr, (1 - alpha) * (variance + diff * incr), count + 1);
    }

    /** Upper control limit {@code mean + k·σ}. */
    public double upperControlLimit(double k) {
        return mean + k * Math.sqrt(variance);
    }

    /** True when at least {@code minSamples} observations were folded in and {@code x} exceeds the upper control limit. */
    public boolean isAbove(double x, double k, int minSamples) {
        return count >= minSamples && x > upperControlLimit(k);
    }
}
