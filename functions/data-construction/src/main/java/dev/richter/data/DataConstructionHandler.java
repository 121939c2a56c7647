package dev.richter.data;

import com.amazonaws.services.lambda.runtime.Context;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.Repositories;
import dev.richter.data.flow.FlowRunner;
import dev.richter.data.flow.FlowValidator;

/**
 * Lambda handler of the data-construction function: builds data. Runs and steps are prepared by the run-preparation
 * function ({@code functions/run-preparation}).
 *
 * <p>Actions ({@link DataConstructionRequest}, field {@code action}):
 * <ul>
 *   <li>{@code run-flow} {@code {teamId, flowId, rows, concurrency?, dataSetId?, inputs?, marker?}} →
 *       {@link FlowRunner.Result}: runs (or resumes) a stored flow into a data set ({@link DataSetBuild}), within the
 *       invocation's remaining time (15 minutes without a Lambda context). Throws
 *       {@link FlowValidator.InvalidFlowException} for bad inputs and {@link IllegalArgumentException} for an unknown
 *       flow or an unknown or missing action.</li>
 * </ul>
 */
public final class DataConstructionHandler extends JsonStreamHandler<DataConstructionRequest, Object> {
    private final DataSetBuild dataSets;

    /** Lambda's constructor: clients from the environment, built once per container. */
    public DataConstructionHandler() {
        this(Repositories.fromEnv());
    }

    /** For tests: explicit tables and client. */
    public DataConstructionHandler(Repositories repositories) {
        super(DataConstructionRequest.class);
        this.dataSets = new DataSetBuild(repositories);
    }

    @Override
    protected Object handle(DataConstructionRequest request, Context context) {
        return switch (request) {
            case DataConstructionRequest.RunFlowRequest r ->
                    dataSets.run(r, context == null ? 15 * 60_000L : context.getRemainingTimeInMillis());
        };
    }
}
