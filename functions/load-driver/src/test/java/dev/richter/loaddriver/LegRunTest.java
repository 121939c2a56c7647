package dev.richter.loaddriver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.Marker;
import dev.richter.common.model.ReplayRequest;
import dev.richter.common.model.Scenario;
import dev.richter.common.model.WorkerResult;
import dev.richter.common.model.WorkerTask;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A step cut into legs, so a step may last any length of time: each leg's workers run in their own invocation on the
 * step's one schedule, so the legs together send exactly the step's requests at exactly the step's due times;
 * a worker that starts late is named and its requests count late; a worker out of time counts what it did not send.
 * Virtual time: the clock only moves when the driver parks.
 */
class LegRunTest {
    private static final long MS = 1_000_000L;
    private static final long T0_MS = 10_000;

    private static WorkerTask task(double qps, int durationS, int k, int n, int leg, long fromMs, long toMs) {
        ReplayRequest get = new ReplayRequest("GET", "/orders", Map.of(), null);
        return new WorkerTask("run-1", "team-a", "formal", 0, qps, durationS, k, n, T0_MS, 1000, 2000, 100,
                Marker.DEFAULT, List.of(new Scenario("s", "order", "http://h", 1, List.of(get))), leg, fromMs, toMs);
    }

    /** Records every send's virtual time; answers after 5 ms. */
    private static final class Sends implements HttpTransport {
        final VirtualClock clock;
        final List<Long> atNanos = new ArrayList<>();

        Sends(VirtualClock clock) {
            this.clock = clock;
        }

        @Override
        public PreparedRequest prepare(OutboundRequest request) {
            return () -> {
                CompletableFuture<HttpTransport.ResponseHead> f = new CompletableFuture<>();
                long now = clock.nanoTime();
                atNanos.add(now);
                clock.at(now + 5 * MS, () -> f.complete(HttpTransport.ResponseHead.of(200)));
                return f;
            };
        }

        @Override
        public void close() {}
    }

    private static LoadDriver driver(VirtualClock clock, HttpTransport transport, ResultSink sink) {
        return new LoadDriver(transport, sink, id -> false, clock, () -> clock.nanoTime() / MS,
                LoadDriver.Config.DEFAULT, LoadDriver.SendObserver.NONE);
    }

    @Test
    void legsOfAStepSendExactlyTheStepsRequestsAtTheStepsDueTimes() {
        double qps = 7.3;
        int durationS = 20;
        int workers = 3;
        long legMs = 6_000;
        List<Long> sent = new ArrayList<>();
        ResultSink.InMemory sink = new ResultSink.InMemory();
        for (int leg = 0; leg < 4; leg++) {
            long from = leg * legMs;
            long to = leg == 3 ? Long.MAX_VALUE : from + legMs;
            for (int k = 0; k < workers; k++) {
                // each leg's worker is launched 2 s before its first due time, as the state machine does
                VirtualClock clock = new VirtualClock((T0_MS + from - 2_000) * MS);
                Sends transport = new Sends(clock);
                WorkerResult r = driver(clock, transport, sink).run(task(qps, durationS, k, workers, leg, from, to));
                assertEquals(0, r.startLagMs(), "a worker launched early is not late");
                assertEquals(leg, r.legIndex());
                for (long at : transport.atNanos) {
                    long offsetMs = at / MS - T0_MS;
                    assertTrue(offsetMs >= from && offsetMs < (leg == 3 ? durationS * 1000L : from + legMs),
                            "leg " + leg + " sent at " + offsetMs + " ms");
                    sent.add(at - T0_MS * MS);
                }
            }
        }
        ConstantArrivalSchedule step = ConstantArrivalSchedule.single(qps, durationS);
        assertEquals(146, step.totalCount(), "ceil(7.3 × 20)");
        sent.sort(null);
        List<Long> planned = new ArrayList<>();
        for (long i = 0; i < step.count(); i++) {
            planned.add(step.dueOffsetNanos(i));
        }
        assertEquals(planned, sent, "every request of the step exactly once, at its due time: no gap, no burst");
        assertEquals(146, sink.results().stream().mapToLong(r -> r.counters().sent()).sum());
        assertEquals(0, sink.results().stream().mapToLong(r -> r.counters().late()).sum());
        assertEquals(12, sink.results().size(), "4 legs × 3 workers, each its own result");
        assertEquals(12, sink.results().stream().map(WorkerResult::sortKey).distinct().count());
    }

    @Test
    void aWorkerReadyAfterItsFirstDueTimeIsNamedAndItsOverdueRequestsCountLate() {
        VirtualClock clock = new VirtualClock((T0_MS + 3_000) * MS);
        Sends transport = new Sends(clock);
        WorkerResult r = driver(clock, transport, new ResultSink.InMemory())
                .run(task(10, 10, 0, 1, 0, 0, Long.MAX_VALUE));
        assertEquals(3_000, r.startLagMs());
        assertEquals(100, r.counters().sent(), "nothing is skipped: overdue requests are sent at once");
        assertEquals(29, r.counters().late(), "late = sent over 100 ms after due: the 29 due in [0, 2.8 s]; 2.9 s is 100 ms");
        assertEquals("formal/step 1/leg 1/worker 0", r.workerName());
    }

    @Test
    void aWorkerOutOfTimeStopsSendingAndCountsWhatItDidNotSend() {
        VirtualClock clock = new VirtualClock((T0_MS - 1_000) * MS);
        Sends transport = new Sends(clock);
        WorkerResult r = driver(clock, transport, new ResultSink.InMemory())
                .run(task(10, 10, 0, 1, 0, 0, Long.MAX_VALUE), T0_MS + 5_000);
        assertEquals(50, r.counters().sent(), "requests due in [0, 5 s) are sent");
        assertEquals(50, r.unsentAtTimeLimit());
        assertEquals(50, r.counters().dropped());
        assertEquals(100, r.counters().due());
    }

    @Test
    void legScheduleFindsTheLegsRequestsByDueTime() {
        ConstantArrivalSchedule step = new ConstantArrivalSchedule(10, 10, 1, 4); // due at (4i + 1) / 10 s
        LegSchedule leg = LegSchedule.of(step, 2_000 * MS, 5_000 * MS);
        // worker 1's due offsets: 0.1, 0.5, 0.9, 1.3, 1.7, 2.1, 2.5, 2.9, 3.3, 3.7, 4.1, 4.5, 4.9, 5.3 ...
        assertEquals(8, leg.count());
        assertEquals(2_100 * MS, leg.dueOffsetNanos(0));
        assertEquals(4_900 * MS, leg.dueOffsetNanos(7));
        assertEquals(0, LegSchedule.of(step, 20_000 * MS, Long.MAX_VALUE).count());
        assertEquals(step.count(), LegSchedule.of(step, 0, Long.MAX_VALUE).count());
    }
}
