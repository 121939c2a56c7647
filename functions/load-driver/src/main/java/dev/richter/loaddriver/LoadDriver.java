package dev.richter.loaddriver;

import dev.richter.common.Env;
import dev.richter.common.MonitorHeartbeat;
import dev.richter.common.model.Counters;
import dev.richter.common.model.WorkerResult;
import dev.richter.common.model.WorkerTask;
import dev.richter.sizing.StepLayout;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * One load-driver worker for one step: open-model arrivals (DESIGN §5), coordinated-omission-corrected
 * latency, per-second windows, abort polling. No AWS types: results go to a {@link ResultSink}, the abort
 * flag comes from an {@link AbortSource}, requests go through an {@link HttpTransport}.
 *
 * <p>Per request {@code i} due at {@code d_i} (see {@link ConstantArrivalSchedule}):
 * <ul>
 *   <li>in flight ≥ the cap → counted {@code dropped} (and {@code due}), not sent. The cap is the task's
 *       {@code maxInFlight}, or what the transport carries at once when that is less
 *       ({@link TrafficMix#inFlightCapacity}: HTTP/1.1 at its per-host connection cap); the result reports it and the
 *       peak in flight ({@link WorkerResult#inFlightCap}, {@link WorkerResult#peakInFlight});</li>
 *   <li>else sent at {@code s_i}; its send lateness {@code s_i − d_i} goes to a histogram (µs, logged at the worker's
 *       end and given to {@link SendObserver#onSendLateness}), and it is counted {@code late} when
 *       {@code s_i − d_i > latenessToleranceMs};</li>
 *   <li>on its outcome at {@code e_i}: {@code e_i − d_i} goes to the from-due histogram and
 *       {@code e_i − s_i} to the from-send histogram (µs), see {@link StepRecorder#outcome}. The outcome is the last
 *       response of its redirect chain ({@link Redirects}): ok for 2xx and 304, an HTTP error by status for any other,
 *       3xx included; a redirect not followed (out of the target, too many) is an HTTP error by status and reason. A
 *       request with an expectation ({@link ResponseCheck}) has its answer judged by it: ok, an HTTP error by status,
 *       or {@code check-failed} with a reason ({@link StepRecorder#checkFailed}).</li>
 * </ul>
 * The abort flag is polled on a separate scheduled thread every {@code abortPollIntervalMs} (and once
 * before the first request); after it turns true no request is sent (within one park slice, 50 ms),
 * in-flight requests are awaited up to their deadline, and the result is kept with {@code aborted=true}.
 *
 * <p>An interrupt of the thread that called {@link #run} (Lambda ending the invocation: a timeout, a crash in the local
 * stack) also stops the sending within one park slice, wherever the arrivals run; {@code run} then throws
 * {@link CancellationException} without waiting for in-flight requests or storing its last windows and result, as a
 * sandbox that is gone stores nothing. Windows flushed before stay stored.
 *
 * <p>Where the arrivals are scheduled: when every prepared request offers the same send loop
 * ({@link HttpTransport.PreparedRequest#sendLoop}, Netty on epoll) and the clock is the system clock, the
 * {@link ArrivalScheduler} runs on that I/O thread, so sending, reading and recording happen on one thread with no
 * hand-off (in {@code bench/load-driver.sh} about 30 % less CPU per request at moderate rates and far fewer context
 * switches); otherwise it parks the calling thread. Due times, late and dropped counts and both latencies are the
 * same either way.
 */
public final class LoadDriver {
    private static final Logger LOG = LogManager.getLogger(LoadDriver.class);
    private static final long IN_FLIGHT_POLL_NANOS = 10_000_000L;

    /**
     * Source of the run's abort flag, e.g. {@code RunFlags::isAbortRequested}. A poll may throw: a failed poll is logged
     * and the worker goes on, unless every poll has failed for {@link MonitorHeartbeat#UNREADABLE_AFTER_MS}, when it
     * stops (a flag it cannot read is a flag nobody can set) and tries {@link #requestAbort} with
     * {@link MonitorHeartbeat#unreadable}.
     */
    @FunctionalInterface
    public interface AbortSource {
        /** True when the run must stop. May throw. */
        boolean isAbortRequested(String runId);

        /**
         * Why this worker must stop at {@code nowMs} (epoch ms), or empty to go on; may throw. By default, the abort
         * flag alone. The load-driver function's flag also stops a worker whose monitor has gone silent
         * ({@link MonitorHeartbeat#late}).
         */
        default Optional<String> stopReason(WorkerTask task, long nowMs) {
            return isAbortRequested(task.runId()) ? Optional.of("abort flag set") : Optional.empty();
        }

        /** Sets the run's abort flag with {@code reason}, best effort (may throw). By default does nothing. */
        default void requestAbort(String runId, String reason) {
        }
    }

    /** Instrumentation hook called on the scheduler thread right before each send (the benchmark's timings). */
    @FunctionalInterface
    public interface SendObserver {
        /**
         * @param index     worker's request index
         * @param dueNanos  due time, {@link MonotonicClock} nanos
         * @param sendNanos time of the send call, {@link MonotonicClock} nanos
         */
        void onSend(long index, long dueNanos, long sendNanos);

        /**
         * Called once when a run has sent its last request, before its result is stored, with the worker's send
         * lateness: for every request sent, its send time minus its due time, microseconds (0 for a request sent on
         * time; HdrHistogram, 3 significant digits; a copy, the caller's to keep). By default does nothing.
         */
        default void onSendLateness(Histogram sendLatenessUs) {
        }

        /** Observes nothing. */
        SendObserver NONE = (i, d, s) -> { };
    }

    /**
     * Tunables, defaults in {@link #DEFAULT}.
     *
     * @param abortPollIntervalMs   abort-flag poll period, milliseconds (≤ 1000 by DESIGN §5); default 500
     * @param windowFlushIntervalMs how often finished windows go to the sink, milliseconds; default 1000
     * @param maxParkSliceNanos     longest scheduler park, bounds abort latency at low rates; default 50 ms
     * @param inFlightGraceMs       after the last send, wait up to request deadline + this for responses; default 1000
     * @param collectBeforeStep     whether a worker with {@link #PRE_STEP_GC_LEAD_NANOS} of lead runs a full garbage
     *                              collection before its first send; default true. Only right when the JVM holds this
     *                              one worker, as a Lambda does: in a JVM of many workers the collection pauses them all
     * @param warmUpMs              how long a worker with the lead for it sends its own traffic to a loopback responder
     *                              before its step, milliseconds ({@link WarmUp}; 0: never); default
     *                              {@value WarmUp#DEFAULT_MS}. Only right, like the collection, in a JVM of one worker
     */
    public record Config(long abortPollIntervalMs, long windowFlushIntervalMs, long maxParkSliceNanos,
                         long inFlightGraceMs, boolean collectBeforeStep, long warmUpMs) {
        /** 500 ms abort poll, 1 s window flush, 50 ms park slices, 1 s in-flight grace, collection and warm-up before the step. */
        public static final Config DEFAULT = new Config(500, 1000, ArrivalScheduler.DEFAULT_MAX_PARK_SLICE_NANOS,
                StepLayout.IN_FLIGHT_GRACE_MS, true, WarmUp.DEFAULT_MS);

        /**
         * Environment variable that turns the collection and the warm-up before the step off ({@code false}); the local
         * stack sets it, since its one JVM runs every worker.
         */
        public static final String COLLECT_BEFORE_STEP_ENV = "RICHTER_COLLECT_BEFORE_STEP";

        /** The given tunables, with the collection before the step and no warm-up. */
        public Config(long abortPollIntervalMs, long windowFlushIntervalMs, long maxParkSliceNanos, long inFlightGraceMs) {
            this(abortPollIntervalMs, windowFlushIntervalMs, maxParkSliceNanos, inFlightGraceMs, true, 0);
        }

        /** {@link #DEFAULT}, without the collection and the warm-up when {@value #COLLECT_BEFORE_STEP_ENV} is {@code false}. */
        public static Config fromEnv() {
            boolean oneWorker = !"false".equalsIgnoreCase(Env.get(COLLECT_BEFORE_STEP_ENV).orElse("true").strip());
            return new Config(DEFAULT.abortPollIntervalMs(), DEFAULT.windowFlushIntervalMs(), DEFAULT.maxParkSliceNanos(),
                    DEFAULT.inFlightGraceMs(), oneWorker, oneWorker ? DEFAULT.warmUpMs() : 0);
        }

        /** These tunables with a warm-up of {@code ms} (0: none). */
        public Config withWarmUpMs(long ms) {
            return new Config(abortPollIntervalMs, windowFlushIntervalMs, maxParkSliceNanos, inFlightGraceMs, collectBeforeStep, ms);
        }

        /** @throws IllegalArgumentException when a value is not positive or the abort poll exceeds 1 s */
        public Config {
            if (abortPollIntervalMs <= 0 || abortPollIntervalMs > 1000) {
                throw new IllegalArgumentException("abortPollIntervalMs must be in (0, 1000]");
            }
            if (windowFlushIntervalMs <= 0 || maxParkSliceNanos <= 0 || inFlightGraceMs < 0 || warmUpMs < 0) {
                throw new IllegalArgumentException("intervals must be > 0, warmUpMs >= 0");
            }
        }
    }

    /**
     * A worker that starts at least this long before its first due time collects garbage first (nanoseconds, 1 s: a
     * full collection of a fresh worker's heap takes well under that; workers start {@code RICHTER_WORKER_LEAD_MS}
     * early).
     */
    static final long PRE_STEP_GC_LEAD_NANOS = 1_000_000_000L;

    /**
     * Latency a worker assumes for its target before it has observed any, milliseconds: the connections it opens in its
     * lead are for {@code workerQps × 10 ms} requests in flight ({@link #expectedInFlight}), one per 100 QPS over
     * HTTP/1.1 (100 at 10 000 QPS, a tenth of a Lambda's file descriptors). Without them the step's first sends open
     * their connections in a burst: at 10 000 QPS against a target answering in 0.1 ms, the first 50 ms of sends
     * stopped six times for 1-4.5 ms while connections opened on the send loop, with 1 ms assumed (10 connections; the
     * step's peak in flight was 39-99: a stall's overdue sends go out together) ({@code bench/load-driver.sh},
     * worker10k, lateness gaps). From its first second on the worker sizes them from what it observes
     * ({@link #observedNeed}).
     */
    static final double ASSUMED_LATENCY_MS = 10;

    /**
     * Requests a worker expects in flight at {@code workerQps} when each takes {@code latencyMs}, by Little's law
     * (L = λ·W): {@code ceil(workerQps × latencyMs / 1000)}, at least 1, at most {@code cap}. E.g. 10 000 QPS at 200 ms:
     * 2 000 in flight; at 1 ms: 10.
     *
     * @param workerQps this worker's rate, requests per second, ≥ 0 (its share of the step's)
     * @param latencyMs the target's latency, milliseconds, ≥ 0
     * @param cap       the worker's in-flight cap, ≥ 1
     */
    static int expectedInFlight(double workerQps, double latencyMs, int cap) {
        double l = Math.ceil(workerQps * latencyMs / 1000 - 1e-9);
        return (int) Math.max(1, Math.min(cap, l));
    }

    /**
     * The in-flight need a worker opens connections ahead for, from the most requests it had in flight at once over the
     * last second ({@code peakInFlight}, Little's law as observed: rate × latency, the latency's swings included): a
     * quarter more plus one, so that a slowing target finds connections open, at most {@code cap}; 0 when nothing was in
     * flight.
     */
    static int observedNeed(int peakInFlight, int cap) {
        return peakInFlight <= 0 ? 0 : (int) Math.min(cap, peakInFlight + peakInFlight / 4L + 1);
    }

    private final HttpTransport transport;
    private final ResultSink sink;
    private final AbortSource abortFlag;
    private final MonotonicClock clock;
    private final LongSupplier epochMsClock;
    private final Config config;
    private final SendObserver observer;

    /**
     * @param transport    HTTP client
     * @param sink         where windows and the result go
     * @param abortFlag    the run's abort flag
     * @param clock        monotonic clock of the scheduler and latency measurement
     * @param epochMsClock wall clock, epoch milliseconds (maps {@code stepStartEpochMs} to the monotonic clock)
     * @param config       tunables
     * @param observer     send hook (use {@link SendObserver#NONE})
     */
    public LoadDriver(HttpTransport transport, ResultSink sink, AbortSource abortFlag, MonotonicClock clock,
                      LongSupplier epochMsClock, Config config, SendObserver observer) {
        this.transport = transport;
        this.sink = sink;
        this.abortFlag = abortFlag;
        this.clock = clock;
        this.epochMsClock = epochMsClock;
        this.config = config;
        this.observer = observer;
    }

    /** System clocks (park only), the config of {@link Config#fromEnv()}, no observer. */
    public LoadDriver(HttpTransport transport, ResultSink sink, AbortSource abortFlag) {
        this(transport, sink, abortFlag, MonotonicClock.system(), System::currentTimeMillis, Config.fromEnv(), SendObserver.NONE);
    }

    /** The same result with both histogram fields null (for the Step Functions payload). */
    public static WorkerResult withoutHistograms(WorkerResult r) {
        return new WorkerResult(r.runId(), r.stage(), r.stepIndex(), r.workerIndex(), r.workerCount(), r.targetQps(),
                r.startedAtMs(), r.endedAtMs(), r.counters(), null, null, r.aborted(), r.legIndex(), r.startLagMs(),
                r.unsentAtTimeLimit(), r.unstoredWindowSeconds(), r.lastSentAtMs(), r.inFlightCap(), r.peakInFlight());
    }

    /** Runs {@code task}'s leg of its constant-rate step schedule with no time limit; see {@link #run(WorkerTask, long)}. */
    public WorkerResult run(WorkerTask task) {
        return run(task, Long.MAX_VALUE);
    }

    /**
     * Runs {@code task}'s leg: the requests of its constant-rate step schedule due in
     * {@code [legStartOffsetMs, legEndOffsetMs)} ({@link LegSchedule}), sending none after {@code sendUntilEpochMs}.
     *
     * @param task             the worker's task
     * @param sendUntilEpochMs last moment a request may be sent, epoch ms (the invocation's time limit less the
     *                         drain and flush time); {@link Long#MAX_VALUE} for none
     */
    public WorkerResult run(WorkerTask task, long sendUntilEpochMs) {
        ArrivalSchedule step = new ConstantArrivalSchedule(task.qps(), task.durationS(), task.workerIndex(), task.workerCount());
        long to = task.legEndOffsetMs() == Long.MAX_VALUE ? Long.MAX_VALUE : task.legEndOffsetMs() * 1_000_000L;
        return run(task, LegSchedule.of(step, task.legStartOffsetMs() * 1_000_000L, to), sendUntilEpochMs);
    }

    /** Runs {@code schedule} with no time limit; see {@link #run(WorkerTask, ArrivalSchedule, long)}. */
    public WorkerResult run(WorkerTask task, ArrivalSchedule schedule) {
        return run(task, schedule, Long.MAX_VALUE);
    }

    /**
     * Runs one worker's step on the calling thread and stores its windows and result in the sink.
     *
     * <p>A worker ready after its first due time is <em>late</em>: it logs its name and lag, sends the overdue
     * requests at once with their original due times (so they count as late and their latency includes the lag), and
     * its result carries {@code startLagMs}. Requests still unsent at {@code sendUntilEpochMs} are counted
     * dropped and {@code unsentAtTimeLimit}, never silently lost.
     *
     * <p>A worker that starts {@link #PRE_STEP_GC_LEAD_NANOS} or more before its first due time (on the system clock)
     * runs a full garbage collection first, so that no collection of its start-up objects falls inside the leg
     * (unless {@link Config#collectBeforeStep()} is off).
     *
     * @param task             the worker's task (rate fields are not used: {@code schedule} decides arrivals)
     * @param schedule         this worker's arrivals
     * @param sendUntilEpochMs last moment a request may be sent, epoch ms; {@link Long#MAX_VALUE} for none
     * @return the result with both histograms encoded
     * @throws IllegalArgumentException on an invalid task (no usable scenario, maxInFlight or
     *                                  requestTimeoutMs &lt; 1)
     * @throws RuntimeException         when the sink fails to store the result
     * @throws CancellationException    when the calling thread is interrupted while sending (nothing more is sent or stored)
     */
    public WorkerResult run(WorkerTask task, ArrivalSchedule schedule, long sendUntilEpochMs) {
        if (task.maxInFlight() < 1 || task.requestTimeoutMs() < 1) {
            throw new IllegalArgumentException("maxInFlight and requestTimeoutMs must be >= 1");
        }
        TrafficMix mix = new TrafficMix(task.scenarios(), task.marker(), task.requestTimeoutMs(), transport);
        StepRecorder recorder = new StepRecorder();

        long nowEpochMs = epochMsClock.getAsLong();
        long nowNanos = clock.nanoTime();
        long epochMsAtT0 = task.stepStartEpochMs() > 0 ? task.stepStartEpochMs() : nowEpochMs;
        long t0Nanos = nowNanos + (epochMsAtT0 - nowEpochMs) * 1_000_000L;
        long startedAtMs = epochMsAtT0 + (schedule.count() > 0 ? schedule.dueOffsetNanos(0) / 1_000_000L : 0);

        long stopNanos = sendUntilEpochMs == Long.MAX_VALUE ? Long.MAX_VALUE
                : nowNanos + Math.min(Long.MAX_VALUE / 4, (sendUntilEpochMs - nowEpochMs) * 1_000_000L);
        AbortPolls polls = new AbortPolls(task, Math.max(nowEpochMs, startedAtMs));
        // the lead left before the first due time, nanoseconds (none for an empty schedule)
        LongSupplier leadNanos = () -> schedule.count() == 0 ? Long.MIN_VALUE
                : t0Nanos + schedule.dueOffsetNanos(0) - clock.nanoTime();
        boolean systemClock = clock instanceof MonotonicClock.SystemClock;
        boolean stopBeforeFirstSend = polls.stopBeforeFirstSend();
        if (!stopBeforeFirstSend && config.warmUpMs() > 0 && systemClock
                && leadNanos.getAsLong() > config.warmUpMs() * 1_000_000L + PRE_STEP_GC_LEAD_NANOS) {
            WarmUp.run(transport, task, config.warmUpMs(), clock);
            // the flag is read again: it may have been set during the warm-up, and its last read must be fresh
            stopBeforeFirstSend = polls.stopBeforeFirstSend();
        }
        if (stopBeforeFirstSend) {
            LOG.info("run {}: {} stops before its first send: {}", task.runId(), task.workerName(), polls.reason);
            return finish(task, recorder, startedAtMs, epochMsClock.getAsLong(), true, 0, 0, List.of(), 0, 0,
                    task.maxInFlight(), 0);
        }
        long retriedBefore = transport.retriedExchanges(); // after the warm-up, whose exchanges are not the step's
        // the in-flight cap: the task's (sized by Little's law, RunLayout), or less when the transport's connections
        // carry fewer requests at once (HTTP/1.1 at its per-host connection cap): a request over it would wait in the
        // transport unsent, so it is counted dropped here instead
        int maxInFlight = Math.min(task.maxInFlight(), mix.inFlightCapacity());
        if (maxInFlight < task.maxInFlight()) {
            LOG.info("run {}: {} keeps at most {} requests in flight, not the task's {}: its transport carries no more at once",
                    task.runId(), task.workerName(), maxInFlight, task.maxInFlight());
        }
        double workerQps = task.qps() / Math.max(1, task.workerCount());
        if (leadNanos.getAsLong() > PRE_STEP_GC_LEAD_NANOS) {
            mix.preconnect(expectedInFlight(workerQps, ASSUMED_LATENCY_MS, maxInFlight));
        }
        if (config.collectBeforeStep() && systemClock && leadNanos.getAsLong() > PRE_STEP_GC_LEAD_NANOS) {
            // Collect while there is time: the objects of the worker's start-up (clients, classes' statics, the traffic
            // mix) are tenured now, not copied by the first young collections inside the leg, which paused 15-40 ms
            // where later ones took about 1 ms, and each paused millisecond is a late send (bench/load-driver.sh).
            System.gc();
        }
        long startLagMs = schedule.count() == 0 ? 0
                : Math.max(0, (clock.nanoTime() - (t0Nanos + schedule.dueOffsetNanos(0))) / 1_000_000L);
        if (startLagMs > task.latenessToleranceMs()) {
            LOG.warn("run {}: {} started {} ms after its first due time; its overdue requests are sent now and count late",
                    task.runId(), task.workerName(), startLagMs);
        }

        AtomicBoolean abort = new AtomicBoolean();
        List<Window> unstored = new ArrayList<>();
        long unsent = 0;
        AtomicInteger inFlight = new AtomicInteger();
        // the most in flight at once over the step, and since the last flush; written by the dispatching thread only
        AtomicInteger peakInFlight = new AtomicInteger();
        AtomicInteger peakOfSecond = new AtomicInteger();
        AtomicLong lastSentAtMs = new AtomicLong();
        ScheduledExecutorService background = Executors.newScheduledThreadPool(2, r -> {
            Thread t = new Thread(r, "load-driver-bg");
            t.setDaemon(true);
            return t;
        });
        LongToEpochSecond epochSecondOf = n -> Math.floorDiv(epochMsAtT0 + Math.floorDiv(n - t0Nanos, 1_000_000L), 1000L);
        try {
            // the moment the worker is told to stop sending, on the windows' clock: its requests due from then on are not
            // sent on purpose, which the sink's rate error does not count as missing
            Runnable stopSending = () -> {
                if (abort.compareAndSet(false, true)) {
                    sink.sendsStopped(epochMsAtT0 + Math.floorDiv(clock.nanoTime() - t0Nanos, 1_000_000L));
                }
            };
            background.scheduleAtFixedRate(() -> {
                if (abort.get()) {
                    polls.reportStale();
                } else if (polls.stop()) {
                    stopSending.run();
                }
            }, config.abortPollIntervalMs(), config.abortPollIntervalMs(), TimeUnit.MILLISECONDS);
            background.scheduleAtFixedRate(() -> {
                flushWindows(task, recorder, epochSecondOf.of(clock.nanoTime()), unstored);
                int need = observedNeed(peakOfSecond.getAndSet(0), maxInFlight);
                if (need > 0 && !abort.get()) {
                    mix.preconnect(need); // opens only what is not open yet, off the send path
                }
            }, config.windowFlushIntervalMs(), config.windowFlushIntervalMs(), TimeUnit.MILLISECONDS);

            long lateNanos = task.latenessToleranceMs() * 1_000_000L;
            // the calling thread's interrupt stops the arrivals too: read directly when they run on this thread, through
            // `cut` when they run on the send loop (the wait for the loop sets it; the interrupt flag reads false meanwhile)
            Thread caller = Thread.currentThread();
            AtomicBoolean cut = new AtomicBoolean();
            // the flag's age is checked at every send and park slice (50 ms), not only when a poll returns: a poll that
            // hangs in the SDK does not stretch the time a worker sends on an unread flag
            BooleanSupplier unread = () -> {
                if (polls.unreadTooLong()) {
                    stopSending.run();
                }
                return abort.get();
            };
            BooleanSupplier stop = stopNanos == Long.MAX_VALUE ? () -> unread.getAsBoolean() || cut.get() || caller.isInterrupted()
                    : () -> unread.getAsBoolean() || cut.get() || caller.isInterrupted() || clock.nanoTime() - stopNanos >= 0;
            ArrivalScheduler.Dispatch dispatch = (index, dueNanos, wokeNanos) -> {
                if (inFlight.get() >= maxInFlight) {
                    recorder.dropped(epochSecondOf.of(dueNanos));
                    return;
                }
                int nowInFlight = inFlight.incrementAndGet();
                if (nowInFlight > peakInFlight.getPlain()) {
                    peakInFlight.setPlain(nowInFlight);
                }
                if (nowInFlight > peakOfSecond.get()) {
                    peakOfSecond.set(nowInFlight);
                }
                TrafficMix.Entry entry = mix.next();
                HttpTransport.PreparedRequest request = entry.request();
                ResponseCheck check = entry.check();
                long sendNanos = clock.nanoTime();
                lastSentAtMs.set(epochMsAtT0 + Math.floorDiv(sendNanos - t0Nanos, 1_000_000L));
                observer.onSend(index, dueNanos, sendNanos);
                recorder.sent(sendNanos - dueNanos > lateNanos, true, epochSecondOf.of(dueNanos), sendNanos - dueNanos);
                CompletableFuture<HttpTransport.ResponseHead> response;
                try {
                    response = request.send();
                } catch (RuntimeException e) {
                    response = CompletableFuture.failedFuture(e);
                }
                response.whenComplete((answer, error) -> {
                    long endNanos = clock.nanoTime();
                    record(recorder, check, answer, error, (endNanos - dueNanos) / 1000, (endNanos - sendNanos) / 1000,
                            epochSecondOf.of(endNanos), epochMsAtT0 + Math.floorDiv(endNanos - t0Nanos, 1_000_000L));
                    inFlight.decrementAndGet();
                });
            };
            ArrivalScheduler scheduler = new ArrivalScheduler(clock, config.maxParkSliceNanos());
            Optional<ArrivalScheduler.TimerLoop> sendLoop = clock instanceof MonotonicClock.SystemClock ? mix.sendLoop() : Optional.empty();
            long dispatched = sendLoop.isPresent()
                    ? await(scheduler.runOn(sendLoop.get(), schedule, t0Nanos, stop, dispatch), cut)
                    : scheduler.run(schedule, t0Nanos, stop, dispatch);
            if (caller.isInterrupted()) {
                LOG.warn("run {}: {} interrupted after {} of {} requests: stopped sending; its last windows and its result are"
                        + " not stored", task.runId(), task.workerName(), dispatched, schedule.count());
                throw new CancellationException(task.workerName() + " interrupted: its invocation was cut");
            }
            if (!abort.get() && dispatched < schedule.count()) {
                unsent = schedule.count() - dispatched;
                recorder.unsent(unsent);
                LOG.warn("run {}: {} reached its time limit with {} requests of its leg unsent (counted dropped)",
                        task.runId(), task.workerName(), unsent);
            }
            Histogram lateness = recorder.sendLatenessUs();
            LOG.info("run {}: {} sent {} requests; send lateness p50 {} us, p99 {} us, p99.9 {} us, max {} us", task.runId(),
                    task.workerName(), lateness.getTotalCount(), lateness.getValueAtPercentile(50),
                    lateness.getValueAtPercentile(99), lateness.getValueAtPercentile(99.9), lateness.getMaxValue());
            observer.onSendLateness(lateness);
            awaitInFlight(inFlight, task.requestTimeoutMs() + config.inFlightGraceMs());
        } finally {
            // shutdown, not shutdownNow: interrupting a flush in progress would lose the windows it had
            // already drained (the SDK call fails with AbortedException); periodic runs are cancelled
            background.shutdown();
            awaitTermination(background);
        }
        if (inFlight.get() > 0) {
            LOG.warn("run {} worker {}: {} requests still in flight after their deadline", task.runId(),
                    task.workerIndex(), inFlight.get());
        }
        flushWindows(task, recorder, Long.MAX_VALUE, unstored);
        if (!unstored.isEmpty()) {
            flushWindows(task, recorder, Long.MAX_VALUE, unstored);   // one last offer of what the step's flushes kept
        }
        if (!unstored.isEmpty()) {
            LOG.error("run {}: {}: {} windows could not be stored; the result names their seconds", task.runId(),
                    task.workerName(), unstored.size());
        }
        if (abort.get() && polls.reason != null) {
            polls.reportStale();
            LOG.info("run {}: {} stopped: {}", task.runId(), task.workerName(), polls.reason);
        }
        List<Long> unstoredSeconds = unstored.stream().map(Window::epochSecond).sorted().distinct().toList();
        return finish(task, recorder, startedAtMs, epochMsClock.getAsLong(), abort.get(), startLagMs, unsent, unstoredSeconds,
                lastSentAtMs.get(), transport.retriedExchanges() - retriedBefore, maxInFlight, peakInFlight.get());
    }

    @FunctionalInterface
    private interface LongToEpochSecond {
        long of(long nanos);
    }

    /**
     * Stores and returns the worker's result.
     *
     * @param retried      exchanges the transport started again during the step ({@link HttpTransport#retriedExchanges}):
     *                     a transport serves one worker at a time, so the difference over the step is the step's
     * @param inFlightCap  the in-flight cap the worker kept, requests
     * @param peakInFlight the most requests it had in flight at once, requests
     */
    private WorkerResult finish(WorkerTask task, StepRecorder recorder, long startedAtMs, long endedAtMs, boolean aborted,
                                long startLagMs, long unsent, List<Long> unstoredWindowSeconds, long lastSentAtMs,
                                long retried, int inFlightCap, int peakInFlight) {
        Counters counters = recorder.counters().withRetried(retried);
        WorkerResult result = new WorkerResult(task.runId(), task.stage(), task.stepIndex(), task.workerIndex(),
                task.workerCount(), task.qps(), startedAtMs, endedAtMs, counters, recorder.encodedFromDue(),
                recorder.encodedFromSend(), aborted, task.legIndex(), startLagMs, unsent, unstoredWindowSeconds, lastSentAtMs,
                inFlightCap, peakInFlight);
        recorder.overload(task.runId(), task.stage(), task.stepIndex(), task.legIndex(), task.workerIndex())
                .ifPresent(sink::putOverload);
        sink.putResult(result);
        return result;
    }

    private static void record(StepRecorder recorder, ResponseCheck check, HttpTransport.ResponseHead answer, Throwable error,
                               long fromDueUs, long fromSendUs, long epochSecond, long nowEpochMs) {
        if (error == null) {
            int status = answer.status();
            if (check.none()) {
                StepRecorder.RequestOutcome o = Redirects.isSuccess(status) ? StepRecorder.RequestOutcome.OK : StepRecorder.RequestOutcome.HTTP_ERROR;
                recorder.outcome(o, status, fromDueUs, fromSendUs, epochSecond);
            } else {
                ResponseCheck.Judgement j = check.judge(answer);
                switch (j.kind()) {
                    case OK -> recorder.outcome(StepRecorder.RequestOutcome.OK, status, fromDueUs, fromSendUs, epochSecond);
                    case HTTP_ERROR -> recorder.outcome(StepRecorder.RequestOutcome.HTTP_ERROR, status, fromDueUs, fromSendUs, epochSecond);
                    case CHECK_FAILED -> recorder.checkFailed(j.reason(), fromDueUs, fromSendUs, epochSecond);
                    case UNCHECKED -> recorder.unchecked(status, fromDueUs, fromSendUs, epochSecond);
                }
            }
            recorder.response(answer, fromSendUs, nowEpochMs);
        } else if (unwrap(error) instanceof RedirectException refused) {
            recorder.refusedRedirect(refused.status(), refused.counterKey(), fromDueUs, fromSendUs, epochSecond);
        } else {
            recorder.outcome(classify(error), 0, fromDueUs, fromSendUs, epochSecond);
        }
    }

    private static Throwable unwrap(Throwable error) {
        Throwable e = error;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    /**
     * Timeout for {@link HttpTimeoutException} (not its connect subclass) and {@link TimeoutException};
     * connect error for everything else (connection refused/reset, DNS, TLS, client failures).
     */
    static StepRecorder.RequestOutcome classify(Throwable error) {
        Throwable e = unwrap(error);
        if (e instanceof HttpConnectTimeoutException || e instanceof ConnectException) {
            return StepRecorder.RequestOutcome.CONNECT_ERROR;
        }
        if (e instanceof HttpTimeoutException || e instanceof TimeoutException) {
            return StepRecorder.RequestOutcome.TIMEOUT;
        }
        return StepRecorder.RequestOutcome.CONNECT_ERROR;
    }

    /**
     * One worker's abort polls: the flag, the monitor's heartbeat ({@link AbortSource#stopReason}), and the time since
     * the last poll that could be read. Called from one thread at a time.
     */
    private final class AbortPolls {
        /** Period of the reads before the first send while the flag is unreadable, milliseconds. */
        static final long FIRST_READ_RETRY_MS = 100;
        private final WorkerTask task;
        /** Epoch ms from which failed reads before the first send count: the first due time, or now if later. */
        private final long unreadableFromMs;
        /** {@link System#nanoTime()} of the last successful read: polls run on real time, whatever the run's clock. */
        private volatile long readAtNanos = System.nanoTime();
        private volatile String lastError = "no abort-flag read succeeded";
        private volatile String reason;
        /** Whether the worker stops because the flag could not be read (so it sets the flag itself, once). */
        private volatile boolean unread;
        private volatile boolean unreadReported;

        /**
         * @param fromMs epoch ms from which unreadable polls count until a read succeeds (the worker's first due time, or
         *               now if later); after that, from the last successful read
         */
        AbortPolls(WorkerTask task, long fromMs) {
            this.task = task;
            this.unreadableFromMs = fromMs;
        }

        /**
         * Before the first send the flag must have been read once: a worker that starts while the flag is unreadable
         * (a throttled runs table) does not send on trust. Reads every {@value #FIRST_READ_RETRY_MS} ms until a read
         * succeeds (true when it says stop) or the flag has been unreadable for
         * {@link MonitorHeartbeat#UNREADABLE_AFTER_MS} since the first due time (true: stop, the flag set if possible).
         * A failed poll after a successful one counts from that read, lead time included.
         * The requests due meanwhile are sent late, and counted late.
         */
        boolean stopBeforeFirstSend() {
            while (true) {
                long nowMs = epochMsClock.getAsLong();
                try {
                    Optional<String> r = abortFlag.stopReason(task, nowMs);
                    readAtNanos = System.nanoTime();
                    reason = r.orElse(null);
                    return r.isPresent();
                } catch (RuntimeException e) {
                    lastError = e.toString();
                    long unreadableMs = nowMs - unreadableFromMs;
                    if (unreadableMs >= MonitorHeartbeat.UNREADABLE_AFTER_MS) {
                        return unreadable(unreadableMs, e);
                    }
                    LOG.warn("run {}: {} cannot read the abort flag yet, so it does not send: {}", task.runId(),
                            task.workerName(), e.toString());
                    clock.parkUntil(clock.nanoTime() + FIRST_READ_RETRY_MS * 1_000_000L);
                    if (Thread.currentThread().isInterrupted()) {
                        return unreadable(unreadableMs, e);
                    }
                }
            }
        }

        private boolean unreadable(long unreadableMs, RuntimeException e) {
            if (reason == null) {
                reason = MonitorHeartbeat.unreadable(Math.max(0, unreadableMs), e.toString());
            }
            unread = true;
            reportStale();
            return true;
        }

        /**
         * True when the last successful read is {@link MonitorHeartbeat#UNREADABLE_AFTER_MS} old (no I/O: called from the
         * send loop); the next poll, or the worker's end, sets the run's flag with the reason.
         */
        boolean unreadTooLong() {
            long ageMs = (System.nanoTime() - readAtNanos) / 1_000_000L;
            if (ageMs < MonitorHeartbeat.UNREADABLE_AFTER_MS) {
                return false;
            }
            if (reason == null) {
                reason = MonitorHeartbeat.unreadable(ageMs, lastError);
            }
            unread = true;
            return true;
        }

        /** Sets the run's flag once when this worker stopped on an unread flag (from a poll thread or the worker's end). */
        void reportStale() {
            if (unread && !unreadReported) {
                unreadReported = true;
                LOG.error("run {}: {} stops: {}", task.runId(), task.workerName(), reason);
                try {
                    abortFlag.requestAbort(task.runId(), reason);
                } catch (RuntimeException notSet) {
                    LOG.error("run {}: abort flag not set either: {}", task.runId(), notSet.toString());
                }
            }
        }

        /**
         * One periodic poll: true when the worker must stop (the flag, the monitor's heartbeat, or every read failing
         * for {@link MonitorHeartbeat#UNREADABLE_AFTER_MS}); the reason is kept in {@link #reason}.
         */
        boolean stop() {
            long nowMs = epochMsClock.getAsLong();
            try {
                Optional<String> r = abortFlag.stopReason(task, nowMs);
                readAtNanos = System.nanoTime();
                if (r.isPresent()) {
                    reason = r.get();
                    return true;
                }
                return false;
            } catch (RuntimeException e) {
                lastError = e.toString();
                if (!unreadTooLong()) {
                    LOG.warn("abort-flag poll failed for run {}: {}", task.runId(), e.toString());
                    return false;
                }
                reportStale();
                return true;
            }
        }
    }

    /**
     * Offers the windows ended before {@code beforeEpochSecond}, and those a previous flush could not store
     * ({@code unstored}), to the sink; what it does not store stays in {@code unstored} for the next flush.
     */
    private void flushWindows(WorkerTask task, StepRecorder recorder, long beforeEpochSecond, List<Window> unstored) {
        List<Window> windows;
        synchronized (unstored) {
            windows = new ArrayList<>(unstored);
            unstored.clear();
        }
        windows.addAll(recorder.drainWindowsBefore(beforeEpochSecond, task.runId(), task.stage(),
                task.stepIndex(), task.workerIndex(), task.legIndex()));
        if (windows.isEmpty()) {
            return;
        }
        List<Window> failed;
        RuntimeException error;
        try {
            sink.putWindows(windows);
            return;
        } catch (ResultSink.WindowsNotStoredException e) {
            failed = e.unstored();
            error = e;
        } catch (RuntimeException e) {
            failed = windows;
            error = e;
        }
        synchronized (unstored) {
            unstored.addAll(failed);
        }
        LOG.warn("run {} worker {}: {} windows not stored yet (offered again at the next flush): {}", task.runId(),
                task.workerIndex(), failed.size(), error.toString());
    }

    /**
     * Waits on the {@link MonotonicClock} (10 ms slices, so virtual clocks work) until nothing is in flight or
     * {@code maxWaitMs} passed.
     */
    private void awaitInFlight(AtomicInteger inFlight, long maxWaitMs) {
        long deadlineNanos = clock.nanoTime() + maxWaitMs * 1_000_000L;
        while (inFlight.get() > 0) {
            long nowNanos = clock.nanoTime();
            if (nowNanos - deadlineNanos >= 0 || Thread.currentThread().isInterrupted()) {
                return;
            }
            clock.parkUntil(Math.min(deadlineNanos, nowNanos + IN_FLIGHT_POLL_NANOS));
        }
    }

    /**
     * Waits for the send loop's schedule; an interrupt meanwhile sets {@code cut} (the loop then stops at its next tick)
     * and is kept on the thread.
     */
    private static long await(CompletableFuture<Long> scheduled, AtomicBoolean cut) {
        boolean interrupted = false;
        try {
            scheduled.get();
        } catch (InterruptedException e) {
            cut.set(true);
            interrupted = true;
        } catch (ExecutionException e) {
            // rethrown by join below
        }
        try {
            return join(scheduled);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The schedule's outcome; what the dispatch threw is rethrown as is. */
    private static long join(CompletableFuture<Long> scheduled) {
        try {
            return scheduled.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    private static void awaitTermination(ScheduledExecutorService executor) {
        try {
            if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
