package dev.richter.local;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code key=value,key=value} settings the local stack reads from an environment variable or system property
 * ({@code RICHTER_LOCAL_LIMITS}, {@code RICHTER_LOCAL_FAULTS}).
 */
final class KeyValueSpec {
    private KeyValueSpec() {}

    /** The environment variable {@code name}, else the system property of that name; empty when both are unset or blank. */
    static Optional<String> fromEnv(String name) {
        String v = System.getenv(name);
        if (v == null || v.isBlank()) {
            v = System.getProperty(name);
        }
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(v);
    }

    /**
     * The pairs of {@code spec}, in order: separated by commas, blanks around keys and values ignored, empty pairs
     * skipped. A value cannot contain a comma.
     *
     * @param name the setting's name, which starts every error message
     * @throws IllegalArgumentException naming the key when a pair has no {@code =} or a key is given twice
     */
    static Map<String, String> pairs(String name, String spec) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String pair : spec.split(",")) {
            if (pair.isBlank()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String key = (eq < 0 ? pair : pair.substring(0, eq)).trim();
            if (eq < 0) {
                throw new IllegalArgumentException(name + ": '" + key + "' has no '=<value>'");
            }
            if (out.putIfAbsent(key, pair.substring(eq + 1).trim()) != null) {
                throw new IllegalArgumentException(name + ": '" + key + "' is given twice");
            }
        }
        return out;
    }
}
