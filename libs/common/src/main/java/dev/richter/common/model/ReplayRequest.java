package dev.richter.common.model;

import java.util.Map;

/**
 * One replayable request of a traffic set.
 *
 * @param method     HTTP method, e.g. {@code POST}
 * @param path       path and query relative to the scenario's target base URL, e.g. {@code /orders?x=1}
 * @param headers    request headers (single value each); never includes the marker, which is merged at send time
 * @param bodyBase64 body bytes, base64 (binary-safe); empty or null for no body
 * @param expect     what a good answer is ({@link Expectation#NONE}: any 2xx or 304)
 */
public record ReplayRequest(String method, String path, Map<String, String> headers, String bodyBase64,
                            Expectation expect) {
    public ReplayRequest {
        headers = headers == null ? Map.of() : Map.copyOf(headers);
        expect = expect == null ? Expectation.NONE : expect;
    }

    /** A request for which any 2xx or 304 is a good answer. */
    public ReplayRequest(String method, String path, Map<String, String> headers, String bodyBase64) {
        this(method, path, headers, bodyBase64, Expectation.NONE);
    }

    /** This request with {@code expectation}. */
    public ReplayRequest withExpect(Expectation expectation) {
        return new ReplayRequest(method, path, headers, bodyBase64, expectation);
    }
}
