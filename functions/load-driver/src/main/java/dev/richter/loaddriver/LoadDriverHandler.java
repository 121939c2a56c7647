package dev.richter.loaddriver;

import com.amazonaws.services.lambda.runtime.Context;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.metrics.RichterMetrics;
import dev.richter.common.model.WorkerRef;
import dev.richter.common.model.WorkerResult;
import dev.richter.common.model.WorkerTask;
import dev.richter.sizing.Quotas;
import dev.richter.sizing.StepLayout;
import java.util.function.Function;

/**
 * Lambda entry of one load-driver worker of one leg (one child execution of a leg's worker Map): decodes a
 * {@link WorkerInput} (a {@link WorkerRef}, {@code events/load-driver/worker-ref.json}, or a full
 * {@link WorkerTask}) and runs it through {@link LoadWorker} within the invocation's remaining time
 * ({@link Context#getRemainingTimeInMillis()}; no limit without a context). The worker reads its step, the plan and
 * the registry ({@link StoredTasks}), so traffic never travels in the state machine's state; it stores per-second
 * windows and the full {@link WorkerResult} in the run-metrics table and returns the result without histograms.
 * Clients are built once per container; every log line of the invocation carries the run's fields (the base opens
 * them from the input).
 */
public final class LoadDriverHandler extends JsonStreamHandler<WorkerInput, WorkerResult> {
    private final LoadWorker worker;

    /** Lambda constructor: {@link LoadWorker#fromEnv()}. */
    public LoadDriverHandler() {
        this(LoadWorker.fromEnv());
    }

    /** A metered worker ({@link LoadWorker#metered}, same parameters). */
    public LoadDriverHandler(HttpTransport transport, ResultSink sink, LoadDriver.AbortSource abortFlag,
                             RichterMetrics metrics, Function<WorkerRef, WorkerTask> tasks, Quotas quotas) {
        this(LoadWorker.metered(transport, sink, abortFlag, metrics, tasks, quotas));
    }

    /** Test constructor for full tasks only (a reference fails). */
    public LoadDriverHandler(LoadDriver loadDriver) {
        this(loadDriver, ref -> {
            throw new IllegalArgumentException("no step store: a full WorkerTask is required");
        }, Quotas.AWS);
    }

    /** Test constructor: a driver built by the caller, not metered ({@link LoadWorker#of}; {@link StepLayout#drainMs}). */
    public LoadDriverHandler(LoadDriver loadDriver, Function<WorkerRef, WorkerTask> tasks, Quotas quotas) {
        this(LoadWorker.of(loadDriver, tasks, quotas));
    }

    /** The given worker. */
    public LoadDriverHandler(LoadWorker worker) {
        super(WorkerInput.class);
        this.worker = worker;
    }

    @Override
    protected WorkerResult handle(WorkerInput input, Context context) {
        return worker.run(input, context == null ? Long.MAX_VALUE : context.getRemainingTimeInMillis());
    }
}
