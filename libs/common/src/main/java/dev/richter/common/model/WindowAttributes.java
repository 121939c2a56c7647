package dev.richter.common.model;

import java.util.List;

/**
 * Attribute names of a load-driver window item in the run-metrics table (sort key: {@link WindowKey}).
 *
 * <p>Always written: {@value #COUNT}, {@value #ERRORS}, {@value #HIST}. Optional, per-second counts of one worker,
 * written by a load driver that records them (a reader treats an absent attribute as "not recorded", never as 0):
 * {@value #SENT} and the errors by kind of {@link #ERROR_KINDS}. Outcomes ({@value #COUNT}, errors, HTTP classes,
 * timeouts, connect errors) belong to the second in which they were observed; {@value #SENT}, {@value #DROPPED} and
 * {@value #LATE} to the second in which the request was due.
 */
public final class WindowAttributes {
    private WindowAttributes() {}

    /** Outcomes observed in the second (ok + HTTP errors + timeouts + connect errors), N. */
    public static final String COUNT = "count";
    /**
     * Of which failed (a final status other than 2xx and 304, redirects not followed, timeouts, connect errors, answers
     * that missed their expectation), N.
     */
    public static final String ERRORS = "errors";
    /** Latency from the due time of the second's outcomes, microseconds, {@link HistogramCodec} encoding, S. */
    public static final String HIST = "hist";
    /** Requests sent in the second, N (optional). */
    public static final String SENT = "sent";
    /** Responses with a 4xx status, N (optional). */
    public static final String HTTP_4XX = "http4xx";
    /** Responses with a 5xx status, N (optional). */
    public static final String HTTP_5XX = "http5xx";
    /** Requests that hit their deadline, N (optional). */
    public static final String TIMEOUTS = "timeouts";
    /** Connection refused / reset / DNS failures, N (optional). */
    public static final String CONNECT_ERRORS = "connectErrors";
    /** Due requests not sent because the in-flight cap was reached, N (optional). */
    public static final String DROPPED = "dropped";
    /** Requests sent later than the lateness tolerance, N (optional). */
    public static final String LATE = "late";

    /**
     * Answers that missed their request's expectation ({@link Expectation}: {@code check-failed}), N (optional; counted
     * in {@value #ERRORS} too).
     */
    public static final String CHECK_FAILED = "checkFailed";

    /** The errors-by-kind attributes, in the order a report shows them. */
    public static final List<String> ERROR_KINDS = List.of(HTTP_4XX, HTTP_5XX, TIMEOUTS, CHECK_FAILED, CONNECT_ERRORS,
            DROPPED, LATE);
}
