package dev.richter.runs;

import dev.richter.common.Repositories;
import dev.richter.common.RunFlags;
import dev.richter.common.TaskErrors;
import dev.richter.common.model.CaughtError;
import dev.richter.common.model.Run;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The end of every run: the state machines' {@code ReleaseLeases} states, after the report and when the report fails,
 * so every path of a run ends with its targets free. Reads the run's team and {@code leasedServices} from the runs
 * table and deletes the leases the run still holds ({@link RunLeases}). Idempotent; an unknown run releases nothing.
 */
public final class RunRelease {
    private final Repositories repositories;
    private final RunLeases leases;
    private final RunFlags flags;

    /** @param repositories the runs and leases tables */
    public RunRelease(Repositories repositories) {
        this.repositories = repositories;
        this.leases = new RunLeases(repositories.dynamoDb(), repositories.tables().leases(), Clock.systemUTC());
        this.flags = new RunFlags(repositories.dynamoDb(), repositories.tables().runs());
    }

    /**
     * Releases the run's leases. With {@code reportError} (no report could be written), a run that is not
     * {@code COMPLETED} is first marked {@code FAILED} (outcome {@code ERROR}) with {@code failureReason}
     * {@code report failed: <Error> (<message>)} and its abort flag set, so no run is left {@code RUNNING}.
     *
     * @param runId       the run
     * @param reportError the report's caught error, or null when the report was written
     * @return the services released, in the order the run leased them; empty for an unknown run
     * @throws IllegalArgumentException when runId is blank
     */
    public List<String> release(String runId, CaughtError reportError) {
        if (runId == null || runId.isBlank()) {
            throw new IllegalArgumentException("input needs a runId");
        }
        Optional<Run> run = repositories.getRun(runId);
        if (run.isEmpty()) {
            return List.of();
        }
        if (reportError != null && !"COMPLETED".equals(run.get().status())) {
            String reason = "report failed: " + (reportError.error() == null ? "unknown error" : reportError.error())
                    + TaskErrors.causeSuffix(reportError.cause());
            flags.requestAbort(runId, reason);
            repositories.updateRun(runId, Map.of("status", "FAILED", "outcome", "ERROR", "failureReason", reason));
        }
        return leases.release(run.get().teamId(), runId, repositories.leasedServices(runId));
    }
}
