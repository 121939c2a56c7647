package dev.richter.loaddriver;

import dev.richter.common.MonitorHeartbeat;
import dev.richter.common.RunFlags;
import dev.richter.common.model.WorkerTask;
import java.util.Optional;

/**
 * The load-driver function's abort flag: the run's flag and the monitor's heartbeat, read together from the runs table
 * ({@link RunFlags#watch}, one strongly consistent {@code GetItem} per poll). A worker stops when the flag is set, or
 * when its leg's monitor has made no decision for the task's {@code monitorStaleAfterMs} ({@link MonitorHeartbeat#late});
 * in the second case it sets the flag itself, so every other worker of the run stops too.
 */
final class WatchedRunFlag implements LoadDriver.AbortSource {
    private final RunFlags flags;

    WatchedRunFlag(RunFlags flags) {
        this.flags = flags;
    }

    @Override
    public boolean isAbortRequested(String runId) {
        return flags.isAbortRequested(runId);
    }

    @Override
    public Optional<String> stopReason(WorkerTask task, long nowMs) {
        RunFlags.Watch watch = flags.watch(task.runId());
        if (watch.abortRequested()) {
            return Optional.of("abort flag set");
        }
        Optional<String> late = MonitorHeartbeat.late(nowMs, task.watchedFromEpochMs(), task.stepStartEpochMs(),
                watch.monitorBeatAtMs(), task.monitorStaleAfterMs());
        late.ifPresent(reason -> flags.requestAbort(task.runId(), reason));
        return late;
    }

    @Override
    public void requestAbort(String runId, String reason) {
        flags.requestAbort(runId, reason);
    }
}
