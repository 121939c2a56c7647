package dev.richter.sizing;

/**
 * How many requests one load-driver worker keeps in flight, and over how many connections, sized from the target's
 * latency by Little's law: requests in flight = arrival rate × time in the system ({@code L = λW}; J. D. C. Little,
 * "A Proof for the Queuing Formula L = λW", Operations Research 9(3), 1961). An open-model worker's arrival rate is
 * its send rate, so at {@code perWorkerQps} against a target answering in {@code latencyMs} it holds
 * {@code perWorkerQps × latencyMs / 1000} requests in flight on average.
 *
 * <p>Rules:
 * <ul>
 *   <li><b>Needed</b>: {@code ceil(perWorkerQps × expectedLatencyMs / 1000 × }{@value #HEADROOM}{@code )}. The headroom
 *       lets the latency grow by half before the cap drops requests; a step whose target slows further shows it as
 *       {@code dropped}, counted, never as a silent slowdown of the send rate.</li>
 *   <li><b>Ceiling</b>: one worker holds at most {@value #MAX_IN_FLIGHT} requests in flight. Lambda gives an execution
 *       environment {@value #LAMBDA_FILE_DESCRIPTORS} file descriptors (docs.aws.amazon.com/lambda/latest/dg/
 *       gettingstarted-limits.html, "File descriptors"), and over HTTP/1.1 each request in flight holds a connection of
 *       its own (the load driver does not pipeline); {@value #JVM_FILE_DESCRIPTORS} are left for the JVM (its jars,
 *       its epoll and event descriptors, the DynamoDB and KMS clients' connections, standard streams). Memory does not
 *       bind first: a request in flight keeps its encoded request, shared by every request of its template, and at
 *       most 64 KiB of body (the load driver's {@code MAX_KEPT_BODY_BYTES}, only when its expectation reads the body),
 *       so the ceiling's requests keep at most 60 MiB of the 1 769 MB worker. Over HTTP/2 a connection carries many
 *       streams, but whether an https target agrees to h2 is known only at its TLS handshake (ALPN), so the ceiling is
 *       HTTP/1.1's.</li>
 *   <li><b>Cap</b>: the needed count when the plan states {@code expectedLatencyMs}, else the ceiling.</li>
 *   <li><b>Connections</b> for the cap: over HTTP/1.1 one per request in flight; over HTTP/2
 *       {@code ceil(cap / }{@value #HTTP2_STREAMS_PER_CONNECTION}{@code )} (a server should allow at least 100
 *       concurrent streams, RFC 9113 §6.5.2 {@code SETTINGS_MAX_CONCURRENT_STREAMS}).</li>
 *   <li><b>Fits</b> when the needed count is within the ceiling; otherwise the plan's estimate lists a violation at
 *       {@code $.perWorkerQps} before the run, and a plan that omits {@code perWorkerQps} gets
 *       {@link #perWorkerQpsAt} instead of the measured capacity.</li>
 * </ul>
 *
 * @param perWorkerQps       the worker's rate, requests per second
 * @param expectedLatencyMs  the latency the plan expects (its targets' p99 under load), milliseconds, or null when it
 *                           states none
 * @param inFlightNeeded     requests in flight the rate needs at that latency with the headroom; the ceiling when no
 *                           latency is stated
 * @param inFlightCap        the worker's in-flight cap: {@code min(inFlightNeeded, maxInFlight)}
 * @param maxInFlight        the ceiling, {@value #MAX_IN_FLIGHT}
 * @param connectionsHttp1   connections the cap needs over HTTP/1.1
 * @param connectionsHttp2   connections the cap needs over HTTP/2
 * @param latencyHeldMs      the longest latency at which the worker still holds its rate within the ceiling and with
 *                           the headroom, milliseconds: {@code maxInFlight / (perWorkerQps × headroom) × 1000}, rounded
 *                           down
 */
public record InFlightSizing(double perWorkerQps, Integer expectedLatencyMs, int inFlightNeeded, int inFlightCap,
                             int maxInFlight, int connectionsHttp1, int connectionsHttp2, long latencyHeldMs) {
    /** File descriptors of one Lambda execution environment (Lambda quotas, "File descriptors": 1,024). */
    public static final int LAMBDA_FILE_DESCRIPTORS = 1_024;
    /** File descriptors left for the worker's JVM and AWS clients, not for connections to the target. */
    public static final int JVM_FILE_DESCRIPTORS = 64;
    /** Requests one worker holds in flight at most: one HTTP/1.1 connection each within Lambda's descriptors. */
    public static final int MAX_IN_FLIGHT = LAMBDA_FILE_DESCRIPTORS - JVM_FILE_DESCRIPTORS;
    /** Factor on Little's law's mean: the latency may grow by half before the cap drops requests. */
    public static final double HEADROOM = 1.5;
    /** Concurrent streams one HTTP/2 connection carries at least (RFC 9113 §6.5.2 recommends no fewer than 100). */
    public static final int HTTP2_STREAMS_PER_CONNECTION = 100;
    /** Where {@link #MAX_IN_FLIGHT} comes from, for violations and assumptions. */
    public static final String CEILING_SOURCE = "Lambda's 1,024 file descriptors per execution environment "
            + "(docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html) less 64 for the JVM: one HTTP/1.1 "
            + "connection per request in flight";

    /**
     * Sizes a worker of rate {@code perWorkerQps} for targets answering in {@code expectedLatencyMs}.
     *
     * @param perWorkerQps      requests per second, finite and &gt; 0
     * @param expectedLatencyMs milliseconds, ≥ 1, or null when the plan states none
     * @throws IllegalArgumentException when the rate is not finite and positive or the latency is below 1 ms
     */
    public static InFlightSizing of(double perWorkerQps, Integer expectedLatencyMs) {
        if (!(perWorkerQps > 0) || Double.isInfinite(perWorkerQps)) {
            throw new IllegalArgumentException("perWorkerQps must be a finite rate above 0, was " + perWorkerQps);
        }
        if (expectedLatencyMs != null && expectedLatencyMs < 1) {
            throw new IllegalArgumentException("expectedLatencyMs must be >= 1, was " + expectedLatencyMs);
        }
        long needed = expectedLatencyMs == null ? MAX_IN_FLIGHT
                : Math.max(1, (long) Math.ceil(perWorkerQps * expectedLatencyMs / 1000.0 * HEADROOM - 1e-9));
        int cap = (int) Math.min(needed, MAX_IN_FLIGHT);
        long held = (long) Math.floor(MAX_IN_FLIGHT * 1000.0 / (perWorkerQps * HEADROOM) + 1e-9);
        return new InFlightSizing(perWorkerQps, expectedLatencyMs, (int) Math.min(Integer.MAX_VALUE, needed), cap,
                MAX_IN_FLIGHT, cap, (cap + HTTP2_STREAMS_PER_CONNECTION - 1) / HTTP2_STREAMS_PER_CONNECTION, held);
    }

    /** True when the rate's requests in flight at the expected latency fit the ceiling. */
    public boolean fits() {
        return inFlightNeeded <= maxInFlight;
    }

    /**
     * The highest rate one worker holds against targets answering in {@code expectedLatencyMs} within the ceiling:
     * {@code floor(MAX_IN_FLIGHT / (latency s × HEADROOM))}, requests per second (960 in flight at 200 ms: 3 200 QPS).
     *
     * @throws IllegalArgumentException when the latency is below 1 ms
     */
    public static double perWorkerQpsAt(int expectedLatencyMs) {
        if (expectedLatencyMs < 1) {
            throw new IllegalArgumentException("expectedLatencyMs must be >= 1, was " + expectedLatencyMs);
        }
        return Math.floor(MAX_IN_FLIGHT * 1000.0 / (expectedLatencyMs * HEADROOM) + 1e-9);
    }

    /**
     * A plan's {@code perWorkerQps} when it states none: the measured capacity ({@link WorkerCapacity#measured()}),
     * lowered to {@link #perWorkerQpsAt} when the plan expects a latency at which a worker cannot hold it.
     *
     * @param expectedLatencyMs milliseconds, ≥ 1, or null
     */
    public static double defaultPerWorkerQps(Integer expectedLatencyMs) {
        double measured = WorkerCapacity.measured().perWorkerQps();
        return expectedLatencyMs == null ? measured : Math.min(measured, perWorkerQpsAt(expectedLatencyMs));
    }
}
