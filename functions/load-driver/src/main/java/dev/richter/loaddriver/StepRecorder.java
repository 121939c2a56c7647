package dev.richter.loaddriver;

import dev.richter.common.model.Counters;
import dev.richter.common.model.HistogramCodec;
import dev.richter.common.model.OverloadResponses;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import org.HdrHistogram.Histogram;

/**
 * Thread-safe accumulator of one worker's step: counters, the two latency histograms (microseconds,
 * 3 significant digits), per-second windows with counts by kind ({@link Window}) and the 429/503 responses
 * ({@link OverloadResponses.Recorder}). One lock, taken by the sending and the completing thread — with a transport
 * that has a send loop both are that one thread, so it is never contended; the window flush takes it once a second
 * to take the finished windows out, and encodes their histograms after it let go.
 * The windows of the latest due second and the latest observed second are kept at hand, so neither a send nor an
 * outcome costs a map lookup.
 *
 * <p>Window histograms are reused: a drained window's histogram, once encoded, is reset and kept for a later second
 * ({@value #SPARE_WINDOW_HISTOGRAMS} are made with the recorder, before the step). A new histogram of the 1 h range is a
 * 184 KiB array; made on the send loop at each second's first send it stalled the sends for 0.5-0.8 ms under C1, and
 * encoding a new one each second cost about 2 ms of the worker's one vCPU ({@code bench/load-driver.sh}, worker10k).
 */
final class StepRecorder {
    /** How a sent request ended. */
    enum RequestOutcome { OK, HTTP_ERROR, TIMEOUT, CONNECT_ERROR, CHECK_FAILED }

    private final Histogram fromDueUs = HistogramCodec.newLatencyHistogramUs();
    private final Histogram fromSendUs = HistogramCodec.newLatencyHistogramUs();
    /**
     * Send lateness of every request sent: the time of its send call minus its due time, microseconds (0 when on time;
     * 3 significant digits, as every Richter latency histogram).
     */
    private final Histogram sendLatenessUs = HistogramCodec.newLatencyHistogramUs();
    /** Distinct keys of refused redirects kept per worker; further ones are counted under {@link #OTHER_REDIRECT_KEY}. */
    static final int MAX_REDIRECT_KEYS = 20;
    /** Where refused redirects beyond {@link #MAX_REDIRECT_KEYS} distinct keys are counted. */
    static final String OTHER_REDIRECT_KEY = "redirects not followed, other reasons";

    private final Map<String, Long> httpErrors = new TreeMap<>();
    /** The first {@link Counters#MAX_CHECK_REASONS} distinct check-failure reasons, with their counts. */
    private final Map<String, Long> checkFailures = new TreeMap<>();
    private long checkFailed;
    private long unchecked;
    private int redirectKeys;
    private final TreeMap<Long, WindowAcc> windows = new TreeMap<>();
    private final OverloadResponses.Recorder overload = new OverloadResponses.Recorder();
    /** The window of second {@link #latestSecond} (outcomes), or null. */
    private WindowAcc latest;
    private long latestSecond;
    /** The window of second {@link #latestDueSecond} (sends and drops), or null. */
    private WindowAcc latestDue;
    private long latestDueSecond;
    /**
     * Windows of seconds before this one were drained (stored): a send or outcome that belongs to such a second is
     * counted in this one instead, since a second item with the same sort key would overwrite the stored one.
     */
    private long drainedBefore = Long.MIN_VALUE;
    private long due;
    private long sent;
    private long ok;
    private long timeouts;
    private long connectErrors;
    private long dropped;
    private long late;
    private long marked;

    /** Window histograms made with the recorder, before any send: enough for the windows open at once. */
    static final int SPARE_WINDOW_HISTOGRAMS = 4;

    /** How a drained window's histogram is written: {@link HistogramCodec#encode}'s text, or a test's. */
    private final Function<Histogram, String> encoder;
    /** Reset histograms of drained windows, for the next windows; guarded by this. */
    private final ArrayDeque<Histogram> spareHistograms = new ArrayDeque<>();
    /** Window histograms made so far; guarded by this. */
    private int windowHistogramsMade;

    /**
     * A recorder whose windows' histograms are written by one reused {@link HistogramCodec.Encoder} (its zlib state is
     * freed with it by {@link java.util.zip.Deflater}'s cleaner).
     */
    StepRecorder() {
        this(reusedEncoder());
    }

    /** A recorder whose drained windows' histograms are written by {@code encoder} (outside its lock). */
    StepRecorder(Function<Histogram, String> encoder) {
        this.encoder = encoder;
        synchronized (this) {
            for (int i = 0; i < SPARE_WINDOW_HISTOGRAMS; i++) {
                spareHistograms.add(newWindowHistogram());
            }
        }
    }

    private static Function<Histogram, String> reusedEncoder() {
        HistogramCodec.Encoder codec = new HistogramCodec.Encoder();
        return h -> {
            synchronized (codec) { // the flush thread, then the caller's last flush
                return codec.encode(h);
            }
        };
    }

    private Histogram newWindowHistogram() {
        windowHistogramsMade++;
        return HistogramCodec.newLatencyHistogramUs();
    }

    /** Window histograms made so far, the {@value #SPARE_WINDOW_HISTOGRAMS} made with the recorder included. */
    synchronized int windowHistogramsMade() {
        return windowHistogramsMade;
    }

    /** A window for a second not seen yet, with a spare histogram, or a new one when none is spare; under the lock. */
    private WindowAcc newWindow() {
        Histogram h = spareHistograms.pollFirst();
        return new WindowAcc(h != null ? h : newWindowHistogram());
    }

    private static final class WindowAcc {
        final Histogram hist;

        WindowAcc(Histogram hist) {
            this.hist = hist;
        }

        long count;
        long errors;
        long sent;
        long http4xx;
        long http5xx;
        long timeouts;
        long connectErrors;
        long dropped;
        long late;
        long checkFailed;
    }

    /** A request due in second {@code dueEpochSecond} was not sent: the in-flight cap was reached. */
    synchronized void dropped(long dueEpochSecond) {
        due++;
        dropped++;
        dueWindow(dueEpochSecond).dropped++;
    }

    /** Counts {@code n} due requests that were not sent because the worker's time ran out (as dropped). */
    synchronized void unsent(long n) {
        due += n;
        dropped += n;
    }

    /**
     * A request due in second {@code dueEpochSecond} was sent, late or not, with the marker or not.
     *
     * @param latenessNanos its send time minus its due time, nanoseconds (negative counts as 0); recorded in
     *                      {@link #sendLatenessUs()}
     */
    synchronized void sent(boolean isLate, boolean isMarked, long dueEpochSecond, long latenessNanos) {
        due++;
        sent++;
        sendLatenessUs.recordValue(Math.min(HistogramCodec.HIGHEST_TRACKABLE_US, Math.max(0, latenessNanos / 1000)));
        WindowAcc w = dueWindow(dueEpochSecond);
        w.sent++;
        if (isLate) {
            late++;
            w.late++;
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
     * @param status      HTTP status for OK / HTTP_ERROR (counted by it), else ignored
     * @param fromDueUs   latency from the due time, microseconds
     * @param fromSendUs  latency from the send time, microseconds
     * @param epochSecond second in which the outcome was observed
     */
    synchronized void outcome(RequestOutcome outcome, int status, long fromDueUsValue, long fromSendUsValue, long epochSecond) {
        record(outcome, status, outcome == RequestOutcome.HTTP_ERROR ? Integer.toString(status) : null, fromDueUsValue,
                fromSendUsValue, epochSecond);
    }

    /**
     * Records a request whose redirect was not followed ({@link RedirectException}): an HTTP error counted under
     * {@code key} ({@code <status> <reason>}), with its latency. At most {@link #MAX_REDIRECT_KEYS} such keys are kept
     * per worker (a redirect out of scope names its origin, and a target may name many); the others are counted under
     * {@link #OTHER_REDIRECT_KEY}.
     */
    synchronized void refusedRedirect(int status, String key, long fromDueUsValue, long fromSendUsValue, long epochSecond) {
        if (!httpErrors.containsKey(key)) {
            if (redirectKeys < MAX_REDIRECT_KEYS) {
                redirectKeys++;
            } else {
                key = OTHER_REDIRECT_KEY;
            }
        }
        record(RequestOutcome.HTTP_ERROR, status, key, fromDueUsValue, fromSendUsValue, epochSecond);
    }

    /**
     * Records an answer Richter could not hold to its request's JSON checks (a body over its kept-body limit,
     * {@link ResponseCheck}): ok by its status and headers, counted apart in {@link Counters#unchecked()}.
     */
    synchronized void unchecked(int status, long fromDueUsValue, long fromSendUsValue, long epochSecond) {
        unchecked++;
        record(RequestOutcome.OK, status, null, fromDueUsValue, fromSendUsValue, epochSecond);
    }

    /**
     * Records an answer that missed its request's expectation ({@link ResponseCheck}): a {@code check-failed} error,
     * with its latency as any answer. Its {@code reason} is counted when it is one of the worker's first
     * {@link Counters#MAX_CHECK_REASONS} distinct reasons (or one of those again); the others only in the total.
     */
    synchronized void checkFailed(String reason, long fromDueUsValue, long fromSendUsValue, long epochSecond) {
        if (checkFailures.containsKey(reason) || checkFailures.size() < Counters.MAX_CHECK_REASONS) {
            checkFailures.merge(reason, 1L, Long::sum);
        }
        record(RequestOutcome.CHECK_FAILED, 0, null, fromDueUsValue, fromSendUsValue, epochSecond);
    }

    private void record(RequestOutcome outcome, int status, String httpErrorKey, long fromDueUsValue, long fromSendUsValue,
                        long epochSecond) {
        epochSecond = Math.max(epochSecond, drainedBefore);
        WindowAcc w = latest;
        if (w == null || latestSecond != epochSecond) {
            w = windows.computeIfAbsent(epochSecond, s -> newWindow());
            latest = w;
            latestSecond = epochSecond;
        }
        w.count++;
        switch (outcome) {
            case OK -> ok++;
            case HTTP_ERROR -> {
                httpErrors.merge(httpErrorKey, 1L, Long::sum);
                if (status >= 500) {
                    w.http5xx++;
                } else if (status >= 400) {
                    w.http4xx++;
                }
            }
            case TIMEOUT -> {
                timeouts++;
                w.timeouts++;
            }
            case CONNECT_ERROR -> {
                connectErrors++;
                w.connectErrors++;
            }
            case CHECK_FAILED -> {
                checkFailed++;
                w.checkFailed++;
            }
        }
        if (outcome != RequestOutcome.OK) {
            w.errors++;
        }
        if (outcome != RequestOutcome.CONNECT_ERROR) {
            long d = clampUs(fromDueUsValue);
            fromDueUs.recordValue(d);
            fromSendUs.recordValue(clampUs(fromSendUsValue));
            w.hist.recordValue(d);
        }
    }

    /**
     * Records a response for the shedding evidence: only 429 and 503 are kept ({@link OverloadResponses.Recorder}).
     *
     * @param fromSendUs latency from the send time, microseconds
     * @param nowEpochMs the local clock at arrival, epoch ms (a {@code Retry-After} HTTP-date without {@code Date} is
     *                   measured from it)
     */
    void response(HttpTransport.ResponseHead response, long fromSendUs, long nowEpochMs) {
        if (OverloadResponses.isOverloadStatus(response.status())) {
            overload.record(response.status(), response.retryAfter(), response.date(), fromSendUs, nowEpochMs);
        }
    }

    /** The 429/503 responses of this worker, or empty when it received none. */
    Optional<OverloadResponses> overload(String runId, String stage, int stepIndex, int legIndex, int workerIndex) {
        return overload.any() ? Optional.of(overload.snapshot(runId, stage, stepIndex, legIndex, workerIndex))
                : Optional.empty();
    }

    private WindowAcc dueWindow(long dueEpochSecond) {
        dueEpochSecond = Math.max(dueEpochSecond, drainedBefore);
        WindowAcc w = latestDue;
        if (w == null || latestDueSecond != dueEpochSecond) {
            w = windows.computeIfAbsent(dueEpochSecond, s -> newWindow());
            latestDue = w;
            latestDueSecond = dueEpochSecond;
        }
        return w;
    }

    /** Removes and returns the windows of seconds before {@code epochSecondExclusive}. */
    List<Window> drainWindowsBefore(long epochSecondExclusive, String runId, String stage, int stepIndex,
                                    int workerIndex, int legIndex) {
        List<Map.Entry<Long, WindowAcc>> taken = new ArrayList<>();
        synchronized (this) {
            drainedBefore = Math.max(drainedBefore, epochSecondExclusive);
            Iterator<Map.Entry<Long, WindowAcc>> it = windows.headMap(epochSecondExclusive, false).entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<Long, WindowAcc> e = it.next();
                WindowAcc w = e.getValue();
                taken.add(Map.entry(e.getKey(), w));
                it.remove();
                if (w == latest) {
                    latest = null;
                }
                if (w == latestDue) {
                    latestDue = null;
                }
            }
        }
        // Encoded outside the lock: no send or outcome writes a drained window again (they count in the second after
        // drainedBefore), and compressing a histogram takes milliseconds on one vCPU, during which the send loop, waiting
        // for the lock to record its sends, sent late (bench/load-driver.sh, worker10k).
        List<Window> out = new ArrayList<>(taken.size());
        for (Map.Entry<Long, WindowAcc> e : taken) {
            WindowAcc w = e.getValue();
            out.add(new Window(runId, stage, stepIndex, workerIndex, e.getKey(), w.count, w.errors,
                    encoder.apply(w.hist), legIndex, w.sent, w.http4xx, w.http5xx, w.timeouts, w.connectErrors,
                    w.dropped, w.late, w.checkFailed));
            w.hist.reset();
            synchronized (this) {
                spareHistograms.addLast(w.hist);
            }
        }
        return out;
    }

    synchronized Counters counters() {
        return new Counters(due, sent, ok, httpErrors, timeouts, connectErrors, dropped, late, marked, checkFailed,
                checkFailures, unchecked);
    }

    /** A copy of the send lateness of every request sent so far, microseconds. */
    synchronized Histogram sendLatenessUs() {
        return sendLatenessUs.copy();
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
