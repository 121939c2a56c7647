package dev.richter.loaddriver;

import dev.richter.common.metrics.RichterMetrics;
import dev.richter.common.model.OverloadResponses;
import dev.richter.common.model.WorkerResult;
import dev.richter.common.model.WorkerTask;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link ResultSink} that stores through its delegate and, for every flushed {@link Window}, writes one EMF line of
 * the worker's second ({@link RichterMetrics}, function {@code load-driver}), timestamped at that second:
 * <ul>
 *   <li>{@code Sent}, {@code Ok}, {@code Http4xx}, {@code Http5xx}, {@code Timeouts}, {@code ConnectErrors},
 *       {@code Dropped}, {@code Late}: the window's counts (Count; {@code Ok} = outcomes − failed outcomes);</li>
 *   <li>{@code RateError} (Percent): achieved against target, {@code 100 × (sent − due) / due}, where {@code due} is
 *       the number of this worker's requests of its leg due in that second by its schedule, and in the seconds before
 *       it that have no window of their own (whose late sends the worker counts in this one) (the same
 *       {@link ConstantArrivalSchedule} and {@link LegSchedule} the driver runs, cut at the invocation's send limit and
 *       at the moment the worker was told to stop ({@link #sendsStopped}: the abort flag, or a flag unread too long),
 *       since a request it was told not to send is not one it failed to send). Negative: fewer sent than due (dropped,
 *       or sent too late for its second). Written only for a second with at least one due request and when the step has
 *       a fixed start ({@code stepStartEpochMs} &gt; 0).</li>
 * </ul>
 * Properties: {@code runId}, {@code teamId}, {@code runStage}, {@code stepIndex}, {@code legIndex},
 * {@code workerIndex}, {@code epochSecond}, {@code dueRequests}, {@code workerTargetQps} (the step's rate over its
 * workers, requests per second).
 *
 * <p>{@link #begin} tells the sink which task the following windows belong to; a Lambda instance runs one worker at a
 * time, so one current task suffices. A window of another run, stage or step than the current task gets its counts but
 * no {@code RateError}.
 */
final class MeteredResultSink implements ResultSink {
    private final ResultSink delegate;
    private final RichterMetrics metrics;
    private volatile Target target;
    /**
     * The last second of the current task whose window was emitted ({@link Long#MIN_VALUE}: none yet): a window's due
     * requests are those of the seconds since, as the worker's recorder counts a send due in a second already stored
     * into its first window not stored yet ({@code StepRecorder}), e.g. the overdue sends of a worker that started late.
     */
    private long emittedThroughSecond = Long.MIN_VALUE;
    /** Sort keys of the windows already emitted since {@link #begin}: a window retried after a failed write is emitted once. */
    private final Set<String> emitted = ConcurrentHashMap.newKeySet();

    /**
     * @param delegate where windows, results and 429/503 records are stored
     * @param metrics  the load driver's metrics
     */
    MeteredResultSink(ResultSink delegate, RichterMetrics metrics) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    /**
     * Sets the task whose windows follow.
     *
     * @param task             the worker's task
     * @param sendUntilEpochMs the last moment the worker may send, epoch ms ({@link Long#MAX_VALUE}: none)
     */
    void begin(WorkerTask task, long sendUntilEpochMs) {
        ArrivalSchedule step = new ConstantArrivalSchedule(task.qps(), task.durationS(), task.workerIndex(),
                task.workerCount());
        long to = task.legEndOffsetMs() == Long.MAX_VALUE ? Long.MAX_VALUE : task.legEndOffsetMs() * 1_000_000L;
        target = new Target(task, LegSchedule.of(step, task.legStartOffsetMs() * 1_000_000L, to), sendUntilEpochMs);
        emitted.clear();
        synchronized (emitted) {
            emittedThroughSecond = Long.MIN_VALUE;
        }
    }

    /** Cuts the current task's due requests at {@code epochMs}, as its send limit cuts them (the earlier of the two). */
    @Override
    public void sendsStopped(long epochMs) {
        Target t = target;
        if (t != null && epochMs < t.sendUntilEpochMs()) {
            target = new Target(t.task(), t.leg(), epochMs);
        }
        delegate.sendsStopped(epochMs);
    }

    @Override
    public void putWindows(List<Window> windows) {
        try {
            delegate.putWindows(windows);
        } finally {
            Target t = target;
            for (Window w : windows) {
                if (emitted.add(w.sortKey())) {
                    emit(w, t);
                }
            }
        }
    }

    @Override
    public void putResult(WorkerResult result) {
        delegate.putResult(result);
    }

    @Override
    public void putOverload(OverloadResponses overload) {
        delegate.putOverload(overload);
    }

    private void emit(Window w, Target t) {
        RichterMetrics.Emission e = metrics.emission()
                .timestamp(Instant.ofEpochSecond(w.epochSecond()))
                .count("Sent", w.sent())
                .count("Ok", w.count() - w.errors())
                .count("Http4xx", w.http4xx())
                .count("Http5xx", w.http5xx())
                .count("Timeouts", w.timeouts())
                .count("CheckFailed", w.checkFailed())
                .count("ConnectErrors", w.connectErrors())
                .count("Dropped", w.dropped())
                .count("Late", w.late())
                .property("runId", w.runId())
                .property("runStage", w.stage())
                .property("stepIndex", w.stepIndex())
                .property("legIndex", w.legIndex())
                .property("workerIndex", w.workerIndex())
                .property("epochSecond", w.epochSecond());
        if (t != null && t.owns(w)) {
            e.property("teamId", t.task().teamId());
            e.property("workerTargetQps", t.task().qps() / t.task().workerCount());
            long due;
            synchronized (emitted) {
                due = t.dueIn(emittedThroughSecond == Long.MIN_VALUE ? Long.MIN_VALUE : emittedThroughSecond + 1, w.epochSecond());
                emittedThroughSecond = Math.max(emittedThroughSecond, w.epochSecond());
            }
            if (due > 0) {
                e.percent("RateError", rateErrorPercent(w.sent(), due)).property("dueRequests", due);
            }
        }
        e.flush();
    }

    /** {@code 100 × (sent − due) / due}: the achieved rate's error against the target in one window, percent. */
    static double rateErrorPercent(long sent, long due) {
        return 100.0 * (sent - due) / due;
    }

    /** The current task, its leg schedule and its send limit. */
    private record Target(WorkerTask task, ArrivalSchedule leg, long sendUntilEpochMs) {
        boolean owns(Window w) {
            return task.runId().equals(w.runId()) && task.stage().equals(w.stage()) && task.stepIndex() == w.stepIndex()
                    && task.workerIndex() == w.workerIndex() && task.legIndex() == w.legIndex();
        }

        /**
         * Requests of the leg due in {@code [fromSecond, epochSecond + 1 s)} ({@link Long#MIN_VALUE}: from the leg's
         * start), none after the send limit; 0 without a fixed start.
         */
        long dueIn(long fromSecond, long epochSecond) {
            long t0 = task.stepStartEpochMs();
            if (t0 <= 0) {
                return 0;
            }
            long fromMs = fromSecond == Long.MIN_VALUE ? 0 : fromSecond * 1000 - t0;
            long toMs = Math.min((epochSecond + 1) * 1000, sendUntilEpochMs == Long.MAX_VALUE ? Long.MAX_VALUE
                    : sendUntilEpochMs + 1) - t0;
            if (toMs <= 0 || toMs <= fromMs) {
                return 0;
            }
            long from = LegSchedule.firstAtOrAfter(leg, Math.max(0, fromMs) * 1_000_000L);
            long to = LegSchedule.firstAtOrAfter(leg, toMs * 1_000_000L);
            return to - from;
        }
    }
}
