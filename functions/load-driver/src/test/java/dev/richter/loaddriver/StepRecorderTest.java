package dev.richter.loaddriver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.richter.common.model.HistogramCodec;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** Per-second windows: sends by due second, outcomes by observed second, and a stored second never written twice. */
class StepRecorderTest {
    private static List<Window> drain(StepRecorder r, long before) {
        return r.drainWindowsBefore(before, "run-1", "formal", 0, 0, 0);
    }

    @Test
    void sendsCountInTheirDueSecondAndOutcomesInTheSecondTheyWereObserved() {
        StepRecorder r = new StepRecorder();
        r.sent(false, true, 100, 0);
        r.sent(true, true, 100, 20_000_000L);
        r.dropped(100);
        r.outcome(StepRecorder.RequestOutcome.HTTP_ERROR, 429, 5_000, 4_000, 101);
        r.outcome(StepRecorder.RequestOutcome.TIMEOUT, 0, 1_000_000, 1_000_000, 101);
        List<Window> ws = drain(r, Long.MAX_VALUE);
        assertEquals(2, ws.size());
        Window due = ws.get(0);
        Window observed = ws.get(1);
        assertEquals(List.of(100L, 2L, 1L, 1L, 0L), List.of(due.epochSecond(), due.sent(), due.late(), due.dropped(), due.count()));
        assertEquals(List.of(101L, 2L, 2L, 1L, 0L, 1L), List.of(observed.epochSecond(), observed.count(), observed.errors(),
                observed.http4xx(), observed.http5xx(), observed.timeouts()));
    }

    /**
     * An hour of seconds, each drained by the flush: every window's histogram holds that second's latency alone, and
     * no histogram is made after the recorder's spares (each would be a 184 KiB array made on the send loop).
     */
    @Test
    void laterSecondsReuseTheHistogramsOfDrainedWindowsAndKeepOnlyTheirOwnLatencies() {
        StepRecorder r = new StepRecorder();
        long first = 1_800_000_000L;
        for (int i = 0; i < 3_600; i++) {
            long second = first + i;
            r.sent(false, true, second, 0);
            r.outcome(StepRecorder.RequestOutcome.OK, 200, 100 + i, 90 + i, second);
            r.sent(false, true, second + 1, 0); // the next second's first send, before this one is drained
            List<Window> drained = drain(r, second + 1);
            assertEquals(1, drained.size());
            Histogram h = HistogramCodec.decode(drained.get(0).hist());
            assertEquals(List.of(1L, 1L), List.of(h.getTotalCount(), h.getCountAtValue(100 + i)), "second " + i);
        }
        assertEquals(StepRecorder.SPARE_WINDOW_HISTOGRAMS, r.windowHistogramsMade());
    }

    /** A response of second 100 that arrives after second 100 was stored counts in the next open second. */
    @Test
    void aSecondAlreadyStoredIsNeverWrittenAgain() {
        StepRecorder r = new StepRecorder();
        r.outcome(StepRecorder.RequestOutcome.OK, 200, 1_000, 1_000, 100);
        List<Window> all = new ArrayList<>(drain(r, 101));
        r.outcome(StepRecorder.RequestOutcome.OK, 200, 1_000, 1_000, 100);
        r.sent(false, true, 99, 0);
        all.addAll(drain(r, Long.MAX_VALUE));
        assertEquals(List.of(100L, 101L), all.stream().map(Window::epochSecond).toList());
        assertEquals(List.of(1L, 1L), all.stream().map(Window::count).toList());
        assertEquals(1, all.get(1).sent());
    }

    /**
     * A final 3xx and a refused redirect are errors of their second but neither 4xx nor 5xx; refused redirects count by
     * status and reason, at most {@link StepRecorder#MAX_REDIRECT_KEYS} distinct ones (an out-of-scope origin each), the
     * rest together.
     */
    @Test
    void threeHundredsAndRefusedRedirectsAreErrorsByStatusAndReason() {
        StepRecorder r = new StepRecorder();
        r.outcome(StepRecorder.RequestOutcome.HTTP_ERROR, 300, 1_000, 1_000, 100);
        for (int i = 0; i < StepRecorder.MAX_REDIRECT_KEYS + 5; i++) {
            r.refusedRedirect(302, "302 redirect out of scope: https://cdn" + i + ".example.test", 1_000, 1_000, 100);
        }
        r.refusedRedirect(302, "302 redirect out of scope: https://cdn0.example.test", 1_000, 1_000, 100);
        Window w = drain(r, Long.MAX_VALUE).get(0);
        assertEquals(List.of(27L, 27L, 0L, 0L), List.of(w.count(), w.errors(), w.http4xx(), w.http5xx()));
        var errors = r.counters().httpErrors();
        assertEquals(1L, errors.get("300"));
        assertEquals(2L, errors.get("302 redirect out of scope: https://cdn0.example.test"));
        assertEquals(5L, errors.get(StepRecorder.OTHER_REDIRECT_KEY));
        assertEquals(StepRecorder.MAX_REDIRECT_KEYS + 2, errors.size());
        assertEquals(27, r.counters().errors());
        assertEquals(0, r.counters().ok());
    }

    /**
     * The flush encodes the drained windows' histograms after it let go of the recorder: while an encoding is under way
     * (held here until the send is recorded), the send loop records its sends and outcomes. It used to encode under the
     * lock, so the send waited for the encoding, and here never returned (sends recorded late on one vCPU: worker10k).
     */
    @Test
    void sendsAreRecordedWhileTheFlushEncodesAHistogram() throws Exception {
        java.util.concurrent.CountDownLatch encoding = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch sendRecorded = new java.util.concurrent.CountDownLatch(1);
        StepRecorder r = new StepRecorder(h -> {
            encoding.countDown();
            try {
                sendRecorded.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return dev.richter.common.model.HistogramCodec.encode(h);
        });
        r.outcome(StepRecorder.RequestOutcome.OK, 200, 1_000, 1_000, 100);
        // threads of their own: the common pool may have one, which the blocked encoding would hold
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
        var flush = java.util.concurrent.CompletableFuture.supplyAsync(() -> drain(r, 101), threads);
        encoding.await();
        var send = java.util.concurrent.CompletableFuture.runAsync(() -> {
            r.sent(false, true, 101, 0);
            r.outcome(StepRecorder.RequestOutcome.OK, 200, 2_000, 2_000, 101);
            sendRecorded.countDown();
        }, threads);
        boolean recorded = sendRecorded.await(10, java.util.concurrent.TimeUnit.SECONDS);
        sendRecorded.countDown(); // lets a blocked encoding finish either way
        send.join();
        assertEquals(true, recorded, "the send and its outcome were recorded during the encoding");
        assertEquals(List.of(100L), flush.join().stream().map(Window::epochSecond).toList());
        assertEquals(List.of(101L), drain(r, Long.MAX_VALUE).stream().map(Window::epochSecond).toList());
        threads.shutdown();
    }
}
