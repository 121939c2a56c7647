package dev.richter.loaddriver;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The HTTP client behind the load driver. Requests are prepared once per traffic-set entry and sent
 * many times, so per-send work stays on the hot path only.
 *
 * <p>A sent request's future completes with the HTTP status code once the response (including its
 * body, which is discarded) arrived, or exceptionally with: {@link java.net.http.HttpTimeoutException}
 * or {@link java.util.concurrent.TimeoutException} when the deadline passed; an {@link java.io.IOException}
 * (e.g. {@link java.net.ConnectException}) for connection failures. It must complete by the request's
 * deadline (plus scheduling slack).
 */
public interface HttpTransport extends AutoCloseable {
    /** A request ready to be sent any number of times. */
    interface PreparedRequest {
        /** Sends asynchronously; must not block the caller. */
        CompletableFuture<Integer> send();

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
}
