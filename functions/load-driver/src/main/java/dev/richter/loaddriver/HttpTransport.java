package dev.richter.loaddriver;

import dev.richter.common.model.OverloadResponses;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;

/**
 * The HTTP client behind the load driver. Requests are prepared once per traffic-set entry and sent
 * many times, so per-send work stays on the hot path only.
 *
 * <p>A sent request follows its redirects within its target ({@link Redirects}: same origin, at most
 * {@link Redirects#MAX_REDIRECTS}, the deadline covering the whole chain). Its future completes with the
 * {@link ResponseHead} of the last response (its body discarded, unless the request's {@link OutboundRequest#capture}
 * asks for it: then at most {@link #MAX_KEPT_BODY_BYTES} of it are kept, and the named headers), or exceptionally with:
 * {@link java.net.http.HttpTimeoutException} or {@link java.util.concurrent.TimeoutException} when the deadline passed;
 * a {@link RedirectException} for a redirect not followed (out of the target, too many, no usable {@code Location});
 * another {@link java.io.IOException} (e.g. {@link java.net.ConnectException}) for connection failures. It must
 * complete by the request's deadline (plus scheduling slack).
 */
public interface HttpTransport extends AutoCloseable {
    /**
     * Most bytes of a response body a transport keeps for a request that asks for its body ({@link Capture#body}),
     * 64 KiB; a longer body is counted whole ({@link Kept#bodyBytes}) and kept only up to this.
     */
    int MAX_KEPT_BODY_BYTES = 64 * 1024;

    /**
     * What a transport keeps of a final response beyond its {@link ResponseHead}: for a request whose expectation reads
     * headers or the body ({@link dev.richter.common.model.Expectation}). Redirects followed keep nothing.
     *
     * @param headers lower-case names of the headers whose first value is kept
     * @param body    whether the body is kept (at most {@link #MAX_KEPT_BODY_BYTES}) and counted
     */
    record Capture(java.util.List<String> headers, boolean body) {
        /** Nothing beyond the head: what every request without an expectation asks for. */
        public static final Capture NONE = new Capture(java.util.List.of(), false);

        public Capture {
            headers = java.util.List.copyOf(headers);
        }

        /** What judging an answer by {@code expect} reads: its headers' names (lower-cased) and, for JSON or a size limit, the body. */
        public static Capture of(dev.richter.common.model.Expectation expect) {
            if (expect.headers().isEmpty() && !expect.readsBody()) {
                return NONE;
            }
            return new Capture(expect.headers().keySet().stream().map(n -> n.toLowerCase(java.util.Locale.ROOT)).sorted().toList(),
                    expect.readsBody());
        }

        /** Whether anything is kept beyond the head. */
        public boolean any() {
            return body || !headers.isEmpty();
        }

        /**
         * The first values of the {@link #headers} asked for that {@code from} has.
         *
         * @param read reads one header value by lower-case name (null when absent)
         */
        public <H> java.util.Map<String, String> read(H from, BiFunction<H, String, String> read) {
            if (headers.isEmpty()) {
                return java.util.Map.of();
            }
            java.util.Map<String, String> out = new java.util.HashMap<>();
            for (String name : headers) {
                String v = read.apply(from, name);
                if (v != null) {
                    out.put(name, v);
                }
            }
            return out;
        }
    }

    /**
     * What was kept of a response for its {@link Capture}.
     *
     * @param headers   lower-case header name → first value, for the names asked for that the response had
     * @param body      the body's first bytes, at most {@link #MAX_KEPT_BODY_BYTES} (empty when not asked for)
     * @param bodyBytes the whole body's length, bytes, as received (decoded framing, no content decoding); -1 when the
     *                  body was not asked for
     */
    record Kept(java.util.Map<String, String> headers, byte[] body, long bodyBytes) {
        /** Nothing kept. */
        public static final Kept NONE = new Kept(java.util.Map.of(), new byte[0], -1);

        /** Whether the body was longer than what was kept ({@link #MAX_KEPT_BODY_BYTES}). */
        public boolean bodyOverBound() {
            return bodyBytes > body.length;
        }
    }
    /** A request ready to be sent any number of times. */
    interface PreparedRequest {
        /** Sends asynchronously; must not block the caller. */
        CompletableFuture<ResponseHead> send();

        /**
         * The single I/O thread this request's exchanges run on, when it has timers precise to tens of
         * microseconds and counts delays in {@link System#nanoTime()}: a {@link #send()} made on it writes at
         * once, with no hand-off to another thread, so the load driver runs its arrival scheduler there
         * ({@link ArrivalScheduler#runOn}). Empty (the default) when there is no such thread; the driver then
         * schedules on its calling thread.
         */
        default Optional<ArrivalScheduler.TimerLoop> sendLoop() {
            return Optional.empty();
        }

        /**
         * Starts opening connections to this request's target until those open or opening can carry {@code inFlight}
         * requests at once (HTTP/1.1: one connection per request; HTTP/2: {@code inFlight} over the server's
         * concurrent streams per connection), bounded by the transport's own limits, without sending anything; returns
         * at once, and opens none twice. The load driver calls it in a worker's lead, so that the first sends of its
         * step find open connections instead of opening them in a burst, and again each second with the in-flight it
         * observed. By default does nothing (a transport whose connections are not its own to open).
         *
         * @param inFlight requests to carry at once, ≥ 0
         */
        default void preconnect(int inFlight) {
        }

        /**
         * The most requests to this request's target the transport carries at once without holding one back for a
         * connection or stream (requests; {@link Integer#MAX_VALUE} when it has no such bound). A request beyond it
         * would wait in the transport, counted sent while nothing was written, so the load driver caps its in-flight
         * requests at it. By default unbounded.
         */
        default int inFlightCapacity() {
            return Integer.MAX_VALUE;
        }
    }

    /**
     * Prepares {@code request}.
     *
     * @throws IllegalArgumentException when the request cannot be expressed by this client
     */
    PreparedRequest prepare(OutboundRequest request);

    /**
     * Exchanges this transport started again since it was made because the server never processed them: an HTTP/2
     * stream refused with {@code REFUSED_STREAM}, or opened above the last stream id of the server's GOAWAY (RFC 9113
     * §8.7 allows both to be retried, on the same connection or another). 0 for a transport that never retries.
     */
    default long retriedExchanges() {
        return 0;
    }

    @Override
    void close();

    /**
     * What the load driver keeps of a response: its status; for the over-capacity statuses 429 and 503 only, the
     * {@code Retry-After} and {@code Date} header values (RFC 9110 §10.2.3, §6.6.1) that the shedding verdict reads; for
     * the redirects a transport follows ({@link Redirects#isRedirect}) only, the {@code Location} value. Every other
     * response is a shared instance per status ({@link #of(int)}), so the hot path allocates nothing.
     *
     * @param status     HTTP status code (0 when the response had none that parses)
     * @param retryAfter the {@code Retry-After} value verbatim, null when absent or not a 429/503
     * @param date       the {@code Date} value verbatim, null when absent or not a 429/503
     * @param location   the {@code Location} value verbatim, null when absent or not a redirect
     * @param kept       what was kept for the request's {@link Capture}; {@link Kept#NONE} for a request that asked for
     *                   nothing (every request without an expectation)
     */
    record ResponseHead(int status, String retryAfter, String date, String location, Kept kept) {
        private static final ResponseHead[] BY_STATUS = new ResponseHead[600];

        static {
            for (int i = 0; i < BY_STATUS.length; i++) {
                BY_STATUS[i] = new ResponseHead(i, null, null, null);
            }
        }

        /** A response that kept nothing beyond its head. */
        public ResponseHead(int status, String retryAfter, String date, String location) {
            this(status, retryAfter, date, location, Kept.NONE);
        }

        /** The response of {@code status} without headers (shared for 0..599). */
        public static ResponseHead of(int status) {
            return status >= 0 && status < BY_STATUS.length ? BY_STATUS[status] : new ResponseHead(status, null, null, null);
        }

        /** This response with {@code what} kept of it. */
        public ResponseHead with(Kept what) {
            return new ResponseHead(status, retryAfter, date, location, what);
        }

        /**
         * The response of {@code status}, keeping {@code retryAfter} and {@code date} only when
         * {@link OverloadResponses#isOverloadStatus} holds and {@code location} only when {@link Redirects#isRedirect}
         * does.
         *
         * @param headers the response's headers, as the client holds them
         * @param read    reads one header value by lower-case name (null when absent); called only for 429/503 and
         *                redirects. Pass a method reference or lambda that captures nothing, so no response allocates one
         */
        public static <H> ResponseHead of(int status, H headers, BiFunction<H, String, String> read) {
            if (Redirects.isRedirect(status)) {
                return new ResponseHead(status, null, null, read.apply(headers, "location"));
            }
            if (!OverloadResponses.isOverloadStatus(status)) {
                return of(status);
            }
            return new ResponseHead(status, read.apply(headers, "retry-after"), read.apply(headers, "date"), null);
        }
    }
}
