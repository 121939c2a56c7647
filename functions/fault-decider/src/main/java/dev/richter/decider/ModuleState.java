package dev.richter.decider;

import dev.richter.common.model.Verdict;

/**
 * What the decider remembers of one module between rounds (verdicts item {@code sk = state#<module>}).
 * Immutable; each decision returns the next state.
 *
 * @param module               module name
 * @param verdict              current verdict
 * @param verdictSinceMs       epoch ms when the current verdict was first reached
 * @param consecutiveFailures  failed rounds in a row (restarted by a success, or by a gap longer than the reset window)
 * @param consecutiveSuccesses successful rounds in a row
 * @param lastFailureAtMs      epoch ms of the last failed round, 0 when none
 * @param voteRounds           rounds in a row the weighted vote reached its threshold
 * @param stepKey              {@code <stage>#<stepIndex>} the dynamic detectors belong to; they restart when it changes
 * @param connections          sliding window of {@code connectionsInUseRatio} in this step
 * @param heap                 EWMA forecast of {@code heapUsedRatio} in this step
 * @param p99BaselineMs        p99 samples of the warm-up's last step so far (of the pre-test when the run has no
 *                             warm-up), milliseconds (only for the passive {@code load} pseudo-module)
 * @param heapTrend            the newest {@code heapUsedRatio} samples of this step, for the leak trend
 * @param saturation           the {@code saturation} rule's count, GC counter and health-latency baseline (kept across steps)
 * @param teamEvidence         the team's business metrics' baselines and counts ({@link TeamEvidence}; kept across steps)
 * @param breakerFallbacks     the module's circuit breakers' last not-permitted counts and the fallbacks they gave per
 *                             second ({@link BreakerFallbacks}; kept across steps)
 */
public record ModuleState(String module, Verdict.State verdict, long verdictSinceMs, int consecutiveFailures,
                          int consecutiveSuccesses, long lastFailureAtMs, int voteRounds, String stepKey,
                          SlidingWindow connections, Ewma heap, SlidingWindow p99BaselineMs, Trend heapTrend,
                          SaturationState saturation, TeamEvidenceState teamEvidence, BreakerFallbacks breakerFallbacks) {
    public ModuleState {
        verdict = verdict == null ? Verdict.State.HEALTHY : verdict;
        stepKey = stepKey == null ? "" : stepKey;
        connections = connections == null ? SlidingWindow.empty(30) : connections;
        heap = heap == null ? Ewma.empty() : heap;
        p99BaselineMs = p99BaselineMs == null ? SlidingWindow.empty(60) : p99BaselineMs;
        heapTrend = heapTrend == null ? Trend.empty() : heapTrend;
        saturation = saturation == null ? SaturationState.empty() : saturation;
        teamEvidence = teamEvidence == null ? TeamEvidenceState.empty() : teamEvidence;
        breakerFallbacks = breakerFallbacks == null ? BreakerFallbacks.empty() : breakerFallbacks;
    }

    /** This state with another breaker-fallback state. */
    public ModuleState withBreakerFallbacks(BreakerFallbacks b) {
        return new ModuleState(module, verdict, verdictSinceMs, consecutiveFailures, consecutiveSuccesses, lastFailureAtMs,
                voteRounds, stepKey, connections, heap, p99BaselineMs, heapTrend, saturation, teamEvidence, b);
    }

    /** A module never seen: HEALTHY, no counters, cold detectors. */
    public static ModuleState initial(String module, int windowSize) {
        return new ModuleState(module, Verdict.State.HEALTHY, 0, 0, 0, 0, 0, "", SlidingWindow.empty(windowSize),
                Ewma.empty(), SlidingWindow.empty(60), Trend.empty(), SaturationState.empty(), TeamEvidenceState.empty(),
                BreakerFallbacks.empty());
    }
}

