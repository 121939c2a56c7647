package dev.richter.loaddriver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;

class ArrivalScheduleTest {
    private static final long S = 1_000_000_000L;

    /** Runs a schedule on virtual time and returns the dispatch times relative to t0. */
    private static List<Long> dispatchTimes(ArrivalSchedule schedule) {
        VirtualClock clock = new VirtualClock(1_000 * S);
        List<Long> times = new ArrayList<>();
        long t0 = clock.nanoTime() + 5 * S;
        long n = new ArrivalScheduler(clock).run(schedule, t0, () -> false, (i, due, now) -> {
            assertEquals(due, now, "virtual clock wakes exactly at the due time");
            times.add(now - t0);
        });
        assertEquals(schedule.count(), n);
        return times;
    }

    @Test
    void twoQpsForThirtySecondsIsExactlySixty() {
        List<Long> times = dispatchTimes(ConstantArrivalSchedule.single(2, 30));
        assertEquals(60, times.size());
        for (int i = 0; i < 60; i++) {
            assertEquals(i * S / 2, times.get(i));
        }
    }

    @Test
    void halfQpsForThirtySecondsIsExactlyFifteen() {
        List<Long> times = dispatchTimes(ConstantArrivalSchedule.single(0.5, 30));
        assertEquals(15, times.size());
        assertEquals(0, times.get(0));
        assertEquals(28 * S, times.get(14));
    }

    @Test
    void subOneQpsRatesRoundUpOnlyFractionalProducts() {
        assertEquals(3, ConstantArrivalSchedule.single(0.1, 30).count(), "0.1 x 30 = 3, not 4 from float error");
        assertEquals(2, ConstantArrivalSchedule.single(0.5, 3).count(), "due at 0 s and 2 s, both inside 3 s");
        assertEquals(1, ConstantArrivalSchedule.single(0.2, 1).count());
        assertEquals(0, ConstantArrivalSchedule.single(0, 30).count());
        assertEquals(List.of(0L, 10 * S, 20 * S), dispatchTimes(ConstantArrivalSchedule.single(0.1, 30)));
    }

    @Test
    void threeWorkersArePhaseShiftedIntoOneUniformStream() {
        double qps = 2;
        TreeSet<Long> merged = new TreeSet<>();
        for (int k = 0; k < 3; k++) {
            List<Long> times = dispatchTimes(new ConstantArrivalSchedule(qps, 30, k, 3));
            assertEquals(20, times.size(), "each worker sends qps/n x duration");
            assertEquals(Math.round(k * 1e9 / qps), times.get(0), "worker k starts k/qps s late");
            assertEquals(Math.round(3 * 1e9 / qps), times.get(1) - times.get(0), "worker gap is n/qps");
            merged.addAll(times);
        }
        assertEquals(60, merged.size());
        long j = 0;
        for (long t : merged) {
            assertEquals(j++ * S / 2, t, "merged stream is uniform at 1/qps");
        }
    }

    @Test
    void uneven_workerSharesStillSumToTheExactTotal() {
        // 10 QPS x 1 s over 3 workers: 4 + 3 + 3
        assertEquals(4, new ConstantArrivalSchedule(10, 1, 0, 3).count());
        assertEquals(3, new ConstantArrivalSchedule(10, 1, 1, 3).count());
        assertEquals(3, new ConstantArrivalSchedule(10, 1, 2, 3).count());
        // 0.5 QPS x 2 s over 3 workers: 1 request, worker 0 only
        assertEquals(1, new ConstantArrivalSchedule(0.5, 2, 0, 3).count());
        assertEquals(0, new ConstantArrivalSchedule(0.5, 2, 2, 3).count());
    }

    @Test
    void rampFromZeroToTenOverTenSecondsFollowsTheIntegratedRate() {
        RampingArrivalSchedule ramp = new RampingArrivalSchedule(0, 10, 10, 0, 1);
        List<Long> times = dispatchTimes(ramp);
        assertEquals(50, times.size(), "area under 0 -> 10 QPS over 10 s");
        assertEquals(0, times.get(0));
        long beforeFive = times.stream().filter(t -> t < 5 * S).count();
        assertEquals(13, beforeFive, "C(5 s) = 12.5 -> requests 0..12");
        for (int i = 2; i < times.size(); i++) {
            long gap = times.get(i) - times.get(i - 1);
            assertTrue(gap <= times.get(i - 1) - times.get(i - 2), "gaps shrink as the rate grows");
        }
        assertTrue(times.get(49) < 10 * S);
        // request j is due when C(t) = j: t = sqrt(2 j D / b) for a = 0
        assertEquals(Math.round(Math.sqrt(2.0 * 8 * 10 / 10) * 1e9), times.get(8), 1);
    }

    @Test
    void flatRampEqualsConstantAndDownRampWorks() {
        RampingArrivalSchedule flat = new RampingArrivalSchedule(2, 2, 30, 1, 3);
        ConstantArrivalSchedule constant = new ConstantArrivalSchedule(2, 30, 1, 3);
        assertEquals(constant.count(), flat.count());
        for (int i = 0; i < flat.count(); i++) {
            assertEquals(constant.dueOffsetNanos(i), flat.dueOffsetNanos(i), 1);
        }
        RampingArrivalSchedule down = new RampingArrivalSchedule(10, 0, 10, 0, 1);
        assertEquals(50, down.count());
        assertTrue(down.dueOffsetNanos(49) < 10 * S);
    }

    @Test
    void aSlowDispatchNeverShiftsLaterDueTimes() {
        VirtualClock clock = new VirtualClock(0);
        List<long[]> seen = new ArrayList<>();
        new ArrivalScheduler(clock).run(ConstantArrivalSchedule.single(10, 1), 0, () -> false, (i, due, now) -> {
            seen.add(new long[] {due, now});
            if (i == 2) {
                clock.advance(350_000_000L); // dispatch of request 2 blocks 350 ms
            }
        });
        assertEquals(10, seen.size());
        for (int i = 0; i < 10; i++) {
            assertEquals(i * 100_000_000L, seen.get(i)[0], "due times stay on t0 + i/rate");
        }
        assertEquals(550_000_000L, seen.get(3)[1], "requests 3..5 go out at once, late");
        assertEquals(550_000_000L, seen.get(5)[1]);
        assertEquals(600_000_000L, seen.get(6)[1], "back on schedule, no accumulated delay");
    }

    @Test
    void stopIsNoticedWithinOneParkSliceAtLowRates() {
        VirtualClock clock = new VirtualClock(0);
        long[] dispatched = {0};
        long stopAt = 1_000_000_000L;
        long n = new ArrivalScheduler(clock, 50_000_000L).run(ConstantArrivalSchedule.single(0.1, 60), 0,
                () -> clock.nanoTime() >= stopAt, (i, due, now) -> dispatched[0]++);
        assertEquals(1, n, "only the request due at t0");
        assertTrue(clock.nanoTime() - stopAt <= 50_000_000L, "stopped within one 50 ms slice");
    }

    /** On a timer loop (real time, no timing asserted): every request, in order, at or after its due time, on the loop. */
    @Test
    void onALoopEveryRequestIsDispatchedInOrderOnTheLoopThread() {
        ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor();
        try {
            Thread[] loopThread = new Thread[1];
            loop.submit(() -> loopThread[0] = Thread.currentThread()).get();
            List<long[]> seen = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            long t0 = System.nanoTime() + 20_000_000L;
            long n = new ArrivalScheduler(MonotonicClock.system()).runOn(ArrivalScheduler.TimerLoop.of(loop), ConstantArrivalSchedule.single(200, 0.1), t0,
                    () -> false, (i, due, now) -> {
                        seen.add(new long[] {i, due, now});
                        threads.add(Thread.currentThread());
                    }).join();
            assertEquals(20, n);
            for (int i = 0; i < 20; i++) {
                assertEquals(i, seen.get(i)[0]);
                assertEquals(t0 + i * 5_000_000L, seen.get(i)[1], "due times stay on t0 + i/rate");
                assertTrue(seen.get(i)[2] >= seen.get(i)[1], "never dispatched early");
                assertEquals(loopThread[0], threads.get(i));
            }
        } catch (Exception e) {
            throw new AssertionError(e);
        } finally {
            loop.shutdownNow();
        }
    }

    /**
     * A loop that ran nothing for 100 ms of a 1 000 QPS schedule (100 requests overdue) catches up in wake-ups of
     * {@link ArrivalScheduler#MAX_OVERDUE_PER_WAKE}, each handing the loop back (its I/O, the responses, runs between
     * them) with the next wake-up due at once; each request keeps its own due time. It sent all 100 in one wake-up, with
     * no read between them (bench/load-driver.sh worker10k: drops at the in-flight cap after a stall).
     */
    @Test
    void onALoopAnOverdueCatchUpGoesInBatchesWithTheLoopsIoBetween() {
        java.util.ArrayDeque<Runnable> tasks = new java.util.ArrayDeque<>();
        List<Long> wakeUpsAt = new ArrayList<>();
        ArrivalScheduler.TimerLoop loop = new ArrivalScheduler.TimerLoop() {
            @Override
            public void execute(Runnable task) {
                tasks.add(task);
            }

            @Override
            public void scheduleAt(Runnable task, long deadlineNanos) {
                wakeUpsAt.add(deadlineNanos);
                tasks.add(task);
            }
        };
        long t0 = System.nanoTime() - 100_000_000L; // the first 100 requests are overdue
        List<long[]> dispatched = new ArrayList<>();
        List<Integer> perWakeUp = new ArrayList<>();
        CompletableFuture<Long> done = new ArrivalScheduler(MonotonicClock.system()).runOn(loop,
                ConstantArrivalSchedule.single(1000, 0.1), t0, () -> false, (i, due, now) -> dispatched.add(new long[] {i, due}));
        while (!done.isDone()) {
            int before = dispatched.size();
            tasks.poll().run();
            long ranAt = System.nanoTime();
            perWakeUp.add(dispatched.size() - before);
            if (!done.isDone()) {
                assertTrue(wakeUpsAt.get(wakeUpsAt.size() - 1) - ranAt <= 0, "the next batch is due at once");
            }
        }
        assertEquals(100L, done.join());
        int batch = ArrivalScheduler.MAX_OVERDUE_PER_WAKE;
        assertEquals(List.of(batch, batch, batch, batch, batch, batch, 100 - 6 * batch), perWakeUp,
                "batches of " + batch + ", the last one the rest");
        for (int i = 0; i < 100; i++) {
            assertEquals(i, dispatched.get(i)[0]);
            assertEquals(t0 + i * 1_000_000L, dispatched.get(i)[1], "due times stay on t0 + i/rate");
        }
    }

    @Test
    void onALoopStopEndsTheRunAndAFailingDispatchFailsIt() {
        ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor();
        try {
            ArrivalScheduler scheduler = new ArrivalScheduler(MonotonicClock.system());
            long[] dispatched = {0};
            long n = scheduler.runOn(ArrivalScheduler.TimerLoop.of(loop), ConstantArrivalSchedule.single(1000, 1), System.nanoTime(),
                    () -> dispatched[0] >= 3, (i, due, now) -> dispatched[0]++).join();
            assertEquals(3, n);
            IllegalStateException boom = new IllegalStateException("boom");
            CompletionException e = assertThrows(CompletionException.class, () -> scheduler.runOn(ArrivalScheduler.TimerLoop.of(loop),
                    ConstantArrivalSchedule.single(1000, 1), System.nanoTime(), () -> false, (i, due, now) -> {
                        if (i == 1) {
                            throw boom;
                        }
                    }).join());
            assertEquals(boom, e.getCause());
        } finally {
            loop.shutdownNow();
        }
    }

    @Test
    void invalidSchedulesAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> ConstantArrivalSchedule.single(-1, 10));
        assertThrows(IllegalArgumentException.class, () -> ConstantArrivalSchedule.single(Double.NaN, 10));
        assertThrows(IllegalArgumentException.class, () -> ConstantArrivalSchedule.single(1, 0));
        assertThrows(IllegalArgumentException.class, () -> new ConstantArrivalSchedule(1, 10, 3, 3));
        assertThrows(IllegalArgumentException.class, () -> new RampingArrivalSchedule(1, -1, 10, 0, 1));
    }
}
