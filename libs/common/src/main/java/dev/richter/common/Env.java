package dev.richter.common;

import java.util.Optional;

/**
 * A function's configuration value by name: the process environment (on AWS, the function's
 * {@code Environment.Variables} from {@code template.yaml}), else a JVM system property of the same
 * name. The local stack runs every function in one JVM, so it hands each function's template
 * environment over as system properties (an environment cannot be changed from inside a JVM).
 */
public final class Env {
    private Env() {}

    /** The value of {@code name}, empty when unset or blank. */
    public static Optional<String> get(String name) {
        String v = System.getenv(name);
        if (v == null || v.isBlank()) {
            v = System.getProperty(name);
        }
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.trim());
    }

    /**
     * The integer value of {@code name}, or {@code fallback} when unset.
     *
     * @throws IllegalStateException naming the variable when it is set but not an integer
     */
    public static int intValue(String name, int fallback) {
        return get(name).map(v -> {
            try {
                return Integer.parseInt(v);
            } catch (NumberFormatException e) {
                throw new IllegalStateException("environment variable " + name + " must be an integer, was '" + v + "'");
            }
        }).orElse(fallback);
    }
}
