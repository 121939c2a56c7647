package dev.richter.common.model;

import java.util.Map;
import java.util.TreeMap;

/**
 * Request counters of one worker (or merged over workers) for one step.
 *
 * @param due            requests whose due time passed (the schedule's count)
 * @param sent           requests actually sent
 * @param ok             requests whose final response (after the redirects followed) was 2xx, or 304 Not Modified
 * @param httpErrors     the other final responses by status code, 3xx included, e.g. {@code {"503": 4, "300": 1}}, and
 *                       redirects not followed by status and reason, e.g.
 *                       {@code {"302 redirect out of scope: https://login.example.test": 7}}
 * @param timeouts       requests that hit their deadline
 * @param connectErrors  connection refused / reset / DNS failures
 * @param dropped        due requests not sent because the in-flight cap was reached
 * @param late           sent requests whose send time was later than the lateness tolerance
 * @param marked         sent requests that carried the marker
 */
public record Counters(long due, long sent, long ok, Map<String, Long> httpErrors, long timeouts,
                       long connectErrors, long dropped, long late, long marked) {
    public Counters {
        httpErrors = httpErrors == null ? Map.of() : Map.copyOf(httpErrors);
    }

    /** All-zero counters. */
    public static final Counters ZERO = new Counters(0, 0, 0, Map.of(), 0, 0, 0, 0, 0);

    /** Total failed requests: HTTP errors + timeouts + connect errors. */
    public long errors() {
        return httpErrors.values().stream().mapToLong(Long::longValue).sum() + timeouts + connectErrors;
    }

    /** Field-wise sum of two counters. */
    public Counters plus(Counters o) {
        Map<String, Long> merged = new TreeMap<>(httpErrors);
        o.httpErrors.forEach((k, v) -> merged.merge(k, v, Long::sum));
        return new Counters(due + o.due, sent + o.sent, ok + o.ok, merged, timeouts + o.timeouts,
                connectErrors + o.connectErrors, dropped + o.dropped, late + o.late, marked + o.marked);
    }
}
