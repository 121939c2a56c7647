package dev.richter.loaddriver;

import dev.richter.common.model.Counters;
import dev.richter.common.model.HistogramCodec;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * Thread-safe accumulator of one worker's step: counters, the two latency histograms (microseconds,
 * 3 significant digits) and per-second windows. One lock, taken by the sending and the completing thread —
 * with a transport that has a send loop both are that one thread, so it is never contended; the window flush
 * takes it once a second. The window of the latest second is kept at hand, so an outcome costs no map lookup.
 */
final class StepRecorder {
    /** How a sent request ended. */
    enum Outcome { OK, HTTP_ERROR, TIMEOUT, CONNECT_ERROR }

    private final Histogram fromDueUs = HistogramCodec.newLatencyHistogramUs();
    private final Histogram fromSendUs = HistogramCodec.newLatencyHistogramUs();
    private final Map<String, Long> httpErrors = new TreeMap<>();
    private final TreeMap<Long, WindowAcc> windows = new TreeMap<>();
    /** The window of second {@link #latestSecond}, or null. */
    private WindowAcc latest;
    private long latestSecond;
    private long due;
    private long sent;
    private long ok;
    private long timeouts;
    private long connectErrors;
    private long dropped;
    private long late;
    private long marked;

    private static final class WindowAcc {
        final Histogram hist = HistogramCodec.newLatencyHistogramUs();
        long count;
        long errors;
    }

    synchronized void dropped() {
        due++;
        dropped++;
    }

    /** Counts {@code n} due requests that were not sent because the worker's time ran out (as dropped). */
    synchronized void unsent(long n) {
        due += n;
        dropped += n;
    }

    synchronized void sent(boolean isLate, boolean isMarked) {
        due++;
        sent++;
        if (isLate) {
            late++;
        }
        if (isMarked) {
            marked++;
        }
    }

    /**
     * Records an outcome. Latencies are recorded for responses (ok and HTTP errors) and for timeouts (at
     * the time the deadline fired: a lower bound, so timeouts never make percentiles look better); not for
     * connect errors, whose fast failures would.
     *
     * @param status      HTTP status for OK / HTTP_ERROR, else ignored
     * @param fromDueUs   latency from the due time, microseconds
     * @param fromSendUs  latency from the send time, microseconds
     * @param epochSecond second in which the outcome was observed
     */
    synchronized void outcome(Outcome outcome, int status, long fromDueUsValue, long fromSendUsValue, long epochSecond) {
        WindowAcc w = latest;
        if (w == null || latestSecond != epochSecond) {
            w = windows.computeIfAbsent(epochSecond, s -> new WindowAcc());
            latest = w;
            latestSecond = epochSecond;
        }
        w.count++;
        switch (outcome) {
            case OK -> ok++;
            case HTTP_ERROR -> httpErrors.merge(Integer.toString(status), 1L, Long::sum);
            case TIMEOUT -> timeouts++;
            case CONNECT_ERROR -> connectErrors++;
        }
        if (outcome != Outcome.OK) {
            w.errors++;
        }
        if (outcome != Outcome.CONNECT_ERROR) {
            long d = clampUs(fromDueUsValue);
            fromDueUs.recordValue(d);
            fromSendUs.recordValue(clampUs(fromSendUsValue));
            w.hist.recordValue(d);
        }
    }

    /** Removes and returns the windows of seconds before {@code epochSecondExclusive}. */
    synchronized List<Window> drainWindowsBefore(long epochSecondExclusive, String runId, String stage, int stepIndex,
                                                 int workerIndex, int legIndex) {
        List<Window> out = new ArrayList<>();
        Iterator<Map.Entry<Long, WindowAcc>> it = windows.headMap(epochSecondExclusive, false).entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Long, WindowAcc> e = it.next();
            WindowAcc w = e.getValue();
            out.add(new Window(runId, stage, stepIndex, workerIndex, e.getKey(), w.count, w.errors,
                    HistogramCodec.encode(w.hist), legIndex));
            it.remove();
            if (w == latest) {
                latest = null;
            }
        }
        return out;
    }

    synchronized Counters counters() {
        return new Counters(due, sent, ok, httpErrors, timeouts, connectErrors, dropped, late, marked);
    }

    synchronized String encodedFromDue() {
        return HistogramCodec.encode(fromDueUs);
    }

    synchronized String encodedFromSend() {
        return HistogramCodec.encode(fromSendUs);
    }

    private static long clampUs(long us) {
        return Math.max(1, Math.min(HistogramCodec.HIGHEST_TRACKABLE_US, us));
    }
}
