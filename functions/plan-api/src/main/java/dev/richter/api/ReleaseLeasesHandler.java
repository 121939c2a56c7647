package dev.richter.api;

import com.amazonaws.services.lambda.runtime.Context;
import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.Repositories;
import dev.richter.common.RunFlags;
import dev.richter.common.RunLogContext;
import dev.richter.common.TaskErrors;
import dev.richter.runs.RunLeases;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Lambda handler that releases a run's leases on its target services ({@link RunLeases}): the state machine's
 * {@code ReleaseLeases} states, after the report and when the report fails, so every path of a run ends with its
 * targets free.
 *
 * <p>Input {@code {"runId": "...", "reportError"?: {Error, Cause}}}. Reads the run's team and {@code leasedServices}
 * from the runs table and deletes the leases the run still holds. With {@code reportError} (the state machine's
 * {@code ReleaseLeasesAfterReportFailed}: no report could be written), a run that is not {@code COMPLETED} is marked
 * {@code FAILED} with {@code failureReason} {@code report failed: <Error> (<message>)} and its abort flag is set, so no
 * run is left {@code RUNNING}. Idempotent; an unknown run releases nothing. Returns {@code {runId, released}}.
 */
public final class ReleaseLeasesHandler extends JsonStreamHandler<JsonNode, Map<String, Object>> {
    private final Repositories repositories;
    private final RunLeases leases;
    private final RunFlags flags;

    /** Lambda's constructor: clients and table names from the environment, built once. */
    public ReleaseLeasesHandler() {
        this(Repositories.fromEnv());
    }

    /** For tests. */
    public ReleaseLeasesHandler(Repositories repositories) {
        super(JsonNode.class);
        this.repositories = repositories;
        this.leases = new RunLeases(repositories.dynamoDb(), repositories.tables().leases(), Clock.systemUTC());
        this.flags = new RunFlags(repositories.dynamoDb(), repositories.tables().runs());
    }

    @Override
    protected Map<String, Object> handle(JsonNode input, Context context) {
        try (RunLogContext ignored = RunLogContext.open(input)) {
            return handleInRun(input, context);
        }
    }

    /** {@link #handle} with the run's fields in the log context. */
    private Map<String, Object> handleInRun(JsonNode input, Context context) {
        String runId = input.path("runId").asText("");
        if (runId.isBlank()) {
            throw new IllegalArgumentException("input needs a runId");
        }
        JsonNode reportError = input.path("reportError");
        if (reportError.isObject()) {
            repositories.getRun(runId).filter(run -> !"COMPLETED".equals(run.status())).ifPresent(run -> {
                String reason = "report failed: " + reportError.path("Error").asText("unknown error")
                        + Optional.of(TaskErrors.causeMessage(reportError.path("Cause").asText(null)))
                                .filter(m -> !m.isEmpty()).map(m -> " (" + (m.length() > 200 ? m.substring(0, 200) + "…" : m) + ")")
                                .orElse("");
                flags.requestAbort(runId, reason);
                repositories.updateRun(runId, Map.of("status", "FAILED", "outcome", "ERROR", "failureReason", reason));
            });
        }
        List<String> released = repositories.getRun(runId)
                .map(run -> leases.release(run.teamId(), runId, repositories.leasedServices(runId)))
                .orElse(List.of());
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("runId", runId);
        out.put("released", released);
        return out;
    }
}
