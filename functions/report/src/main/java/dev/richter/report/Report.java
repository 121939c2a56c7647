package dev.richter.report;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.MissingEvidence;
import dev.richter.common.model.Verdict;
import java.util.List;

/**
 * A run's report (DESIGN.md §1 step 6), stored as JSON and rendered as a self-contained HTML page.
 *
 * @param runId          run id
 * @param planId         plan id
 * @param teamId         team
 * @param planName       plan name
 * @param outcome        PASSED, STATIC_CHECKS_FAILED, PRE_TEST_FAILED, ABORTED or ERROR
 * @param outcomeReason  one sentence saying why (the failing check, the abort reason, the error)
 * @param generatedAtMs  epoch ms
 * @param staticChecks   static check results (empty when they did not run)
 * @param dynamicChecks  dynamic check results on the pre-test (empty when they did not run)
 * @param preTest        the pre-test step's figures (empty when it did not run)
 * @param formal         the formal steps that ran, in order
 * @param formalStepsPlanned number of formal steps in the plan
 * @param verdicts       verdict timeline: each module's first verdict and every change, in time order
 * @param capacity       max sustainable QPS and what limited it
 * @param failureMode    how the system degraded at its limit
 * @param confidence     how far the figures can be trusted
 * @param missingEvidence monitoring defects per module (evidence the probes could not collect), each a WARN
 */
public record Report(String runId, String planId, String teamId, String planName, String outcome, String outcomeReason,
                     long generatedAtMs, List<CheckResult> staticChecks, List<CheckResult> dynamicChecks,
                     List<StepFigures> preTest, List<StepFigures> formal, int formalStepsPlanned,
                     List<Verdict> verdicts, Capacity capacity, FailureMode failureMode, Confidence confidence,
                     List<MissingEvidence> missingEvidence) {
    public Report {
        missingEvidence = missingEvidence == null ? List.of() : List.copyOf(missingEvidence);
    }

    /**
     * @param maxSustainableQps highest formal step rate that met the criteria, 0 when none did
     * @param limitedBy         the first step that did not, and why; or why capacity is unknown
     * @param criteria          the criteria applied
     */
    public record Capacity(double maxSustainableQps, String limitedBy, String criteria) {}

    /**
     * @param kind     {@code none observed}, {@code graceful shedding} or {@code progressive collapse}
     * @param evidence figures behind the classification
     */
    public record FailureMode(String kind, String evidence) {}

    /**
     * @param score   0..1, 1 = figures fully trustworthy
     * @param reasons each deduction and why
     */
    public record Confidence(double score, List<String> reasons) {}
}
