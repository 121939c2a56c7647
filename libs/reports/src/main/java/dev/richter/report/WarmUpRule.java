package dev.richter.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * When a warm-up has warmed its targets: the rule that ends a steadied warm-up ({@code Plan.warmUpSteps}) and that
 * the report states.
 *
 * <p><b>The rule.</b> The warm-up is steady at hold step {@code k} when the {@value #HOLDS} consecutive hold steps
 * {@code k-2, k-1, k} (steps at the warm-up's rate, each {@code Plan.warmUpHoldS} long) each answered at least
 * {@value #MIN_ANSWERS} requests, none was aborted, and over the three:
 * <ul>
 *   <li>the p50 of latency (from the intended send time) spreads by at most {@value #P50_SPREAD_PCT} % of its smallest
 *       value and the p90 by at most {@value #P90_SPREAD_PCT} %, or either by at most {@value #SPREAD_FLOOR_MS} ms (a
 *       3 ms service is steady at 4 ms);</li>
 *   <li>the error share spreads by at most {@value #ERROR_SPREAD_PCT} percentage point.</li>
 * </ul>
 * Three steps, not two, because a target still warming gets faster by a little each step: two neighbours can agree
 * within the noise while the trend over twice the time does not (the demo shop's cold variant sheds about 60 ms of
 * its 600 ms per 10 s hold). The p90, not the p99, because a 10 s hold at 20 QPS has 200 answers: its p99 is its
 * second slowest. The spreads allowed are above the sampling noise over three holds of 200 answers (a p50 varies by
 * about 4 % a hold, a p90 by about 8 %: the range of three is within 3.3 standard deviations 95 times in 100), and
 * below what a warming target moves in two holds.
 *
 * <p>A warm-up that never meets the rule ran to its bound: the formal stage then met targets that may still have
 * been warming, which the report's confidence says.
 */
public final class WarmUpRule {
    /** Consecutive hold steps the rule compares. */
    public static final int HOLDS = 3;
    /** Fewest answers of each compared hold step. */
    public static final int MIN_ANSWERS = 100;
    /** Largest spread of the p50 over the compared holds, percent of the smallest. */
    public static final double P50_SPREAD_PCT = 20;
    /** Largest spread of the p90 over the compared holds, percent of the smallest. */
    public static final double P90_SPREAD_PCT = 30;
    /** A spread this small, milliseconds, is steady whatever its percentage. */
    public static final double SPREAD_FLOOR_MS = 3;
    /** Largest spread of the error share over the compared holds, percentage points. */
    public static final double ERROR_SPREAD_PCT = 1;

    private WarmUpRule() {}

    /**
     * How a warm-up ended.
     *
     * @param steady    true when the rule was met
     * @param stepIndex the warm-up step at which it was met (steady), else the last hold step judged; -1 when none
     * @param text      the evidence, e.g. {@code steady at warm-up step 6: over steps 4-6 p50 11-12 ms, p90 19-21 ms,
     *                  errors 0.00-0.00 %}
     */
    public record End(boolean steady, int stepIndex, String text) {}

    /**
     * The first hold step at which the warm-up was steady.
     *
     * @param warmUp    the warm-up steps that ran, in step order (index order; a skipped step has no figures)
     * @param firstHold index of the first hold step ({@code Plan.warmUpFirstHold}); negative for a fixed warm-up
     * @return the end, or empty for a fixed warm-up or none
     */
    public static Optional<End> end(List<StepFigures> warmUp, int firstHold) {
        if (firstHold < 0 || warmUp.isEmpty()) {
            return Optional.empty();
        }
        List<StepFigures> holds = new ArrayList<>();
        String last = null;
        int lastIndex = -1;
        for (StepFigures f : warmUp) {
            if (f.stepIndex() < firstHold) {
                continue;
            }
            if (!holds.isEmpty() && holds.get(holds.size() - 1).stepIndex() != f.stepIndex() - 1) {
                holds.clear();
            }
            holds.add(f);
            if (holds.size() >= HOLDS) {
                List<StepFigures> three = holds.subList(holds.size() - HOLDS, holds.size());
                String unsteady = unsteady(three);
                String spreads = spreads(three);
                if (unsteady == null) {
                    return Optional.of(new End(true, f.stepIndex(), String.format(Locale.ROOT,
                            "steady at warm-up step %d: over steps %d-%d %s (p50 within %.0f %%, p90 within %.0f %%, or %.0f ms; errors"
                                    + " within %.0f point)", f.stepIndex() + 1, three.get(0).stepIndex() + 1, f.stepIndex() + 1,
                            spreads, P50_SPREAD_PCT, P90_SPREAD_PCT, SPREAD_FLOOR_MS, ERROR_SPREAD_PCT)));
                }
                last = "over steps " + (three.get(0).stepIndex() + 1) + "-" + (f.stepIndex() + 1) + " " + unsteady;
                lastIndex = f.stepIndex();
            }
        }
        int held = (int) warmUp.stream().filter(f -> f.stepIndex() >= firstHold).count();
        return Optional.of(new End(false, lastIndex, String.format(Locale.ROOT,
                "not steady after %d hold step%s%s", held, held == 1 ? "" : "s",
                last == null ? " (fewer than " + HOLDS + " in a row to compare)" : ": " + last)));
    }

    /** Why three consecutive holds are not steady, or null when they are. */
    static String unsteady(List<StepFigures> three) {
        for (StepFigures f : three) {
            long answered = f.counters().ok() + f.counters().errors();
            if (f.aborted()) {
                return "step " + (f.stepIndex() + 1) + " was aborted";
            }
            if (answered < MIN_ANSWERS) {
                return "step " + (f.stepIndex() + 1) + " answered " + answered + " requests (fewer than " + MIN_ANSWERS + ")";
            }
        }
        for (String q : List.of("p50", "p90")) {
            double pct = q.equals("p50") ? P50_SPREAD_PCT : P90_SPREAD_PCT;
            double[] range = range(three, f -> f.latencyMs().getOrDefault(q, Double.NaN));
            if (Double.isNaN(range[0])) {
                return q + " unknown";
            }
            if (range[1] - range[0] > Math.max(SPREAD_FLOOR_MS, range[0] * pct / 100)) {
                return String.format(Locale.ROOT, "%s spread %.0f-%.0f ms (%s)", q, range[0], range[1], seq(three, q));
            }
        }
        double[] errors = range(three, WarmUpRule::errorPct);
        if (errors[1] - errors[0] > ERROR_SPREAD_PCT) {
            return String.format(Locale.ROOT, "errors spread %.2f-%.2f %%", errors[0], errors[1]);
        }
        return null;
    }

    private static String spreads(List<StepFigures> three) {
        double[] p50 = range(three, f -> f.latencyMs().getOrDefault("p50", Double.NaN));
        double[] p90 = range(three, f -> f.latencyMs().getOrDefault("p90", Double.NaN));
        double[] e = range(three, WarmUpRule::errorPct);
        return String.format(Locale.ROOT, "p50 %.0f-%.0f ms, p90 %.0f-%.0f ms, errors %.2f-%.2f %%",
                p50[0], p50[1], p90[0], p90[1], e[0], e[1]);
    }

    private static String seq(List<StepFigures> three, String q) {
        StringBuilder b = new StringBuilder();
        for (StepFigures f : three) {
            b.append(b.length() == 0 ? "" : " → ").append(String.format(Locale.ROOT, "%.0f", f.latencyMs().getOrDefault(q, Double.NaN)));
        }
        return b.toString();
    }

    private static double errorPct(StepFigures f) {
        long answered = f.counters().ok() + f.counters().errors();
        return answered == 0 ? 0 : 100.0 * f.counters().errors() / answered;
    }

    private static double[] range(List<StepFigures> steps, java.util.function.ToDoubleFunction<StepFigures> v) {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (StepFigures f : steps) {
            double x = v.applyAsDouble(f);
            if (Double.isNaN(x)) {
                return new double[] {Double.NaN, Double.NaN};
            }
            min = Math.min(min, x);
            max = Math.max(max, x);
        }
        return new double[] {min, max};
    }
}
