package dev.richter.decider;

import com.amazonaws.services.lambda.runtime.Context;
import dev.richter.common.AwsClients;
import dev.richter.common.EventPublisher;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.RunFlags;
import dev.richter.common.TableNames;
import dev.richter.common.metrics.RichterMetrics;

/**
 * Lambda entry of the monitor loop's decide task: {@link DecideRequest} in, {@link DecideResult} out
 * ({@code $.continue} drives the loop's Choice). Collaborators are built once per container. Each round writes one EMF
 * line ({@link FaultDeciderService}) and its log lines carry the run's fields (the base opens them from the
 * {@link DecideRequest}).
 */
public final class FaultDeciderHandler extends JsonStreamHandler<DecideRequest, DecideResult> {
    /** The container's service, wired from the environment when the Lambda constructor first runs (lazy holder). */
    private static final class SharedService {
        static final FaultDeciderService DEFAULT = fromEnv();
    }

    private final FaultDeciderService service;

    /** For Lambda: DynamoDB tables from {@link TableNames#fromEnv()}, EventBridge bus from {@code EVENT_BUS_NAME}. */
    public FaultDeciderHandler() {
        this(SharedService.DEFAULT);
    }

    /** For tests: the given service. */
    public FaultDeciderHandler(FaultDeciderService service) {
        super(DecideRequest.class);
        this.service = service;
    }

    /** The production wiring. */
    public static FaultDeciderService fromEnv() {
        var ddb = AwsClients.dynamoDb();
        TableNames t = TableNames.fromEnv();
        EventPublisher publisher = EventPublisher.fromEnv();
        AbortFlag abort = new RunFlagsAbortFlag(new RunFlags(ddb, t.runs()));
        return new FaultDeciderService(new DynamoDecisionRulesRepository(ddb, t.registry()),
                new DynamoVerdictRepository(ddb, t.verdicts()), new DynamoWindowReader(ddb, t.runMetrics()),
                abort, detail -> publisher.publish(VerdictEvents.VERDICT_CHANGED, detail), System::currentTimeMillis,
                RichterMetrics.forFunction("fault-decider"), new DynamoTeamAlarmRepository(ddb, t.registry()));
    }

    @Override
    protected DecideResult handle(DecideRequest input, Context context) {
        return service.decide(input);
    }
}
