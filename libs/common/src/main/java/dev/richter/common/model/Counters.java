package dev.richter.common.model;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Request counters of one worker (or merged over workers) for one step.
 *
 * @param due            requests whose due time passed (the schedule's count)
 * @param sent           requests actually sent
 * @param ok             requests whose final response (after the redirects followed) was 2xx, or 304 Not Modified, and
 *                       met the request's expectation ({@link Expectation}) when it has one
 * @param httpErrors     the other final responses by status code, 3xx included, e.g. {@code {"503": 4, "300": 1}}, and
 *                       redirects not followed by status and reason, e.g.
 *                       {@code {"302 redirect out of scope: https://login.example.test": 7}}
 * @param timeouts       requests that hit their deadline
 * @param connectErrors  connection refused / reset / DNS failures
 * @param dropped        due requests not sent because the in-flight cap was reached
 * @param late           sent requests whose send time was later than the lateness tolerance
 * @param marked         sent requests that carried the marker
 * @param checkFailed    answers that missed their request's expectation ({@code check-failed}: a 200 with a degraded
 *                       body, a status the expectation does not list, a body over its bound, ...)
 * @param checkFailures  of those, counts by reason, e.g. {@code {"$.status is \"ACCEPTED\", expected \"PLACED\"": 12}}:
 *                       at most {@link #MAX_CHECK_REASONS} distinct reasons per worker, the first ones seen (merged
 *                       counters hold each worker's); answers with further reasons are counted in {@code checkFailed}
 *                       only
 * @param unchecked      of {@code ok}, answers whose body Richter could not hold to the expectation's JSON checks: a
 *                       body over Richter's kept-body limit (65536 bytes, {@code HttpTransport.MAX_KEPT_BODY_BYTES}).
 *                       The limit is Richter's, so such an answer is judged by its status and headers alone and is
 *                       never a failure of the target; the report counts it apart
 * @param fallbacks      answers the report found served by a fallback beyond those already counted as errors (from the
 *                       circuit breakers' not-permitted calls over the step), taken out of {@code ok}: errors of their
 *                       own, as check failures are. 0 in the load driver's counters; set by the report
 *                       ({@code StepFigures.withFallbacks})
 * @param retried        exchanges the client started again because the server never processed them: an HTTP/2 stream
 *                       the server refused ({@code REFUSED_STREAM}) or one above a GOAWAY's last stream id (RFC 9113
 *                       §8.7). Each is still one request in {@code sent}, with the one outcome of its last attempt; a
 *                       count of them tells a server that sheds by refusing streams from one that never does
 */
public record Counters(long due, long sent, long ok, Map<String, Long> httpErrors, long timeouts,
                       long connectErrors, long dropped, long late, long marked, long checkFailed,
                       Map<String, Long> checkFailures, long unchecked, long fallbacks, long retried) {
    /** Distinct check-failure reasons one worker keeps with their counts. */
    public static final int MAX_CHECK_REASONS = 5;

    public Counters {
        httpErrors = httpErrors == null ? Map.of() : Map.copyOf(httpErrors);
        checkFailures = checkFailures == null ? Map.of() : Map.copyOf(checkFailures);
    }

    /** Counters without exchanges started again ({@code retried} 0). */
    public Counters(long due, long sent, long ok, Map<String, Long> httpErrors, long timeouts, long connectErrors,
                    long dropped, long late, long marked, long checkFailed, Map<String, Long> checkFailures,
                    long unchecked, long fallbacks) {
        this(due, sent, ok, httpErrors, timeouts, connectErrors, dropped, late, marked, checkFailed, checkFailures,
                unchecked, fallbacks, 0);
    }

    /** These counters with {@code n} exchanges started again ({@link #retried()}). */
    public Counters withRetried(long n) {
        return new Counters(due, sent, ok, httpErrors, timeouts, connectErrors, dropped, late, marked, checkFailed,
                checkFailures, unchecked, fallbacks, n);
    }

    /** The load driver's counters: no fallbacks found by a report. */
    public Counters(long due, long sent, long ok, Map<String, Long> httpErrors, long timeouts, long connectErrors,
                    long dropped, long late, long marked, long checkFailed, Map<String, Long> checkFailures,
                    long unchecked) {
        this(due, sent, ok, httpErrors, timeouts, connectErrors, dropped, late, marked, checkFailed, checkFailures,
                unchecked, 0);
    }

    /** Counters with every answer checked ({@code unchecked} 0). */
    public Counters(long due, long sent, long ok, Map<String, Long> httpErrors, long timeouts, long connectErrors,
                    long dropped, long late, long marked, long checkFailed, Map<String, Long> checkFailures) {
        this(due, sent, ok, httpErrors, timeouts, connectErrors, dropped, late, marked, checkFailed, checkFailures, 0);
    }

    /**
     * These counters with {@code n} more of {@code ok} found served by a fallback ({@link #fallbacks()}), at most
     * {@code ok}.
     */
    public Counters withFallbacks(long n) {
        long moved = Math.max(0, Math.min(n, ok));
        return new Counters(due, sent, ok - moved, httpErrors, timeouts, connectErrors, dropped, late, marked, checkFailed,
                checkFailures, unchecked, fallbacks + moved, retried);
    }

    /** Counters without check failures (requests without expectations). */
    public Counters(long due, long sent, long ok, Map<String, Long> httpErrors, long timeouts, long connectErrors,
                    long dropped, long late, long marked) {
        this(due, sent, ok, httpErrors, timeouts, connectErrors, dropped, late, marked, 0, Map.of());
    }

    /** All-zero counters. */
    public static final Counters ZERO = new Counters(0, 0, 0, Map.of(), 0, 0, 0, 0, 0);

    /** Total failed requests: HTTP errors + timeouts + connect errors + check failures + fallbacks. */
    public long errors() {
        return httpErrors.values().stream().mapToLong(Long::longValue).sum() + timeouts + connectErrors + checkFailed
                + fallbacks;
    }

    /**
     * The {@code n} most frequent check-failure reasons with their counts, most frequent first (ties by reason), for a
     * report.
     */
    public Map<String, Long> topCheckFailures(int n) {
        Map<String, Long> top = new LinkedHashMap<>();
        checkFailures.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()).thenComparing(Map.Entry.comparingByKey()))
                .limit(n)
                .forEach(e -> top.put(e.getKey(), e.getValue()));
        return top;
    }

    /** Field-wise sum of two counters (the maps summed key by key). */
    public Counters plus(Counters o) {
        Map<String, Long> merged = new TreeMap<>(httpErrors);
        o.httpErrors.forEach((k, v) -> merged.merge(k, v, Long::sum));
        Map<String, Long> reasons = new TreeMap<>(checkFailures);
        o.checkFailures.forEach((k, v) -> reasons.merge(k, v, Long::sum));
        return new Counters(due + o.due, sent + o.sent, ok + o.ok, merged, timeouts + o.timeouts,
                connectErrors + o.connectErrors, dropped + o.dropped, late + o.late, marked + o.marked,
                checkFailed + o.checkFailed, reasons, unchecked + o.unchecked, fallbacks + o.fallbacks, retried + o.retried);
    }
}
