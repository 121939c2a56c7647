package dev.richter.preparation;

import com.amazonaws.services.lambda.runtime.Context;
import dev.richter.common.EventPublisher;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.Repositories;
import dev.richter.sizing.Quotas;

/**
 * Lambda handler of the run-preparation function, called by the load-test-run state machine before the run and at the
 * start of every step. Each action is one {@link RunPreparer} use case:
 * <ul>
 *   <li>{@code prepare {runId}} → {@link RunPreparer#prepare} (the run's stages);</li>
 *   <li>{@code start-step {step: StepRef}} → {@link RunPreparer#startStep} (legs and workers, laid out against
 *       {@link Quotas#fromEnv()});</li>
 *   <li>{@code monitoring-lost {runId, state, error: {Error, Cause}}} → {@link RunPreparer#monitoringLost} (sets the
 *       abort flag).</li>
 * </ul>
 * The event decodes once into a {@link RunPreparationAction}; a missing or unknown action is an
 * {@link IllegalArgumentException} naming it. The use cases' failures propagate to Step Functions.
 */
public final class RunPreparationHandler extends JsonStreamHandler<RunPreparationAction, Object> {
    private final RunPreparer preparer;

    /** Lambda's constructor: clients from the environment, built once per container. */
    public RunPreparationHandler() {
        this(Repositories.fromEnv(), EventPublisher.fromEnv());
    }

    /** For tests: explicit dependencies, quotas from the environment. */
    public RunPreparationHandler(Repositories repositories, EventPublisher events) {
        this(repositories, events, Quotas.fromEnv());
    }

    /** For tests: explicit dependencies and quotas. */
    public RunPreparationHandler(Repositories repositories, EventPublisher events, Quotas quotas) {
        super(RunPreparationAction.class);
        this.preparer = new RunPreparer(repositories, events, quotas);
    }

    @Override
    protected Object handle(RunPreparationAction action, Context context) {
        return switch (action) {
            case RunPreparationAction.Prepare p -> preparer.prepare(p.runId());
            case RunPreparationAction.StartStep s -> preparer.startStep(s.step(), System.currentTimeMillis());
            case RunPreparationAction.MonitoringLost m -> preparer.monitoringLost(m.runId(), m.state(),
                    m.error() == null ? null : m.error().error(), m.error() == null ? null : m.error().cause());
        };
    }
}
