package dev.richter.report;

import com.amazonaws.services.lambda.runtime.Context;
import dev.richter.common.EventPublisher;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.Repositories;
import java.util.Map;
import java.util.function.LongConsumer;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Lambda handler of the report function. Three inputs:
 * <ul>
 *   <li>{@code {action: "report", runId, state}} from the state machine's {@code Report} state, where {@code state} is
 *       the execution's state (its {@code error} field, when present, is the caught failure): the run's report
 *       ({@link RunReporter}); returns {@code {runId, outcome, outcomeReason}};</li>
 *   <li>{@code {action: "step-completed", runId, teamId, stage, stepIndex}} from the state machine's
 *       {@code CompleteStep} state: the step's {@code Step Completed} event, once ({@link StepCompletion});</li>
 *   <li>EventBridge's {@code Step Functions Execution Status Change} event of an execution that failed, timed out or
 *       was stopped (the template's {@code ExecutionEndedRule}): the run is reaped ({@link RunReaper}: abort flag,
 *       report, leases); returns {@code {status, reaped}}.</li>
 * </ul>
 * Both decode into a {@link ReportEvent}; an unknown action, or an event with none that is not a status change, is an
 * {@link IllegalArgumentException}. Collaborators are built once per container.
 */
public final class ReportHandler extends JsonStreamHandler<ReportEvent, Map<String, Object>> {
    private final RunReporter reporter;
    private final RunReaper reaper;
    private final StepCompletion steps;

    /**
     * For Lambda: tables, trace sources, the event bus and the reports bucket ({@code REPORTS_BUCKET}, none when
     * unset) from the environment.
     */
    public ReportHandler() {
        this(Repositories.fromEnv());
    }

    private ReportHandler(Repositories repositories) {
        this(repositories, new RunReporter(repositories, EventPublisher.fromEnv(), ReportRepository.fromEnv(repositories)),
                new StepCompletion(repositories, ReportRepository.fromEnv(repositories), EventPublisher.fromEnv()),
                RunReaper::sleep);
    }

    /**
     * For tests and the local stack: no reports bucket.
     *
     * @param repositories the tables (plans, runs, run-metrics, verdicts, reports, registry, links) and their client
     * @param events       where {@code Run Aborted} and {@code Run Completed} go
     */
    public ReportHandler(Repositories repositories, EventPublisher events) {
        this(repositories, events, null, "");
    }

    /**
     * For tests and the local stack, with a reports bucket.
     *
     * @param repositories the tables (plans, runs, run-metrics, verdicts, reports, registry, links) and their client
     * @param events       where {@code Run Aborted} and {@code Run Completed} go
     * @param s3           client of {@code bucket}; null when {@code bucket} is blank
     * @param bucket       the reports bucket; blank: the report lives in the reports table only
     */
    public ReportHandler(Repositories repositories, EventPublisher events, S3Client s3, String bucket) {
        this(repositories, new RunReporter(repositories, events, new ReportRepository(repositories.dynamoDb(),
                repositories.tables().reports(), repositories.tables().verdicts(), s3, bucket)),
                new StepCompletion(repositories, new ReportRepository(repositories.dynamoDb(),
                        repositories.tables().reports(), repositories.tables().verdicts()), events), RunReaper::sleep);
    }

    private ReportHandler(Repositories repositories, RunReporter reporter, StepCompletion steps, LongConsumer sleeper) {
        super(ReportEvent.class);
        this.reporter = reporter;
        this.steps = steps;
        this.reaper = new RunReaper(repositories, reporter, sleeper);
    }

    @Override
    protected Map<String, Object> handle(ReportEvent input, Context context) {
        long remainingMs = context == null ? 120_000 : context.getRemainingTimeInMillis();
        return switch (input) {
            case ReportEvent.ReportRequest r -> reporter.report(r.runId(), r.error(), remainingMs);
            case ReportEvent.StepCompletedRequest s -> steps.complete(s.runId(), s.teamId(), s.stage(),
                    s.stepIndex() == null ? 0 : s.stepIndex());
            case ReportEvent.ExecutionStatusChange e -> reaper.reapExecution(e.checked().detail(), remainingMs);
        };
    }
}
