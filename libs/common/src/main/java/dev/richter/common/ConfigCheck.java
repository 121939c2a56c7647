package dev.richter.common;

/**
 * Range checks for the fields of a configuration value ({@code Quotas}, {@code Thresholds},
 * {@code DecisionRules}), called from their canonical constructors so a builder, a JSON read and
 * an environment override are refused alike. Every refusal is an {@link IllegalArgumentException}
 * whose message names the field, the rule and the value: {@code heapEwmaAlpha must be in (0, 1], was 1.5}.
 * A double that is NaN fails every rule.
 */
public final class ConfigCheck {
    private ConfigCheck() {}

    /** @throws IllegalArgumentException {@code <field> must be >= <min>, was <value>} */
    public static void atLeast(String field, long value, long min) {
        require(value >= min, field, ">= " + min, value);
    }

    /** @throws IllegalArgumentException {@code <field> must be >= <min>, was <value>} (also when NaN) */
    public static void atLeast(String field, double value, double min) {
        require(value >= min, field, ">= " + number(min), value);
    }

    /** @throws IllegalArgumentException {@code <field> must be in [<min>, <max>], was <value>} */
    public static void between(String field, long value, long min, long max) {
        require(value >= min && value <= max, field, "in [" + min + ", " + max + "]", value);
    }

    /** @throws IllegalArgumentException {@code <field> must be in [<min>, <max>], was <value>} (also when NaN) */
    public static void between(String field, double value, double min, double max) {
        require(value >= min && value <= max, field, "in [" + number(min) + ", " + number(max) + "]", value);
    }

    /** A share that must be above 0: @throws IllegalArgumentException {@code <field> must be in (0, 1], was <value>} */
    public static void positiveFraction(String field, double value) {
        require(value > 0 && value <= 1, field, "in (0, 1]", value);
    }

    /**
     * The general form, for rules between fields ({@code slidingWindowSize must be >= minSamples (5), was 3}).
     *
     * @param rule what the value must be, read after "must be"
     * @throws IllegalArgumentException {@code <field> must be <rule>, was <value>} when {@code ok} is false
     */
    public static void require(boolean ok, String field, String rule, Object value) {
        if (!ok) {
            throw new IllegalArgumentException(field + " must be " + rule + ", was "
                    + (value instanceof Double d ? number(d) : value));
        }
    }

    /** A whole double without its {@code .0} (1 rather than 1.0), any other as {@link Double#toString(double)}. */
    private static String number(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }
}
