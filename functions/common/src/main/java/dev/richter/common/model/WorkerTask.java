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
 */
public record WorkerTask(String runId, String teamId, String stage, int stepIndex, double qps, int durationS,
                         int workerIndex, int workerCount, long stepStartEpochMs, int requestTimeoutMs,
                         int maxInFlight, int latenessToleranceMs, Marker marker, List<Scenario> scenarios) {
    public WorkerTask {
        scenarios = scenarios == null ? List.of() : List.copyOf(scenarios);
        if (marker == null) {
            marker = Marker.DEFAULT;
        }
    }
}
