package dev.richter.decider;

import dev.richter.common.model.HealthReport;
import java.util.List;

/**
 * Why a module got its verdict in one round (stored with the verdict).
 *
 * @param rule                 the rule that decided, e.g. {@code vote}, {@code consecutive-failures+resource},
 *                             {@code consecutive-failures}, {@code error-burst}, {@code recovered}, {@code held}, {@code healthy},
 *                             {@code saturation}, {@code no-evidence} (every report of the round was missing evidence: verdict held)
 * @param voteFraction         scaled weight of failing evidence, 0..1
 * @param failingKinds         evidence kinds that failed this round
 * @param breaches             thresholds crossed this round
 * @param consecutiveFailures  failed rounds in a row after this round
 * @param consecutiveSuccesses successful rounds in a row after this round
 * @param reports              the reports the decision used (the module's own evidence plus passive)
 * @param missingEvidence      monitoring defects of the round, each {@code <kind>: <detail>} naming the line or
 *                             status, e.g. {@code "prometheus: scrape answered HTTP 404"}; they did not vote
 * @param saturation           the {@link Saturation} signals past their thresholds this round (rule {@code saturation});
 *                             they make SUSPECT after {@code saturationConsecutiveRounds} rounds and never vote
 * @param teamEvidence         the team's own alerts and business metrics of the module this round ({@link TeamEvidence})
 */
public record VerdictEvidence(String rule, double voteFraction, List<String> failingKinds, List<Breach> breaches,
                       int consecutiveFailures, int consecutiveSuccesses, List<HealthReport> reports,
                       List<String> missingEvidence, List<Breach> saturation, TeamEvidenceRound teamEvidence) {
    public VerdictEvidence {
        failingKinds = List.copyOf(failingKinds);
        breaches = List.copyOf(breaches);
        reports = List.copyOf(reports);
        missingEvidence = missingEvidence == null ? List.of() : List.copyOf(missingEvidence);
        saturation = saturation == null ? List.of() : List.copyOf(saturation);
        teamEvidence = teamEvidence == null ? TeamEvidenceRound.none() : teamEvidence;
    }

    /** Evidence without team evidence. */
    public VerdictEvidence(String rule, double voteFraction, List<String> failingKinds, List<Breach> breaches,
                           int consecutiveFailures, int consecutiveSuccesses, List<HealthReport> reports,
                           List<String> missingEvidence, List<Breach> saturation) {
        this(rule, voteFraction, failingKinds, breaches, consecutiveFailures, consecutiveSuccesses, reports, missingEvidence,
                saturation, TeamEvidenceRound.none());
    }
}
