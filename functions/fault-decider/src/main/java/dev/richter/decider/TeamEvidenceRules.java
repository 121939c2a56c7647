package dev.richter.decider;

import static dev.richter.common.ConfigCheck.atLeast;

/**
 * The rules on the team's own evidence (DESIGN.md §4 "The team's own evidence"), part of {@link DecisionRules}: stored
 * with them ({@code rules#decision} item, field {@code teamEvidence}) and reloaded every round.
 *
 * <table>
 *   <caption>Rule matrix rows</caption>
 *   <tr><th>condition</th><th>verdict</th><th>rule</th></tr>
 *   <tr><td>an alert of the team's Alertmanager fires on a core module</td><td>DAMAGED</td><td>{@code alert-firing}</td></tr>
 *   <tr><td>an alert fires on a module that is not core</td><td>SUSPECT</td><td>{@code alert-firing}</td></tr>
 *   <tr><td>a business metric breaks its expectation for {@code businessMetricSuspectRounds} judged rounds in a row</td>
 *       <td>SUSPECT</td><td>{@code business-metric}</td></tr>
 *   <tr><td>... for {@code businessMetricDamagedRounds} judged rounds in a row</td><td>DAMAGED</td><td>{@code business-metric}</td></tr>
 * </table>
 *
 * <p>A round whose metric was not read (the source failed: missing evidence), or not judged (the step's first
 * {@code businessMetricSettleMs}, a baseline expectation without {@code minBaselineSamples} pre-test values) holds the
 * count; a judged round within the expectation restarts it.
 *
 * @param businessMetricSuspectRounds judged rounds in a row past the expectation for SUSPECT, ≥ 1 (default
 *                                    {@value #DEFAULT_BUSINESS_METRIC_SUSPECT_ROUNDS})
 * @param businessMetricDamagedRounds ... for DAMAGED, ≥ 1 (default {@value #DEFAULT_BUSINESS_METRIC_DAMAGED_ROUNDS})
 * @param businessMetricSettleMs      time from a step's first round before its metrics are judged, ms, ≥ 0: a
 *                                    {@code rate(...[15s])} lags a change of the load by its range (default
 *                                    {@value #DEFAULT_BUSINESS_METRIC_SETTLE_MS})
 * @param minBaselineSamples          pre-test values a baseline expectation needs, ≥ 1 (default
 *                                    {@value #DEFAULT_MIN_BASELINE_SAMPLES})
 */
public record TeamEvidenceRules(int businessMetricSuspectRounds, int businessMetricDamagedRounds, long businessMetricSettleMs,
                                int minBaselineSamples) {
    /** Three rounds in a row past its expectation make a module SUSPECT: the "N consecutive rounds". */
    public static final int DEFAULT_BUSINESS_METRIC_SUSPECT_ROUNDS = 3;
    /** Six rounds in a row (6-12 s at the monitor's cadence) make it DAMAGED. */
    public static final int DEFAULT_BUSINESS_METRIC_DAMAGED_ROUNDS = 6;
    /** 15 s: the demo's queries use a 15 s range, so a new step's rate is whole after it. */
    public static final long DEFAULT_BUSINESS_METRIC_SETTLE_MS = 15_000;
    /** Three pre-test values make a baseline. */
    public static final int DEFAULT_MIN_BASELINE_SAMPLES = 3;

    /** @throws IllegalArgumentException naming the field and its rule */
    public TeamEvidenceRules {
        atLeast("teamEvidence.businessMetricSuspectRounds", businessMetricSuspectRounds, 1);
        atLeast("teamEvidence.businessMetricDamagedRounds", businessMetricDamagedRounds, 1);
        atLeast("teamEvidence.businessMetricSettleMs", businessMetricSettleMs, 0);
        atLeast("teamEvidence.minBaselineSamples", minBaselineSamples, 1);
    }

    /** The defaults above. */
    public static TeamEvidenceRules defaults() {
        return new TeamEvidenceRules(DEFAULT_BUSINESS_METRIC_SUSPECT_ROUNDS, DEFAULT_BUSINESS_METRIC_DAMAGED_ROUNDS,
                DEFAULT_BUSINESS_METRIC_SETTLE_MS, DEFAULT_MIN_BASELINE_SAMPLES);
    }
}
