package dev.richter.loaddriver;

import com.amazonaws.services.lambda.runtime.Context;
import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.AwsClients;
import dev.richter.common.Json;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.Repositories;
import dev.richter.common.RunFlags;
import dev.richter.common.RunLogContext;
import dev.richter.common.RunMetricsRepository;
import dev.richter.common.TableNames;
import dev.richter.common.metrics.RichterMetrics;
import dev.richter.common.model.StepPlan;
import dev.richter.common.model.WorkerRef;
import dev.richter.common.model.WorkerResult;
import dev.richter.common.model.WorkerTask;
import dev.richter.data.StoredSets;
import dev.richter.sizing.Quotas;
import dev.richter.sizing.StepLayout;
import dev.richter.sizing.WorkerTasks;
import java.util.function.Function;

/**
 * Lambda entry of one load-driver worker of one leg (one child execution of a leg's worker Map).
 *
 * <p>Input: a {@link WorkerRef} {@code {runId, teamId, stage, stepIndex, legIndex, workerIndex}}
 * ({@code events/load-driver/worker.json}); the worker reads its step ({@link StepPlan}), the plan and
 * the registry ({@link WorkerTasks}), so traffic never travels in the state machine's state. A full
 * {@link WorkerTask} (with {@code scenarios}) is also accepted, for callers that build one themselves.
 *
 * <p>The worker stops sending {@link StepLayout#drainMs} ({@code requestTimeoutMs} + in-flight grace + leg margin)
 * before its invocation's time runs out ({@link Context#getRemainingTimeInMillis()}), so its last responses, windows
 * and result are stored before Lambda's {@code Timeout} ends it; a leg laid out by {@link StepLayout} always fits.
 * It stores per-second windows and the full {@link WorkerResult} in the run-metrics table and returns the result
 * without histograms. Clients are built once per container.
 *
 * <p>Every flushed window is also written as one EMF line ({@link MeteredResultSink}: sent, ok, errors by kind,
 * dropped, late and the rate error against the worker's target), and every log line of the invocation's thread carries
 * the run's {@code runId}, {@code teamId}, {@code stage} and {@code stepIndex} ({@link RunLogContext}).
 */
public final class LoadDriverHandler extends JsonStreamHandler<JsonNode, WorkerResult> {
    private final LoadDriver loadDriver;
    /** The metering sink the driver stores through; null for a driver built by the caller (not metered). */
    private final MeteredResultSink metered;
    private final Function<WorkerRef, WorkerTask> tasks;
    private final Quotas quotas;

    /**
     * Lambda constructor: DynamoDB client, tables from the environment, and one Netty transport for both schemes:
     * HTTP/1.1 on {@code http://}, ALPN {@code h2, http/1.1} on {@code https://} ({@code bench/load-driver.sh}
     * {@code PROTOCOL=h2}: h2 sustained 14–22× the rate per core of the JDK client's HTTP/1.1 over TLS, and 2.4×
     * HTTP/1.1 over Netty's TLS; see {@link NettyHttpTransport.Protocol#HTTP_2}). h2c did
     * not win consistently on http:// and needs prior knowledge of the target, so it is not chosen here.
     */
    public LoadDriverHandler() {
        this(defaultTransport(), defaultSink(), defaultAbortFlag(), RichterMetrics.forFunction("load-driver"),
                StoredTasks.fromEnv()::resolve, Quotas.fromEnv());
    }

    /**
     * A metered driver: windows go to {@code sink} through a {@link MeteredResultSink} writing {@code metrics}.
     *
     * @param transport the HTTP transport toward the system under test
     * @param sink      where windows, results and 429/503 records are stored
     * @param abortFlag the run's abort flag
     * @param metrics   the load driver's metrics
     * @param tasks     resolves a worker reference to its task
     * @param quotas    the leg margin kept free at the end of the invocation ({@link StepLayout#drainMs})
     */
    public LoadDriverHandler(HttpTransport transport, ResultSink sink, LoadDriver.AbortSource abortFlag,
                             RichterMetrics metrics, Function<WorkerRef, WorkerTask> tasks, Quotas quotas) {
        this(new MeteredResultSink(sink, metrics), transport, abortFlag, tasks, quotas);
    }

    private LoadDriverHandler(MeteredResultSink metered, HttpTransport transport, LoadDriver.AbortSource abortFlag,
                              Function<WorkerRef, WorkerTask> tasks, Quotas quotas) {
        super(JsonNode.class);
        this.loadDriver = new LoadDriver(transport, metered, abortFlag);
        this.metered = metered;
        this.tasks = tasks;
        this.quotas = quotas;
    }

    /** Test constructor for full tasks only (a reference fails). */
    public LoadDriverHandler(LoadDriver loadDriver) {
        this(loadDriver, ref -> {
            throw new IllegalArgumentException("no step store: a full WorkerTask is required");
        }, Quotas.AWS);
    }

    /**
     * Test constructor: a driver built by the caller, not metered.
     *
     * @param loadDriver  the driver
     * @param tasks       resolves a worker reference to its task
     * @param quotas      the leg margin kept free at the end of the invocation ({@link StepLayout#drainMs})
     */
    public LoadDriverHandler(LoadDriver loadDriver, Function<WorkerRef, WorkerTask> tasks, Quotas quotas) {
        super(JsonNode.class);
        this.loadDriver = loadDriver;
        this.metered = null;
        this.tasks = tasks;
        this.quotas = quotas;
    }

    private static HttpTransport defaultTransport() {
        return new NettyHttpTransport(1, NettyHttpTransport.Options.DEFAULT.withTls(NettyHttpTransport.Protocol.HTTP_2));
    }

    private static ResultSink defaultSink() {
        return new DynamoResultSink(AwsClients.dynamoDb(), TableNames.fromEnv().runMetrics());
    }

    private static LoadDriver.AbortSource defaultAbortFlag() {
        return new WatchedRunFlag(new RunFlags(AwsClients.dynamoDbForPolls(), TableNames.fromEnv().runs()));
    }

    @Override
    protected WorkerResult handle(JsonNode input, Context context) {
        WorkerTask task = input.has("scenarios") ? Json.MAPPER.convertValue(input, WorkerTask.class)
                : tasks.apply(Json.MAPPER.convertValue(input, WorkerRef.class));
        try (RunLogContext ignored = RunLogContext.open(task.runId(), task.teamId(), task.stage(), task.stepIndex())) {
            long sendUntilEpochMs = context == null ? Long.MAX_VALUE
                    : System.currentTimeMillis() + context.getRemainingTimeInMillis() - StepLayout.drainMs(task.requestTimeoutMs(), quotas);
            if (metered != null) {
                metered.begin(task, sendUntilEpochMs);
            }
            return LoadDriver.withoutHistograms(loadDriver.run(task, sendUntilEpochMs));
        }
    }

    /**
     * Resolves worker references from the run-metrics table (step), the plans table and the registry, loading the
     * traffic sets and data sets the plan's scenarios name by id ({@link StoredSets}): the
     * state machine passes only ids, whatever the sets' size.
     */
    static final class StoredTasks {
        private final Repositories repositories;
        private final RunMetricsRepository runMetrics;

        StoredTasks(Repositories repositories, RunMetricsRepository runMetrics) {
            this.repositories = repositories;
            this.runMetrics = runMetrics;
        }

        static StoredTasks fromEnv() {
            Repositories repositories = Repositories.fromEnv();
            return new StoredTasks(repositories, new RunMetricsRepository(repositories.dynamoDb(),
                    repositories.tables().runMetrics()));
        }

        /**
         * @throws IllegalStateException when the step or its plan is not stored (the step was never started)
         */
        WorkerTask resolve(WorkerRef ref) {
            StepPlan step = runMetrics.stepPlan(ref.runId(), ref.stage(), ref.stepIndex())
                    .orElseThrow(() -> new IllegalStateException("run " + ref.runId() + " has no started step "
                            + ref.stage() + "/" + ref.stepIndex()));
            var plan = repositories.getPlan(step.teamId(), step.planId())
                    .orElseThrow(() -> new IllegalStateException("plan " + step.planId() + " of run " + ref.runId()
                            + " is not stored"));
            return WorkerTasks.workerTask(step, ref, plan, repositories.listServices(step.teamId()),
                    new StoredSets(repositories.dynamoDb(), repositories.tables().registry()));
        }
    }
}
