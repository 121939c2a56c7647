package dev.richter.report;

import java.util.Locale;

/**
 * How people read a step: formal steps numbered from 1 ({@code stepIndex} 0 is "step 1"), the warm-up and the
 * pre-test by name. The one place that turns a stored 0-based index into text.
 */
public final class StepLabels {
    private StepLabels() {}

    /** {@code warm-up}, {@code pre-test}, {@code the confirm step} or {@code step <stepIndex + 1>}. */
    public static String name(String stage, int stepIndex) {
        return stage.equals("formal") ? "step " + (stepIndex + 1) : stage.equals("confirm") ? "the confirm step"
                : stage + (stepIndex == 0 ? "" : " " + (stepIndex + 1));
    }

    /** {@code pre-test} or {@code step <n>}, for a step's figures. */
    public static String name(StepFigures f) {
        return name(f.stage(), f.stepIndex());
    }

    /** {@code pre-test · 2 QPS} or {@code step 2 · 40 QPS}. */
    public static String label(StepFigures f) {
        return label(f.stage(), f.stepIndex(), f.targetQps());
    }

    /** {@code step 2 · 40 QPS}. */
    public static String label(String stage, int stepIndex, double qps) {
        return name(stage, stepIndex) + " \u00b7 " + qps(qps) + " QPS";
    }

    /** A rate without useless decimals: {@code 40}, {@code 0.5}, {@code 12.25}. */
    public static String qps(double qps) {
        return qps == Math.rint(qps) ? String.valueOf((long) qps) : String.format(Locale.ROOT, "%.2f", qps).replaceAll("0$", "");
    }
}
