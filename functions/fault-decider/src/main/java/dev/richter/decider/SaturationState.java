package dev.richter.decider;

/**
 * What the {@code saturation} rule remembers of one module between rounds (part of {@link ModuleState}).
 *
 * @param rounds                  rounds in a row in which some saturation signal was past its threshold
 * @param gcPauseSeconds          the module's cumulative GC pause counter at the last scrape that had it, seconds;
 *                                negative when none was seen yet
 * @param gcObservedAtMs          epoch ms of that scrape, 0 when none
 * @param healthLatencyBaselineMs the health probes' latencies in the pre-test rounds, milliseconds
 */
public record SaturationState(int rounds, double gcPauseSeconds, long gcObservedAtMs, SlidingWindow healthLatencyBaselineMs) {
    /** Pre-test rounds the health latency baseline keeps. */
    static final int BASELINE_CAPACITY = 60;

    public SaturationState {
        healthLatencyBaselineMs = healthLatencyBaselineMs == null ? SlidingWindow.empty(BASELINE_CAPACITY) : healthLatencyBaselineMs;
    }

    /** Nothing seen yet. */
    public static SaturationState empty() {
        return new SaturationState(0, -1, 0, SlidingWindow.empty(BASELINE_CAPACITY));
    }
}
