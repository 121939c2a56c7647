package dev.richter.common.model;

import java.util.Map;

/**
 * One replayable request of a traffic set.
 *
 * @param method     HTTP method, e.g. {@code POST}
 * @param path       path and query relative to the scenario's target base URL, e.g. {@code /orders?x=1}
 * @param headers    request headers (single value each); never includes the marker, which is merged at send time
 * @param bodyBase64 body bytes, base64 (binary-safe); empty or null for no body
 */
public record ReplayRequest(String method, String path, Map<String, String> headers, String bodyBase64) {
    public ReplayRequest {
        headers = headers == null ? Map.of() : Map.copyOf(headers);
    }
}
