package dev.richter.loaddriver;

import com.amazonaws.services.lambda.runtime.Context;
import dev.richter.common.AwsClients;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.RunFlags;
import dev.richter.common.TableNames;
import dev.richter.common.model.WorkerResult;
import dev.richter.common.model.WorkerTask;

/**
 * Lambda entry of one load-driver worker (one element of the state machine's worker Map).
 *
 * <p>Input: a {@link WorkerTask} ({@code events/load-driver/worker.json}). Runs the step with
 * {@link LoadDriver}, which stores per-second windows and the full {@link WorkerResult} (both histograms)
 * in the run-metrics table ({@code RUN_METRICS_TABLE}); returns the same result with the two histogram
 * fields null so the Step Functions payload stays small. The abort flag is read from the runs table
 * ({@code RUNS_TABLE}). Clients are built once per container.
 */
public final class LoadDriverHandler extends JsonStreamHandler<WorkerTask, WorkerResult> {
    private final LoadDriver loadDriver;

    /** Lambda constructor: DynamoDB client, Netty (http) / JDK (https) transport, tables from the environment. */
    public LoadDriverHandler() {
        this(defaultLoadDriver());
    }

    /** Test constructor. */
    public LoadDriverHandler(LoadDriver loadDriver) {
        super(WorkerTask.class);
        this.loadDriver = loadDriver;
    }

    private static LoadDriver defaultLoadDriver() {
        TableNames tables = TableNames.fromEnv();
        RunFlags runFlags = new RunFlags(AwsClients.dynamoDb(), tables.runs());
        HttpTransport transport = new SchemeRoutingTransport(new NettyHttpTransport(), new JdkHttpTransport());
        return new LoadDriver(transport, new RunMetricsRepository(AwsClients.dynamoDb(), tables.runMetrics()),
                runFlags::isAbortRequested);
    }

    @Override
    protected WorkerResult handle(WorkerTask task, Context context) {
        return LoadDriver.withoutHistograms(loadDriver.run(task));
    }
}
