package dev.richter.common;

/**
 * An event that belongs to a run: the identifiers its log lines carry ({@link RunLogContext}). A handler's input
 * record implements it, and {@link JsonStreamHandler} opens the log context from it before the handler runs. Each
 * accessor may return null (a nightly action names no run, a run-level task no stage or step); a null field stays
 * unset.
 */
public interface RunScoped {
    /** The run id, or null. */
    default String runId() {
        return null;
    }

    /** The owning team, or null. */
    default String teamId() {
        return null;
    }

    /** {@code pre-test}, {@code formal} or {@code nightly}, or null. */
    default String stage() {
        return null;
    }

    /** The step within the stage (0-based), or null. */
    default Integer stepInStage() {
        return null;
    }
}
