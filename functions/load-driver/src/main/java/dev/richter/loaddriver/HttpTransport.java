package dev.richter.loaddriver;

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
