package dev.richter.common.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import java.util.List;
import java.util.Map;

/**
 * What a good answer to a replayed request is: a request's (or a scenario's) {@code expect} in a plan
 * ({@code openapi.json#/components/schemas/Expect}). A real system answers 200 with a degraded body (a fallback, a
 * circuit breaker open); without an expectation every 2xx and 304 counts as ok. An answer that misses an expectation is
 * counted as {@code check-failed} ({@link Counters#checkFailed()}), an error of its own kind; a status outside
 * 2xx/304 that {@link #status} does not list stays an HTTP error by status, as without an expectation.
 *
 * <p>The load driver keeps a response's body only for a request whose expectation reads it ({@link #readsBody()}:
 * {@link #json} or {@link #maxBytes}), and then at most 64 KiB of it (the load driver's bound); every other request
 * costs what it cost before.
 *
 * @param status   the statuses of a good answer, e.g. {@code [201]}; empty: any 2xx or 304 (the default)
 * @param json     checks on the body read as JSON, all of which must hold; empty for none
 * @param headers  response header name (any case) → regular expression ({@link java.util.regex.Pattern}) its first
 *                 value must match as a whole; a missing header fails; empty for none
 * @param maxBytes largest body of a good answer, bytes (counted whole, past the kept 64 KiB too); 0 for no limit
 */
public record Expectation(List<Integer> status, List<JsonCheck> json, Map<String, String> headers, long maxBytes) {
    /** No expectation: any 2xx or 304 is ok. */
    public static final Expectation NONE = new Expectation(List.of(), List.of(), Map.of(), 0);

    public Expectation {
        status = status == null ? List.of() : List.copyOf(status);
        json = json == null ? List.of() : List.copyOf(json);
        headers = headers == null ? Map.of() : Map.copyOf(headers);
    }

    /** Whether this is {@link #NONE} (nothing beyond the default 2xx/304). */
    @JsonIgnore
    public boolean isNone() {
        return status.isEmpty() && json.isEmpty() && headers.isEmpty() && maxBytes <= 0;
    }

    /** Whether judging an answer needs its body ({@link #json} or {@link #maxBytes} given). */
    public boolean readsBody() {
        return !json.isEmpty() || maxBytes > 0;
    }

    /** The kind of one {@link JsonCheck}: the plan's field that states it. */
    public enum CheckKind {
        /** {@code "equals": <JSON value>}: every value the path selects equals it (numbers by value: 1 equals 1.0). */
        EQUALS,
        /** {@code "nonEmpty": true}: the path selects something, and each value is not null, "", [] or {}. */
        NON_EMPTY,
        /** {@code "matches": "<regex>"}: the path selects something, and each value (a string, or a number or boolean
         * as its JSON text) matches the regular expression as a whole. */
        MATCHES,
        /** {@code "absent": true}: the path selects nothing (a member whose value is null is present). */
        ABSENT,
        /** {@code "absent": false}: the path selects something. */
        PRESENT
    }

    /**
     * One check on a JSON body.
     *
     * @param path  a JSONPath (Jayway JsonPath syntax, e.g. {@code $.status}, {@code $.items[0].sku},
     *              {@code $.items[*].qty}); a path that selects several values is checked on each of them
     * @param kind  what must hold
     * @param value the {@code equals} operand (any JSON value, null included) or the {@code matches} regular expression
     *              (a string); {@link NullNode} for the other kinds
     */
    public record JsonCheck(String path, CheckKind kind, JsonNode value) {
        public JsonCheck {
            value = value == null ? NullNode.getInstance() : value;
        }
    }
}
