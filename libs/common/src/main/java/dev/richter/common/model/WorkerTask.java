package dev.richter.common.model;

import java.util.List;

/**
 * The input of one load-driver worker for one step (one element of the state machine's worker Map).
 *
 * <p>The worker sends {@code qps / workerCount} requests per second for {@code durationS} seconds,
 * request {@code i} due at {@code stepStartEpochMs + (i + workerIndex / workerCount) / (qps / workerCount)}
 * seconds so that the merged stream of all workers is uniform.
 *
 * @param runId               run id
 * @param teamId              owning team
 * @param stage               {@code pre-test} or {@code formal}
 * @param stepIndex           0-based step index within the stage
 * @param qps                 the whole step's target rate (all workers), requests per second
 * @param durationS           step duration, seconds
 * @param workerIndex         this worker, 0-based
 * @param workerCount         number of workers in the step
 * @param stepStartEpochMs    wall-clock start shared by all workers; 0 = start now
 * @param requestTimeoutMs    deadline of each request, milliseconds
 * @param maxInFlight         in-flight cap; a due request beyond it is counted dropped
 * @param latenessToleranceMs a request sent later than this after its due time is counted late
 * @param marker              the load-test marker
 * @param scenarios           weighted scenarios
 * @param legIndex            the leg of the step this task runs (0 for a step of one leg)
 * @param legStartOffsetMs    the first due offset of the leg, milliseconds after {@code stepStartEpochMs}
 * @param legEndOffsetMs      where the leg's due offsets end (exclusive), milliseconds; {@link Long#MAX_VALUE} for the
 *                            step's last leg. The worker sends only its requests due in the leg, on the step's schedule.
 * @param monitorStaleAfterMs the leg's monitor must decide at least this often, milliseconds, or the worker stops
 *                            ({@link dev.richter.common.MonitorHeartbeat}); 0 for a worker no monitor loop watches (a
 *                            task run by hand or by a bench)
 */
public record WorkerTask(String runId, String teamId, String stage, int stepIndex, double qps, int durationS,
                         int workerIndex, int workerCount, long stepStartEpochMs, int requestTimeoutMs,
                         int maxInFlight, int latenessToleranceMs, Marker marker, List<Scenario> scenarios,
                         int legIndex, long legStartOffsetMs, long legEndOffsetMs, long monitorStaleAfterMs) {
    public WorkerTask {
        scenarios = scenarios == null ? List.of() : List.copyOf(scenarios);
        if (marker == null) {
            marker = Marker.DEFAULT;
        }
        if (legEndOffsetMs == 0 && legStartOffsetMs == 0) {
            legEndOffsetMs = Long.MAX_VALUE; // absent in JSON: the whole step
        }
    }

    /** A task of one leg that no monitor watches ({@code monitorStaleAfterMs} 0). */
    public WorkerTask(String runId, String teamId, String stage, int stepIndex, double qps, int durationS,
                      int workerIndex, int workerCount, long stepStartEpochMs, int requestTimeoutMs,
                      int maxInFlight, int latenessToleranceMs, Marker marker, List<Scenario> scenarios,
                      int legIndex, long legStartOffsetMs, long legEndOffsetMs) {
        this(runId, teamId, stage, stepIndex, qps, durationS, workerIndex, workerCount, stepStartEpochMs,
                requestTimeoutMs, maxInFlight, latenessToleranceMs, marker, scenarios, legIndex, legStartOffsetMs,
                legEndOffsetMs, 0);
    }

    /** This task with {@code marker} instead of its own (e.g. the same marker with the run's proof). */
    public WorkerTask withMarker(Marker marker) {
        return new WorkerTask(runId, teamId, stage, stepIndex, qps, durationS, workerIndex, workerCount,
                stepStartEpochMs, requestTimeoutMs, maxInFlight, latenessToleranceMs, marker, scenarios, legIndex,
                legStartOffsetMs, legEndOffsetMs, monitorStaleAfterMs);
    }

    /** When the leg's monitor loop starts, epoch ms: the leg's first due time. */
    public long watchedFromEpochMs() {
        return stepStartEpochMs + legStartOffsetMs;
    }

    /** A task for the whole step (one leg). */
    public WorkerTask(String runId, String teamId, String stage, int stepIndex, double qps, int durationS,
                      int workerIndex, int workerCount, long stepStartEpochMs, int requestTimeoutMs,
                      int maxInFlight, int latenessToleranceMs, Marker marker, List<Scenario> scenarios) {
        this(runId, teamId, stage, stepIndex, qps, durationS, workerIndex, workerCount, stepStartEpochMs,
                requestTimeoutMs, maxInFlight, latenessToleranceMs, marker, scenarios, 0, 0, Long.MAX_VALUE);
    }

    /** This worker's name in logs and reports: {@code <stage>/step <i>/leg <l>/worker <k>}. */
    public String workerName() {
        return new WorkerKey(stage, stepIndex, legIndex, workerIndex).name();
    }
}
