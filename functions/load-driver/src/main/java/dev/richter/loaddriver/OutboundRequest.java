package dev.richter.loaddriver;

import java.net.URI;
import java.util.Map;

/**
 * One fully resolved request the load driver sends (marker already applied).
 *
 * @param uri       absolute target URI (scenario base URL + replayed path and query)
 * @param method    HTTP method, e.g. {@code POST}
 * @param headers   header name → value, in insertion order, marker included
 * @param body      body bytes, empty for none (binary-safe; decoded from {@code bodyBase64})
 * @param timeoutMs deadline of the whole exchange, milliseconds
 * @param capture   what the transport keeps of the final response for the request's expectation
 *                  ({@link HttpTransport.Capture#NONE} for a request without one)
 */
public record OutboundRequest(URI uri, String method, Map<String, String> headers, byte[] body, int timeoutMs,
                              HttpTransport.Capture capture) {
    public OutboundRequest {
        capture = capture == null ? HttpTransport.Capture.NONE : capture;
    }

    /** A request that keeps nothing of its response beyond the head. */
    public OutboundRequest(URI uri, String method, Map<String, String> headers, byte[] body, int timeoutMs) {
        this(uri, method, headers, body, timeoutMs, HttpTransport.Capture.NONE);
    }
}
