package dev.richter.decider;

import dev.richter.common.model.LiveLoad;

import dev.richter.common.RunFlags;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * The {@link AbortFlag} of the runs table ({@link RunFlags}). Setting the flag or beating on a run item that does not
 * exist (deleted, or never created) does nothing: there is nothing left to abort and nothing watches it.
 */
public final class RunFlagsAbortFlag implements AbortFlag {
    private final RunFlags flags;

    /** @param flags the runs table's flags */
    public RunFlagsAbortFlag(RunFlags flags) {
        this.flags = flags;
    }

    @Override
    public boolean isAbortRequested(String runId) {
        return flags.isAbortRequested(runId);
    }

    @Override
    public void requestAbort(String runId, String reason) {
        try {
            flags.requestAbort(runId, reason);
        } catch (ConditionalCheckFailedException e) {
            // The run item does not exist (deleted or never created): nothing left to abort.
        }
    }

    @Override
    public void beat(String runId, long atMs) {
        try {
            flags.beat(runId, atMs);
        } catch (ConditionalCheckFailedException e) {
            // The run item does not exist: nothing watches it.
        }
    }

    @Override
    public void beat(String runId, long atMs, LiveLoad live) {
        try {
            flags.beat(runId, atMs, live);
        } catch (ConditionalCheckFailedException e) {
            // The run item does not exist: nothing watches it.
        }
    }
}
