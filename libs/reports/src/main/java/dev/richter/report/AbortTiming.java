package dev.richter.report;

import dev.richter.common.model.WorkerResult;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * How fast an aborted run stopped, from the workers' own results: the figures an operator who pressed abort needs,
 * in {@code GET /runs/{runId}}, the report and the {@code Run Aborted} event (and so its notifications).
 *
 * @param requestedAtMs when the abort flag was first set, epoch ms ({@code RunFlags.abortRequestedAtMs})
 * @param latencyMs     from the flag to the last send of any of the run's workers
 *                      ({@link WorkerResult#lastSentAtMs()}), milliseconds, at least 0 (sends that had all stopped
 *                      before the flag read 0); null when no worker was aborted or none reported a last send
 * @param drainMs       from the flag to the end of the last worker that stopped because of it
 *                      ({@link WorkerResult#endedAtMs()} of the aborted results), milliseconds, at least 0: the
 *                      in-flight requests answering or timing out, up to the plan's {@code requestTimeoutMs}; null
 *                      when no worker was aborted
 */
public record AbortTiming(long requestedAtMs, Long latencyMs, Long drainMs) {

    /**
     * The timing of an abort set at {@code abortRequestedAtMs}, over the run's worker results so far.
     *
     * @return empty when the flag's time is unknown (no abort, or a flag written before its time was recorded)
     */
    public static Optional<AbortTiming> of(OptionalLong abortRequestedAtMs, List<WorkerResult> results) {
        if (abortRequestedAtMs.isEmpty()) {
            return Optional.empty();
        }
        long at = abortRequestedAtMs.getAsLong();
        boolean anyAborted = results.stream().anyMatch(WorkerResult::aborted);
        long lastSend = results.stream().mapToLong(WorkerResult::lastSentAtMs).max().orElse(0);
        Long latency = anyAborted && lastSend > 0 ? Math.max(0, lastSend - at) : null;
        OptionalLong lastStop = results.stream().filter(WorkerResult::aborted).mapToLong(WorkerResult::endedAtMs).max();
        Long drain = lastStop.isPresent() ? Math.max(0, lastStop.getAsLong() - at) : null;
        return Optional.of(new AbortTiming(at, latency, drain));
    }
}
