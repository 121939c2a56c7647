package dev.richter.loaddriver;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Runs an {@link ArrivalSchedule}: for each request {@code i} it waits until {@code t0 + dueOffset(i)} and
 * hands the request to a {@link Dispatch}. Due times are absolute, so wake-up overshoot never accumulates, and
 * a dispatch that returns late only makes the next requests late (they are dispatched at once, with their
 * original due time) — never shifts the schedule.
 *
 * <p>Two ways to wait, one rule: {@link #run} parks the calling thread on the {@link MonotonicClock}; {@link #runOn}
 * runs on a single-threaded timer loop (the transport's I/O thread, see {@link HttpTransport#sendLoop}), so a
 * dispatch there needs no hand-off to another thread. Both wait in slices of at most {@code maxParkSliceNanos},
 * so a stop request is noticed within one slice even at sub-1 QPS rates, and both check {@code stop} after every
 * wait and before every dispatch.
 */
public final class ArrivalScheduler {
    /** Receives each due request. Runs on the scheduler's thread: must not block. */
    @FunctionalInterface
    public interface Dispatch {
        /**
         * @param index     the worker's request index, 0-based
         * @param dueNanos  due time ({@link MonotonicClock} nanos)
         * @param nowNanos  the clock when the scheduler woke for it (≥ dueNanos)
         */
        void onDue(long index, long dueNanos, long nowNanos);
    }

    /**
     * A single-threaded executor with precise timers that the scheduler can run on ({@link #runOn}); e.g. a
     * transport's I/O loop ({@link HttpTransport.PreparedRequest#sendLoop}).
     */
    public interface TimerLoop {
        /** Runs {@code task} on the loop's thread, soon. */
        void execute(Runnable task);

        /** Runs {@code task} on the loop's thread at {@code deadlineNanos} ({@link System#nanoTime()}) or after. */
        void scheduleAt(Runnable task, long deadlineNanos);

        /** A timer loop on a single-threaded {@link ScheduledExecutorService} (timers as precise as it has). */
        static TimerLoop of(ScheduledExecutorService executor) {
            return new TimerLoop() {
                @Override
                public void execute(Runnable task) {
                    executor.execute(task);
                }

                @Override
                public void scheduleAt(Runnable task, long deadlineNanos) {
                    executor.schedule(task, deadlineNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
                }
            };
        }
    }

    /**
     * Most overdue requests one wake-up on a {@link TimerLoop} dispatches before it gives the loop back
     * ({@link #runOn}): the loop is the transport's I/O thread, which reads no response while a wake-up dispatches, so
     * after a stall of the loop (a preempted vCPU, a collection) the catch-up goes out in batches of this many with the
     * responses read between them, not in one burst. One burst kept every request of the stall in flight until its
     * end: at 10 000 QPS a 90 ms stall is 900 sends with no read between them, and the worker dropped requests at its
     * in-flight cap against a target answering in 0.1 ms ({@code bench/load-driver.sh}, worker10k). The batch's due
     * times, counts and lateness are as before; only reads come between its batches.
     */
    public static final int MAX_OVERDUE_PER_WAKE = 16;

    /** Default longest single park, nanoseconds (50 ms: a stop is noticed within 50 ms). */
    public static final long DEFAULT_MAX_PARK_SLICE_NANOS = 50_000_000L;

    private final MonotonicClock clock;
    private final long maxParkSliceNanos;

    /**
     * @param clock             time source
     * @param maxParkSliceNanos longest single park, nanoseconds, &gt; 0
     */
    public ArrivalScheduler(MonotonicClock clock, long maxParkSliceNanos) {
        if (maxParkSliceNanos <= 0) {
            throw new IllegalArgumentException("maxParkSliceNanos must be > 0");
        }
        this.clock = clock;
        this.maxParkSliceNanos = maxParkSliceNanos;
    }

    /** A scheduler with {@link #DEFAULT_MAX_PARK_SLICE_NANOS}. */
    public ArrivalScheduler(MonotonicClock clock) {
        this(clock, DEFAULT_MAX_PARK_SLICE_NANOS);
    }

    /**
     * Dispatches every request of {@code schedule} at its due time on the calling thread, until the schedule
     * ends or {@code stop} turns true.
     *
     * @param schedule the worker's schedule
     * @param t0Nanos  step start ({@link MonotonicClock} nanos); may be in the future
     * @param stop     stop condition (e.g. the abort flag)
     * @param dispatch receives each due request
     * @return requests dispatched (= {@code schedule.count()} unless stopped)
     */
    public long run(ArrivalSchedule schedule, long t0Nanos, BooleanSupplier stop, Dispatch dispatch) {
        SchedulePosition cursor = new SchedulePosition(schedule, t0Nanos, stop, dispatch, Integer.MAX_VALUE);
        for (long wakeNanos = cursor.advance(); wakeNanos != SchedulePosition.DONE; wakeNanos = cursor.advance()) {
            clock.parkUntil(wakeNanos);
        }
        return cursor.dispatched;
    }

    /**
     * Dispatches every request of {@code schedule} at its due time on {@code loop}, whose deadlines count in
     * {@link System#nanoTime()} — so the scheduler's {@link MonotonicClock} must be the system clock. Returns at once;
     * each wake-up is one task on {@code loop}, and dispatches at most {@link #MAX_OVERDUE_PER_WAKE} requests: when more
     * are overdue, the next wake-up is scheduled at once, so the loop runs its I/O in between.
     *
     * @param loop     single-threaded loop with precise timers (e.g. a Netty epoll event loop)
     * @param schedule the worker's schedule
     * @param t0Nanos  step start ({@link MonotonicClock} nanos); may be in the future
     * @param stop     stop condition, read on {@code loop}
     * @param dispatch receives each due request, on {@code loop}
     * @return completes with the requests dispatched once the schedule ended or stopped; exceptionally with what
     *         {@code dispatch} or {@code stop} threw
     */
    public CompletableFuture<Long> runOn(TimerLoop loop, ArrivalSchedule schedule, long t0Nanos,
                                         BooleanSupplier stop, Dispatch dispatch) {
        CompletableFuture<Long> done = new CompletableFuture<>();
        SchedulePosition cursor = new SchedulePosition(schedule, t0Nanos, stop, dispatch, MAX_OVERDUE_PER_WAKE);
        Runnable tick = new Runnable() {
            @Override
            public void run() {
                try {
                    long wakeNanos = cursor.advance();
                    if (wakeNanos == SchedulePosition.DONE) {
                        done.complete(cursor.dispatched);
                    } else {
                        loop.scheduleAt(this, wakeNanos);
                    }
                } catch (Throwable t) {
                    done.completeExceptionally(t);
                }
            }
        };
        loop.execute(tick);
        return done;
    }

    /** Position in a schedule; {@link #advance} is the one rule both ways of waiting share. */
    private final class SchedulePosition {
        static final long DONE = Long.MIN_VALUE;
        final ArrivalSchedule schedule;
        final long t0Nanos;
        final BooleanSupplier stop;
        final Dispatch dispatch;
        final long count;
        /** Most requests one {@link #advance} dispatches. */
        final int maxPerAdvance;
        long next;
        long dispatched;

        SchedulePosition(ArrivalSchedule schedule, long t0Nanos, BooleanSupplier stop, Dispatch dispatch, int maxPerAdvance) {
            this.schedule = schedule;
            this.t0Nanos = t0Nanos;
            this.stop = stop;
            this.dispatch = dispatch;
            this.count = schedule.count();
            this.maxPerAdvance = maxPerAdvance;
        }

        /**
         * Dispatches the requests due by now (checking {@code stop} before each), at most {@link #maxPerAdvance}, and
         * returns when to wake next: now when that many went and more are due, else the next due time, or one park slice
         * from now if that is sooner; {@link #DONE} when the schedule ended or {@code stop} is true.
         */
        long advance() {
            int batch = 0;
            while (next < count) {
                long dueNanos = t0Nanos + schedule.dueOffsetNanos(next);
                long nowNanos = clock.nanoTime();
                if (stop.getAsBoolean()) {
                    return DONE;
                }
                if (nowNanos - dueNanos < 0) {
                    return dueNanos - nowNanos > maxParkSliceNanos ? nowNanos + maxParkSliceNanos : dueNanos;
                }
                if (batch++ == maxPerAdvance) {
                    return nowNanos; // more are overdue: the caller's loop runs its I/O first
                }
                dispatch.onDue(next, dueNanos, nowNanos);
                next++;
                dispatched++;
            }
            return DONE;
        }
    }
}
