package dev.richter.decider;

import java.util.List;

/** Reads the load driver's per-second windows (run-metrics table). */
public interface WindowReader {
    /**
     * Windows of one step whose second lies in {@code [fromEpochSecond, toEpochSecond]}, all workers.
     *
     * @param stepIndex QPS step index (stored as {@code %03d})
     */
    List<LoadWindow> windows(String runId, String stage, int stepIndex, long fromEpochSecond, long toEpochSecond);
}
