package dev.richter.decider;

import dev.richter.common.model.LiveLoad;

/** The run's abort flag and the monitor's heartbeat (runs table, {@code dev.richter.common.RunFlags} in production). */
public interface AbortFlag {
    /** True when the run's abort flag is set. */
    boolean isAbortRequested(String runId);

    /** Sets the abort flag with its reason (idempotent; the first reason is kept). */
    void requestAbort(String runId, String reason);

    /**
     * Records that a decision was made at {@code atMs} (epoch ms): the heartbeat workers read to stop load that is no
     * longer watched ({@code dev.richter.common.MonitorHeartbeat}). Does nothing by default (tests that do not watch it).
     */
    default void beat(String runId, long atMs) {
    }

    /**
     * As {@link #beat(String, long)}, with the step's live load as this decision read it ({@link LiveLoad}), for
     * {@code GET /runs/{runId}}. By default only the heartbeat.
     */
    default void beat(String runId, long atMs, LiveLoad live) {
        beat(runId, atMs);
    }
}
