package dev.richter.decider;

import java.util.List;

/**
 * The team's own evidence of one module in one round, stored with the verdict (its {@code evidence.teamEvidence}), which
 * the report's timeline, business-metric table and problems read.
 *
 * @param alerts  the alerts firing on the module this round
 * @param metrics each business metric read this round
 */
public record TeamEvidenceRound(List<FiringAlert> alerts, List<MetricReading> metrics) {
    public TeamEvidenceRound {
        alerts = alerts == null ? List.of() : List.copyOf(alerts);
        metrics = metrics == null ? List.of() : List.copyOf(metrics);
    }

    /** No team evidence. */
    public static TeamEvidenceRound none() {
        return new TeamEvidenceRound(List.of(), List.of());
    }

    /**
     * An alert firing.
     *
     * @param name    its {@code alertname}
     * @param sinceMs epoch ms the source says it started
     */
    public record FiringAlert(String name, long sinceMs) {}

    /**
     * One business metric's value and its judgement.
     *
     * @param name         the metric's registered name
     * @param value        the value read
     * @param expected     the baseline this round compares with (scaled by the rate when load-proportional), or null
     * @param low          the lowest good value this round (bound or ratio of {@code expected}), or null
     * @param high         the highest good value this round, or null
     * @param judgement    {@code ok}, {@code breach}, {@code settling} (the step's first rounds), {@code no-baseline}
     * @param breachRounds judged rounds in a row past the expectation, after this round
     */
    public record MetricReading(String name, double value, Double expected, Double low, Double high, String judgement,
                                int breachRounds) {}
}
