package dev.richter.decider;

import java.util.ArrayList;
import java.util.List;

/**
 * The last {@code capacity} observations of one metric, for the "mean ± k·σ" rule. Immutable: {@link #add}
 * returns a new window. σ is the population standard deviation of the window.
 *
 * @param values   oldest first
 * @param capacity most values kept
 */
public record SlidingWindow(List<Double> values, int capacity) {
    public SlidingWindow {
        values = values == null ? List.of() : List.copyOf(values);
    }

    /** An empty window. */
    public static SlidingWindow empty(int capacity) {
        return new SlidingWindow(List.of(), capacity);
    }

    /** This window with {@code x} appended (the oldest dropped beyond capacity). */
    public SlidingWindow add(double x) {
        List<Double> v = new ArrayList<>(values);
        v.add(x);
        while (v.size() > capacity) v.removeFirst();
        return new SlidingWindow(v, capacity);
    }

    /** Arithmetic mean; 0 when empty. */
    public double mean() {
        return values.stream().mapToDouble(Double::doubleValue).average().orElse(0);
    }

    /** Population standard deviation; 0 when empty. */
    public double stddev() {
        double m = mean();
        return Math.sqrt(values.stream().mapToDouble(x -> (x - m) * (x - m)).average().orElse(0));
    }

    /** Median; 0 when empty. */
    public double median() {
        if (values.isEmpty()) return 0;
        List<Double> s = values.stream().sorted().toList();
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    /** Upper limit {@code mean + k·σ}. */
    public double upperLimit(double k) {
        return mean() + k * stddev();
    }

    /** True when at least {@code minSamples} values are held and {@code x} exceeds {@code mean + k·σ}. */
    public boolean isAbove(double x, double k, int minSamples) {
        return values.size() >= minSamples && x > upperLimit(k);
    }
}
