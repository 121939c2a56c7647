package dev.richter.api;

import com.amazonaws.services.lambda.runtime.Context;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.Repositories;
import dev.richter.common.RunScoped;
import dev.richter.common.model.CaughtError;
import dev.richter.runs.RunRelease;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Lambda handler of the state machines' {@code ReleaseLeases} states ({@code ReleaseLeasesFunction}, in plan-api's
 * jar): {@code {runId, reportError?: {Error, Cause}}} → {@link RunRelease#release} → {@code {runId, released}}.
 */
public final class ReleaseLeasesHandler extends JsonStreamHandler<ReleaseLeasesHandler.ReleaseRequest, Map<String, Object>> {
    /**
     * The event.
     *
     * @param runId       the run
     * @param reportError the report's caught error ({@code ReleaseLeasesAfterReportFailed}), absent after a report
     */
    public record ReleaseRequest(String runId, CaughtError reportError) implements RunScoped {}

    private final RunRelease release;

    /** Lambda's constructor: clients and table names from the environment, built once. */
    public ReleaseLeasesHandler() {
        this(Repositories.fromEnv());
    }

    /** For tests. */
    public ReleaseLeasesHandler(Repositories repositories) {
        super(ReleaseRequest.class);
        this.release = new RunRelease(repositories);
    }

    @Override
    protected Map<String, Object> handle(ReleaseRequest input, Context context) {
        List<String> released = release.release(input.runId(), input.reportError());
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("runId", input.runId());
        out.put("released", released);
        return out;
    }
}
