package dev.richter.decider;

import java.util.List;

/**
 * When the fault decider sets the run's abort flag. Default: any DAMAGED core module, or an error
 * rate over 50 % for 10 s.
 *
 * @param conditions any one holding aborts the run; empty means never abort automatically
 */
public record AbortPolicy(List<AbortCondition> conditions) {
    private static final AbortPolicy DEFAULTS = new AbortPolicy(List.of(
            new AbortCondition.AnyDamagedCoreModule(), new AbortCondition.ErrorRateOver(0.5, 10)));

    public AbortPolicy {
        conditions = conditions == null ? List.of() : List.copyOf(conditions);
    }

    /** Any DAMAGED core module, or error rate over 50 % for 10 s. */
    public static AbortPolicy defaults() {
        return DEFAULTS;
    }

    /** The longest passive look-back a condition needs, seconds (0 when none uses passive evidence). */
    public int passiveSecondsNeeded() {
        int s = 0;
        for (AbortCondition c : conditions) {
            if (c instanceof AbortCondition.ErrorRateOver e) s = Math.max(s, e.forSeconds());
        }
        return s;
    }
}
