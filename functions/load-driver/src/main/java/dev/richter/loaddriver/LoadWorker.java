package dev.richter.loaddriver;

import dev.richter.common.AwsClients;
import dev.richter.common.RunFlags;
import dev.richter.common.TableNames;
import dev.richter.common.metrics.RichterMetrics;
import dev.richter.common.model.WorkerRef;
import dev.richter.common.model.WorkerResult;
import dev.richter.common.model.WorkerTask;
import dev.richter.sizing.Quotas;
import dev.richter.sizing.StepLayout;
import java.util.function.Function;

/**
 * One load-driver worker's invocation: resolves its task ({@link WorkerInput}: a reference through
 * {@link StoredTasks}, or the task given whole), stops sending {@link StepLayout#drainMs} ({@code requestTimeoutMs} +
 * in-flight grace + leg margin) before the invocation's time runs out, so its last responses, windows and result are
 * stored before Lambda's {@code Timeout} ends it (a leg laid out by {@link StepLayout} always fits), runs the
 * {@link LoadDriver} and answers the result without histograms.
 */
public final class LoadWorker {
    private final LoadDriver loadDriver;
    /** The metering sink the driver stores through; null for a driver built by the caller (not metered). */
    private final MeteredResultSink metered;
    private final Function<WorkerRef, WorkerTask> tasks;
    private final Quotas quotas;

    private LoadWorker(LoadDriver loadDriver, MeteredResultSink metered,
                       Function<WorkerRef, WorkerTask> tasks, Quotas quotas) {
        this.loadDriver = loadDriver;
        this.metered = metered;
        this.tasks = tasks;
        this.quotas = quotas;
    }

    /**
     * The production worker: DynamoDB client and tables from the environment, and one Netty transport for both
     * schemes: HTTP/1.1 on {@code http://}, ALPN {@code h2, http/1.1} on {@code https://} ({@code bench/load-driver.sh}
     * {@code PROTOCOL=h2}: h2 sustained 14–22× the rate per core of the JDK client's HTTP/1.1 over TLS, and 2.4×
     * HTTP/1.1 over Netty's TLS; see {@link NettyHttpTransport.Protocol#HTTP_2}). h2c did not win consistently on
     * http:// and needs prior knowledge of the target, so it is not chosen here.
     */
    public static LoadWorker fromEnv() {
        return metered(new NettyHttpTransport(1, NettyHttpTransport.Options.DEFAULT.withTls(NettyHttpTransport.Protocol.HTTP_2)),
                new DynamoResultSink(AwsClients.dynamoDb(), TableNames.fromEnv().runMetrics()),
                new WatchedRunFlag(new RunFlags(AwsClients.dynamoDbForPolls(), TableNames.fromEnv().runs())),
                RichterMetrics.forFunction("load-driver"), StoredTasks.fromEnv()::resolve, Quotas.fromEnv());
    }

    /**
     * A metered worker: windows go to {@code sink} through a {@link MeteredResultSink} writing {@code metrics} (one
     * EMF line per flushed window: sent, ok, errors by kind, dropped, late and the rate error against the target).
     *
     * @param transport the HTTP transport toward the system under test
     * @param sink      where windows, results and 429/503 records are stored
     * @param abortFlag the run's abort flag
     * @param metrics   the load driver's metrics
     * @param tasks     resolves a worker reference to its task
     * @param quotas    the leg margin kept free at the end of the invocation ({@link StepLayout#drainMs})
     */
    public static LoadWorker metered(HttpTransport transport, ResultSink sink, LoadDriver.AbortSource abortFlag,
                                     RichterMetrics metrics, Function<WorkerRef, WorkerTask> tasks,
                                     Quotas quotas) {
        MeteredResultSink metered = new MeteredResultSink(sink, metrics);
        return new LoadWorker(new LoadDriver(transport, metered, abortFlag), metered, tasks, quotas);
    }

    /**
     * A worker over a driver built by the caller, not metered.
     *
     * @param loadDriver the driver
     * @param tasks      resolves a worker reference to its task
     * @param quotas     the leg margin kept free at the end of the invocation ({@link StepLayout#drainMs})
     */
    public static LoadWorker of(LoadDriver loadDriver, Function<WorkerRef, WorkerTask> tasks, Quotas quotas) {
        return new LoadWorker(loadDriver, null, tasks, quotas);
    }

    /**
     * Runs one worker.
     *
     * @param input       the event
     * @param remainingMs the invocation's time left, milliseconds; {@link Long#MAX_VALUE} for no limit
     * @return the worker's result without histograms (the full result is stored by the sink)
     * @throws IllegalStateException when a referenced step or its plan is not stored
     */
    public WorkerResult run(WorkerInput input, long remainingMs) {
        WorkerTask task = switch (input) {
            case WorkerInput.FullTask t -> t.task();
            case WorkerInput.ByReference r -> tasks.apply(r.ref());
        };
        long sendUntilEpochMs = remainingMs == Long.MAX_VALUE ? Long.MAX_VALUE
                : System.currentTimeMillis() + remainingMs - StepLayout.drainMs(task.requestTimeoutMs(), quotas);
        if (metered != null) {
            metered.begin(task, sendUntilEpochMs);
        }
        return LoadDriver.withoutHistograms(loadDriver.run(task, sendUntilEpochMs));
    }
}
