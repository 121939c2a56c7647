package dev.richter.common;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.apache.logging.log4j.ThreadContext;

/**
 * Puts a run's identity into the Log4j2 {@link ThreadContext} of the calling thread, so every log line written while
 * it is open carries {@code runId}, {@code teamId}, {@code stage} ({@code pre-test} / {@code formal}) and
 * {@code stepIndex} as top-level fields of Lambda's JSON log format ({@code LambdaLayout.json} flattens the thread
 * context). Open it where a handler has parsed its input and close it in {@code finally} (try-with-resources): a
 * Lambda instance's thread serves the next invocation, which must not inherit this run's fields.
 *
 * <p>Only identifiers go here, never request bodies or headers.
 */
public final class RunLogContext implements AutoCloseable {
    /** Thread-context keys, in the order they are set. */
    public static final String RUN_ID = "runId";
    public static final String TEAM_ID = "teamId";
    public static final String STAGE = "stage";
    public static final String STEP_INDEX = "stepIndex";

    private RunLogContext() {
    }

    /**
     * Sets the fields that are not null (a run-level function has no stage or step); a null clears the key.
     *
     * @param runId     the run id, or null
     * @param teamId    the owning team, or null
     * @param stage     {@code pre-test} or {@code formal}, or null
     * @param stepIndex the step within the stage, or null
     * @return the context to close, which removes all four keys
     */
    public static RunLogContext open(String runId, String teamId, String stage, Integer stepIndex) {
        put(RUN_ID, runId);
        put(TEAM_ID, teamId);
        put(STAGE, stage);
        put(STEP_INDEX, stepIndex == null ? null : stepIndex.toString());
        return new RunLogContext();
    }

    /**
     * Opens the context of a state machine task's event: {@code runId}, {@code teamId}, {@code stage},
     * {@code stepIndex} at its top level, or in its {@code step} object (a step reference); absent fields stay unset.
     */
    public static RunLogContext open(JsonNode event) {
        JsonNode step = event.path("step");
        return open(text(event, step, "runId"), text(event, step, "teamId"), text(event, step, "stage"),
                event.path("stepIndex").isInt() ? Integer.valueOf(event.path("stepIndex").asInt())
                        : step.path("stepIndex").isInt() ? Integer.valueOf(step.path("stepIndex").asInt()) : null);
    }

    private static String text(JsonNode event, JsonNode step,
                               String field) {
        String top = event.path(field).isTextual() ? event.path(field).asText() : null;
        return top != null && !top.isEmpty() ? top : step.path(field).isTextual() ? step.path(field).asText() : null;
    }

    private static void put(String key, String value) {
        if (value == null) {
            ThreadContext.remove(key);
        } else {
            ThreadContext.put(key, value);
        }
    }

    /** Removes the four keys from the calling thread's context. */
    @Override
    public void close() {
        ThreadContext.removeAll(List.of(RUN_ID, TEAM_ID, STAGE, STEP_INDEX));
    }
}
