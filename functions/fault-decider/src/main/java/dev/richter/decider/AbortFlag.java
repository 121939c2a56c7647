package dev.richter.decider;

/** The run's abort flag (runs table, {@code dev.richter.common.RunFlags} in production). */
public interface AbortFlag {
    /** True when the run's abort flag is set. */
    boolean isAbortRequested(String runId);

    /** Sets the abort flag with its reason (idempotent; the first reason is kept). */
    void requestAbort(String runId, String reason);
}
