package dev.richter.decider;

import java.util.ArrayList;
import java.util.List;

/**
 * The last few observations of one resource in the current step, for its least-squares trend: a leak shows as
 * a steady rise before the level crosses a static threshold. Immutable; a step change starts it empty.
 *
 * @param samples oldest first, at most the {@code keep} given to {@link #add}
 */
public record Trend(List<Observation> samples) {
    /**
     * One observation.
     *
     * @param atMs  epoch ms of the observation
     * @param value the resource ratio, 0..1
     */
    public record Observation(long atMs, double value) {}

    public Trend {
        samples = samples == null ? List.of() : List.copyOf(samples);
    }

    /** No observation yet. */
    public static Trend empty() {
        return new Trend(List.of());
    }

    /** This trend with {@code value} at {@code atMs} appended, keeping the newest {@code keep}. */
    public Trend add(long atMs, double value, int keep) {
        List<Observation> next = new ArrayList<>(samples);
        next.add(new Observation(atMs, value));
        while (next.size() > keep) next.removeFirst();
        return new Trend(next);
    }

    /** Newest value minus oldest value (0 with fewer than two samples). */
    public double rise() {
        return samples.size() < 2 ? 0 : samples.getLast().value() - samples.getFirst().value();
    }

    /** Least-squares slope of value over time, per second (0 with fewer than two samples or no time between them). */
    public double slopePerS() {
        int n = samples.size();
        if (n < 2) return 0;
        double t0 = samples.getFirst().atMs();
        double mt = 0;
        double mv = 0;
        for (Observation s : samples) {
            mt += (s.atMs() - t0) / 1000.0;
            mv += s.value();
        }
        mt /= n;
        mv /= n;
        double sxy = 0;
        double sxx = 0;
        for (Observation s : samples) {
            double dt = (s.atMs() - t0) / 1000.0 - mt;
            sxy += dt * (s.value() - mv);
            sxx += dt * dt;
        }
        return sxx == 0 ? 0 : sxy / sxx;
    }

    /**
     * Seconds until the newest value reaches {@code level} at the current slope: 0 when it is already there,
     * {@link Double#POSITIVE_INFINITY} when the trend is flat or falling.
     */
    public double secondsTo(double level) {
        if (samples.isEmpty()) return Double.POSITIVE_INFINITY;
        double last = samples.getLast().value();
        if (last >= level) return 0;
        double slope = slopePerS();
        return slope <= 0 ? Double.POSITIVE_INFINITY : (level - last) / slope;
    }
}
