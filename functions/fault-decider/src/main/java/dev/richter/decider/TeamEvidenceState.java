package dev.richter.decider;

import java.util.Map;
import java.util.TreeMap;

/**
 * What {@link TeamEvidence} remembers of one module between rounds (part of {@link ModuleState}).
 *
 * @param stepKey         {@code <stage>#<stepIndex>} of the step whose first round started {@code stepStartedAtMs}
 * @param stepStartedAtMs epoch ms of the step's first round, for the settle time
 * @param metrics         business metric name to its baseline and count
 */
public record TeamEvidenceState(String stepKey, long stepStartedAtMs, Map<String, Metric> metrics) {
    /** Pre-test values a baseline keeps. */
    static final int BASELINE_CAPACITY = 60;

    public TeamEvidenceState {
        stepKey = stepKey == null ? "" : stepKey;
        metrics = metrics == null ? Map.of() : new TreeMap<>(metrics);
    }

    /** Nothing seen yet. */
    public static TeamEvidenceState empty() {
        return new TeamEvidenceState("", 0, Map.of());
    }

    /**
     * One business metric.
     *
     * @param baseline      its pre-test values
     * @param baselineQps   the load's achieved rate at each of those rounds, requests per second
     * @param breachRounds  judged rounds in a row past its expectation
     */
    public record Metric(SlidingWindow baseline, SlidingWindow baselineQps, int breachRounds) {
        public Metric {
            baseline = baseline == null ? SlidingWindow.empty(BASELINE_CAPACITY) : baseline;
            baselineQps = baselineQps == null ? SlidingWindow.empty(BASELINE_CAPACITY) : baselineQps;
        }

        static Metric empty() {
            return new Metric(SlidingWindow.empty(BASELINE_CAPACITY), SlidingWindow.empty(BASELINE_CAPACITY), 0);
        }
    }
}
