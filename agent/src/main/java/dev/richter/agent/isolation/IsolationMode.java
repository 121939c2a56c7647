package dev.richter.agent.isolation;

import java.util.Locale;

/** What the isolation does with a marked call that would leave the test's scope without a mock. */
public enum IsolationMode {
    /** Refuse it (the default): the call fails with an {@code IOException} naming the exit. */
    ENFORCE,
    /** Let it through and record it ({@code richter.would_refuse} on its span, a log line): to rehearse a scope. */
    REPORT;

    /**
     * @param text {@code enforce} or {@code report}, case-insensitive
     * @throws IllegalArgumentException naming the field on any other value
     */
    public static IsolationMode parse(String text) {
        switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "enforce":
                return ENFORCE;
            case "report":
                return REPORT;
            default:
                throw new IllegalArgumentException("mode: must be \"enforce\" or \"report\", got '" + text + "'");
        }
    }
}
