package dev.richter.report;

/**
 * One event of a run's timeline ({@code GET /runs/{runId}/events}, the report's timeline lane and {@code events}),
 * derived from the fault decider's stored rounds ({@link RunEvents}).
 *
 * @param atMs   epoch ms of the decision round that saw it (for {@code abort}: when the abort flag was set)
 * @param kind   {@code alert-fired}, {@code alert-resolved}, {@code verdict-changed} or {@code abort}
 * @param module the module, empty for {@code abort}
 * @param step   {@code <stage>#<stepIndex>} of the round, empty when not stored
 * @param name   the alert's name; for a verdict change {@code <from>→<to>}; for an abort {@code abort}
 * @param detail the verdict's reason, the alert's start ({@code since <ISO-8601>}), or the abort's reason
 */
public record RunEvent(long atMs, String kind, String module, String step, String name, String detail) {
    /** Kind of an alert first seen firing. */
    public static final String ALERT_FIRED = "alert-fired";
    /** Kind of an alert no longer firing. */
    public static final String ALERT_RESOLVED = "alert-resolved";
    /** Kind of a module's verdict change. */
    public static final String VERDICT_CHANGED = "verdict-changed";
    /** Kind of the run's abort. */
    public static final String ABORT = "abort";
}
