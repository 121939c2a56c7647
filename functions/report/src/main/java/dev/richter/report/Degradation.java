package dev.richter.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The resilience verdict's {@value #DEFENCE} finding: whether the system, when it could not do the whole work, said so
 * (graceful) or answered as if it had (silent). Its evidence is the answers the plan's checks failed
 * ({@code check-failed}: 2xx answers with a degraded body, e.g. a circuit breaker's fallback), the answers the
 * breakers' own counters show a fallback gave ({@link Fallbacks}), and the call paths that vanished from the marked
 * traces ({@link VanishedEdges}).
 *
 * <ul>
 *   <li>FAILS, silent: answers with a 2xx status failed the plan's check at some step, or a breaker's fallback
 *       answered beyond the errors counted: the client was told success for work that was not done.</li>
 *   <li>WEAK, silent as far as the evidence goes: a call path vanished and the plan states no check on the answers, so
 *       whether the client was told cannot be seen.</li>
 *   <li>HOLDS, graceful: a call path vanished, the plan checks the answers, and every answer passed: the fallback
 *       answered as the plan says a good answer looks, and the share of degraded traces stayed bounded (below
 *       {@link #MAX_GRACEFUL_SHARE} of the entry's traces).</li>
 *   <li>FAILS too when a path vanished in more than {@link #MAX_GRACEFUL_SHARE} of the traces with checks passing: a
 *       fallback that stands in for most of the work is the system down in another form.</li>
 *   <li>NOT_OBSERVED: no degraded answer and no vanished path (or no trace read: then it says so).</li>
 * </ul>
 */
public final class Degradation {
    /** The finding's name in the resilience verdict. */
    public static final String DEFENCE = "degradation";
    /** Largest share of an entry's traces served by a fallback (a vanished path) that is still graceful. */
    public static final double MAX_GRACEFUL_SHARE = 0.5;

    private Degradation() {}

    /**
     * @param steps          the pre-test's and formal steps' figures, in run order
     * @param coverage       the vanished call paths ({@link VanishedEdges#of})
     * @param tracesRead     whether the marked traces were read (a vanished path can only be seen then)
     * @param checksStated   whether the plan states an {@code expect} on at least one request
     */
    public static Report.Finding assess(List<StepFigures> steps, VanishedEdges.Coverage coverage, boolean tracesRead,
                                        boolean checksStated) {
        List<String> vanished = coverage.vanished().stream().map(VanishedEdges::line).toList();
        Optional<StepFigures> failedChecks = steps.stream().filter(f -> f.counters().checkFailed() > 0).findFirst();
        Optional<StepFigures> fellBack = steps.stream().filter(f -> f.counters().fallbacks() > 0).findFirst();
        if (failedChecks.isPresent() || fellBack.isPresent()) {
            List<String> parts = new ArrayList<>();
            if (failedChecks.isPresent()) {
                StepFigures f = failedChecks.get();
                long all = steps.stream().mapToLong(s -> s.counters().checkFailed()).sum();
                parts.add(String.format(Locale.ROOT, "silent: %d answers failed the plan's check (%d of %d at %s, the first"
                                + " step with any): 2xx answers standing in for work not done", all,
                        f.counters().checkFailed(), f.counters().sent(), StepLabels.label(f)));
            }
            if (fellBack.isPresent()) {
                StepFigures f = fellBack.get();
                long all = steps.stream().mapToLong(s -> s.counters().fallbacks()).sum();
                parts.add(String.format(Locale.ROOT, "%s%d answers were a circuit breaker's fallback by the breakers' own"
                                + " counters of calls not permitted, beyond the errors already counted (%d of %d at %s, the"
                                + " first step with any), counted as errors", parts.isEmpty() ? "silent: " : "", all,
                        f.counters().fallbacks(), f.counters().sent(), StepLabels.label(f)));
            }
            parts.addAll(vanished);
            return new Report.Finding(DEFENCE, Report.Status.FAILS, String.join("; ", parts));
        }
        if (!vanished.isEmpty()) {
            if (!checksStated) {
                return new Report.Finding(DEFENCE, Report.Status.WEAK, "silent as far as Richter can tell: "
                        + String.join("; ", vanished) + "; the plan states no expect on its requests, so a fallback answer"
                        + " cannot be told from a good one");
            }
            double worst = coverage.vanished().stream().mapToDouble(v -> v.traces() == 0 ? 0 : (double) v.missing() / v.traces())
                    .max().orElse(0);
            if (worst > MAX_GRACEFUL_SHARE) {
                return new Report.Finding(DEFENCE, Report.Status.FAILS, String.format(Locale.ROOT,
                        "unbounded: %s; every answer passed the plan's checks, but the fallback stood in for %.0f %% of the"
                                + " traces (more than %.0f %%)", String.join("; ", vanished), 100 * worst, 100 * MAX_GRACEFUL_SHARE));
            }
            return new Report.Finding(DEFENCE, Report.Status.HOLDS, "graceful: " + String.join("; ", vanished)
                    + "; every answer passed the plan's checks");
        }
        if (!tracesRead) {
            return new Report.Finding(DEFENCE, Report.Status.NOT_OBSERVED, "no answer failed the plan's checks"
                    + (checksStated ? "" : " (it states none)") + "; the marked traces were not read, so a vanished call path"
                    + " cannot be seen");
        }
        return new Report.Finding(DEFENCE, Report.Status.NOT_OBSERVED, "no answer failed the plan's checks"
                + (checksStated ? "" : " (it states none)") + " and no call path below an entry vanished from the marked traces");
    }
}
