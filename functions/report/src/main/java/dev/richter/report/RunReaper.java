package dev.richter.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.RunFlags;
import dev.richter.common.RunLogContext;
import dev.richter.common.TaskErrors;
import dev.richter.common.model.Run;
import dev.richter.runs.RunLeases;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongConsumer;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;

/**
 * Ends a run whose execution ended without reaching its own end: stopped from outside ({@code StopExecution}),
 * timed out, or failed where no {@code Catch} led to the report. Its input is EventBridge's
 * {@code Step Functions Execution Status Change} event
 * (https://docs.aws.amazon.com/step-functions/latest/dg/eventbridge-integration.html: {@code detail} with
 * {@code executionArn, stateMachineArn, name, status, startDate, stopDate (epoch ms), error, cause}), which the
 * template's {@code ExecutionEndedRule} sends for {@code FAILED}, {@code TIMED_OUT} and {@code ABORTED} executions of
 * both state machines.
 *
 * <p>For a load-test run (the execution is named by its run id), in this order:
 * <ol>
 *   <li>sets the abort flag ({@code execution <status>: <error> (<cause>)}; the first reason is kept): a stopped
 *       execution does not stop the Lambda invocations it started, so its workers would send until their own end;</li>
 *   <li>unless the run is already reported ({@code COMPLETED}), waits {@link #settleMs} for those workers to stop and
 *       store their results, then writes the report with the execution's error ({@link RunReporter}); a report that
 *       still fails marks the run {@code FAILED} with {@code failureReason};</li>
 *   <li>releases the run's leases ({@link RunLeases}).</li>
 * </ol>
 * For a nightly check (its runs are not named by the execution), every nightly run still {@code RUNNING} that
 * started within the execution gets its abort flag set and is marked {@code FAILED}. Idempotent: EventBridge
 * delivers at least once, and a second delivery finds the run ended.
 */
public final class RunReaper {
    private static final Logger LOG = LogManager.getLogger(RunReaper.class);
    /** The event's detail-type. */
    public static final String DETAIL_TYPE = "Step Functions Execution Status Change";
    /** Statuses of an execution that ended without its own end state. */
    public static final Set<String> REAPED = Set.of("FAILED", "TIMED_OUT", "ABORTED");
    /** Abort-poll interval plus the in-flight grace: how long a worker takes to stop once the flag is set, ms. */
    static final long WORKER_STOP_MS = 2_500;

    private final Repositories repositories;
    private final RunReporter reporter;
    private final RunFlags flags;
    private final RunLeases leases;
    private final LongConsumer sleeper;

    /**
     * @param repositories the tables
     * @param reporter     the report use case
     * @param sleeper      waits the given milliseconds (tests pass a no-op)
     */
    public RunReaper(Repositories repositories, RunReporter reporter, LongConsumer sleeper) {
        this.repositories = repositories;
        this.reporter = reporter;
        this.flags = new RunFlags(repositories.dynamoDb(), repositories.tables().runs());
        this.leases = new RunLeases(repositories.dynamoDb(), repositories.tables().leases(), Clock.systemUTC());
        this.sleeper = sleeper;
    }

    /** {@link Thread#sleep}, keeping the interrupt. */
    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * How long to wait for a run's workers after the flag: the plan's request deadline plus {@link #WORKER_STOP_MS}.
     */
    static long settleMs(int requestTimeoutMs) {
        return Math.max(0, requestTimeoutMs) + WORKER_STOP_MS;
    }

    /**
     * Reaps the execution of one status-change event.
     *
     * @param event the EventBridge event ({@code detail-type} {@value #DETAIL_TYPE})
     * @param remainingMs the invocation's time left, milliseconds
     * @return {@code {reaped: [runId...], status}}; empty {@code reaped} for a status that is not reaped or an unknown run
     */
    public Map<String, Object> reap(JsonNode event, long remainingMs) {
        return reapExecution(event.path("detail"), remainingMs);
    }

    /**
     * Reaps the execution a status-change event's {@code detail} names ({@code name}: the run id, {@code status}).
     *
     * @param detail      the event's detail
     * @param remainingMs the invocation's time left, milliseconds
     * @return {@code {reaped: [runId...], status}}; empty {@code reaped} for a status that is not reaped or an unknown run
     */
    public Map<String, Object> reapExecution(JsonNode detail, long remainingMs) {
        String status = detail.path("status").asText();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("status", status);
        List<String> reaped = new ArrayList<>();
        out.put("reaped", reaped);
        if (!REAPED.contains(status)) {
            return out;
        }
        String reason = reason(detail);
        String runId = detail.path("name").asText();
        var found = repositories.getRun(runId);
        if (found.isEmpty()) {
            // not a load-test run's execution (those are named by their run id): a nightly check's, whose scopes
            // each created a run of their own
            for (Run run : runningNightlyRuns(detail.path("startDate").asLong(0))) {
                flags.requestAbort(run.runId(), reason);
                repositories.updateRun(run.runId(), Map.of("status", "FAILED", "outcome", "ERROR", "failureReason", reason));
                reaped.add(run.runId());
            }
            return out;
        }
        Run run = found.get();
        try (RunLogContext ignored = RunLogContext.open(runId, run.teamId(), null, null)) {
            LOG.warn("run {}: {}; reaping (abort flag, report, leases)", runId, reason);
            flags.requestAbort(runId, reason);
            if (!"COMPLETED".equals(run.status()) && !"FAILED".equals(run.status())) {
                int timeoutMs = repositories.getPlan(run.planId()).map(p -> p.requestTimeoutMs()).orElse(0);
                sleeper.accept(settleMs(timeoutMs));
                try {
                    // stopped from outside: the run is ABORTED with the flag's reason; failed or timed out: an ERROR
                    JsonNode error = status.equals("ABORTED") ? MissingNode.getInstance()
                            : Json.MAPPER.createObjectNode().put("Error", errorName(status, detail)).put("Cause", reason);
                    reporter.report(runId, error, Math.max(0, remainingMs - settleMs(timeoutMs)));
                } catch (RuntimeException e) {
                    LOG.error("run {}: no report could be written: {}", runId, e.toString());
                    repositories.updateRun(runId, Map.of("status", "FAILED", "outcome", "ERROR",
                            "failureReason", reason + "; report failed: " + e.getMessage()));
                }
            }
            releaseLeases(run);
            reaped.add(runId);
        }
        return out;
    }

    private void releaseLeases(Run run) {
        List<String> released = leases.release(run.teamId(), run.runId(), repositories.leasedServices(run.runId()));
        LOG.info("run {}: released leases {}", run.runId(), released);
    }

    /** {@code execution <status>: <error> (<cause>)}, the cause's {@code errorMessage} when it is a function error. */
    static String reason(JsonNode detail) {
        String error = detail.path("error").asText("");
        String cause = TaskErrors.causeSuffix(detail.path("cause").asText(""));
        StringBuilder b = new StringBuilder("execution ").append(detail.path("status").asText());
        if (!error.isEmpty()) {
            b.append(": ").append(error);
        }
        b.append(cause);
        if (error.isEmpty() && cause.isEmpty() && detail.path("status").asText().equals("ABORTED")) {
            b.append(": stopped from outside (StopExecution)");
        }
        return b.toString();
    }

    private static String errorName(String status, JsonNode detail) {
        String error = detail.path("error").asText("");
        return !error.isEmpty() ? error : switch (status) {
            case "TIMED_OUT" -> "States.Timeout";
            case "ABORTED" -> "Execution.Aborted";
            default -> "States.Runtime";
        };
    }

    private List<Run> runningNightlyRuns(long startedAtMs) {
        List<Run> out = new ArrayList<>();
        repositories.dynamoDb().scanPaginator(ScanRequest.builder().tableName(repositories.tables().runs())
                        .filterExpression("begins_with(runId, :p) AND #s = :r AND createdAtMs >= :t")
                        .expressionAttributeNames(Map.of("#s", "status"))
                        .expressionAttributeValues(Map.of(":p", AttributeValue.fromS("nightly-"),
                                ":r", AttributeValue.fromS("RUNNING"),
                                ":t", AttributeValue.fromN(Long.toString(Math.max(0, startedAtMs - 1_000)))))
                        .consistentRead(true).build())
                .items().forEach(item -> repositories.getRun(item.get("runId").s()).ifPresent(out::add));
        return out;
    }
}
