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
 * {@link ResponseHead} of the last response (including its body, which is discarded), or exceptionally with:
 * {@link java.net.http.HttpTimeoutException} or {@link java.util.concurrent.TimeoutException} when the deadline passed;
 * a {@link RedirectException} for a redirect not followed (out of the target, too many, no usable {@code Location});
 * another {@link java.io.IOException} (e.g. {@link java.net.ConnectException}) for connection failures. It must
 * complete by the request's deadline (plus scheduling slack).
 */
public interface HttpTransport extends AutoCloseable {
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
    }

    /**
     * Prepares {@code request}.
     *
     * @throws IllegalArgumentException when the request cannot be expressed by this client
     */
    PreparedRequest prepare(OutboundRequest request);

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
     */
    record ResponseHead(int status, String retryAfter, String date, String location) {
        private static final ResponseHead[] BY_STATUS = new ResponseHead[600];

        static {
            for (int i = 0; i < BY_STATUS.length; i++) {
                BY_STATUS[i] = new ResponseHead(i, null, null, null);
            }
        }

        /** The response of {@code status} without headers (shared for 0..599). */
        public static ResponseHead of(int status) {
            return status >= 0 && status < BY_STATUS.length ? BY_STATUS[status] : new ResponseHead(status, null, null, null);
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
