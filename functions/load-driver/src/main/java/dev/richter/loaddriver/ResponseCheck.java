package dev.richter.loaddriver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.jayway.jsonpath.Configuration;
import com.jayway.jsonpath.JsonPath;
import com.jayway.jsonpath.Option;
import com.jayway.jsonpath.spi.json.JacksonJsonNodeJsonProvider;
import com.jayway.jsonpath.spi.mapper.JacksonMappingProvider;
import dev.richter.common.Json;
import dev.richter.common.model.Expectation;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A request's {@link Expectation}, compiled once when the worker starts, judging each answer: ok, an HTTP error by
 * status (as without an expectation), or {@code check-failed} with a reason.
 *
 * <p>The rules, in order: a status the expectation lists is judged further; a status it does not list is
 * {@code check-failed} when it is 2xx or 304 (a good status for a request without an expectation, e.g. 200 where
 * 201 was expected) and an HTTP error otherwise (a 429 stays shedding evidence). Then {@code maxBytes} (the whole
 * body counted), the headers (each pattern matching the first value as a whole) and the JSON checks on the body,
 * the first miss giving the reason. A body that is not JSON fails the JSON checks with {@code body is not JSON}. A body
 * longer than {@link HttpTransport#MAX_KEPT_BODY_BYTES} is {@code unchecked}: the JSON checks cannot run on the part
 * kept, and that limit is Richter's, so the answer counts as ok by its status and headers and is counted apart
 * ({@link dev.richter.common.model.Counters#unchecked()}), never as the target's failure.
 *
 * <p>JSONPath: Jayway JsonPath on Jackson trees ({@link JacksonJsonNodeJsonProvider}: the body is parsed once by the
 * mapper every function uses); a path selecting several values (a wildcard, a filter) is checked on each, and one
 * selecting none is absent. Jayway rather than a hand-written parser or Jackson's JSON Pointer: users write
 * JSONPath ({@code $.items[0].sku}) in every tool of this field, and the plan's validation compiles the same paths
 * with the same library, so a plan that is stored is one this class can run. Regular expressions are
 * {@link Pattern}s, matched against at most 64 KiB.
 *
 * <p>Reasons are short and bounded (a value shown is cut at {@value #MAX_VALUE_CHARS} characters), since each worker
 * keeps the first {@link dev.richter.common.model.Counters#MAX_CHECK_REASONS} distinct ones with their counts.
 * Thread-safe: immutable, called from the transport's completion threads.
 */
final class ResponseCheck {
    /** No expectation: ok is 2xx or 304, as without one. */
    static final ResponseCheck NONE = new ResponseCheck(Expectation.NONE);

    /** Longest value text in a reason, characters. */
    static final int MAX_VALUE_CHARS = 40;

    /**
     * Jackson trees in, Jackson trees out; a missing path selects nothing instead of throwing. In a holder of its own, so
     * that JsonPath's classes load only in a worker whose requests have JSON checks: loading them delayed the first
     * sends of workers without any (LoadDriverTest's late counts).
     */
    private static final class JsonPaths {
        static final Configuration CONFIG = Configuration.builder()
                .jsonProvider(new JacksonJsonNodeJsonProvider(Json.MAPPER))
                .mappingProvider(new JacksonMappingProvider(Json.MAPPER))
                .options(Option.ALWAYS_RETURN_LIST, Option.SUPPRESS_EXCEPTIONS)
                .build();
    }

    /** How one answer is counted. */
    enum AnswerCount { OK, HTTP_ERROR, CHECK_FAILED, UNCHECKED }

    /**
     * One answer's judgement.
     *
     * @param kind   how it is counted
     * @param reason why it failed its check ({@link AnswerCount#CHECK_FAILED}); empty otherwise
     */
    record Judgement(AnswerCount kind, String reason) {
        static final Judgement OK = new Judgement(AnswerCount.OK, "");
        static final Judgement HTTP_ERROR = new Judgement(AnswerCount.HTTP_ERROR, "");

        static Judgement unchecked(String reason) {
            return new Judgement(AnswerCount.UNCHECKED, reason);
        }

        static Judgement failed(String reason) {
            return new Judgement(AnswerCount.CHECK_FAILED, reason);
        }
    }

    private record CompiledJson(Expectation.JsonCheck check, JsonPath path, Pattern pattern) {}

    private record CompiledHeader(String name, String lowerName, Pattern pattern) {}

    private final Expectation expect;
    private final HttpTransport.Capture capture;
    private final List<CompiledJson> json = new ArrayList<>();
    private final List<CompiledHeader> headers = new ArrayList<>();
    private final String expectedStatuses;

    private ResponseCheck(Expectation expect) {
        this.expect = expect;
        this.capture = HttpTransport.Capture.of(expect);
        for (Expectation.JsonCheck c : expect.json()) {
            json.add(new CompiledJson(c, JsonPath.compile(c.path()),
                    c.kind() == Expectation.CheckKind.MATCHES ? Pattern.compile(c.value().asText()) : null));
        }
        expect.headers().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(h -> headers.add(
                new CompiledHeader(h.getKey(), h.getKey().toLowerCase(Locale.ROOT), Pattern.compile(h.getValue()))));
        this.expectedStatuses = expect.status().isEmpty() ? ""
                : expect.status().size() == 1 ? "expected " + expect.status().get(0)
                : "expected one of " + expect.status().stream().map(String::valueOf).collect(Collectors.joining(", "));
    }

    /**
     * The check of {@code expect}: {@link #NONE} for {@link Expectation#NONE}.
     *
     * @throws IllegalArgumentException when a JSONPath or a regular expression does not compile (a plan refused at
     *                                  {@code POST /plans} never has one)
     */
    static ResponseCheck of(Expectation expect) {
        return expect.isNone() ? NONE : new ResponseCheck(expect);
    }

    /** What the transport must keep of a response for {@link #judge}. */
    HttpTransport.Capture capture() {
        return capture;
    }

    /** Whether this is {@link #NONE}. */
    boolean none() {
        return this == NONE;
    }

    /**
     * How {@code answer}, the final response of a request (after its redirects), is counted.
     *
     * @param answer the response with what was kept for {@link #capture()}
     */
    Judgement judge(HttpTransport.ResponseHead answer) {
        int status = answer.status();
        boolean success = Redirects.isSuccess(status);
        if (!expect.status().isEmpty() && !expect.status().contains(status)) {
            return success ? Judgement.failed("status " + status + ", " + expectedStatuses) : Judgement.HTTP_ERROR;
        }
        if (expect.status().isEmpty() && !success) {
            return Judgement.HTTP_ERROR;
        }
        HttpTransport.Kept kept = answer.kept();
        if (expect.maxBytes() > 0 && kept.bodyBytes() > expect.maxBytes()) {
            return Judgement.failed("body of " + kept.bodyBytes() + " bytes, over maxBytes " + expect.maxBytes());
        }
        for (CompiledHeader h : headers) {
            String v = kept.headers().get(h.lowerName());
            if (v == null) {
                return Judgement.failed("header " + h.name() + " is absent");
            }
            if (!h.pattern().matcher(v).matches()) {
                return Judgement.failed("header " + h.name() + " " + quote(v) + " does not match " + h.pattern().pattern());
            }
        }
        if (json.isEmpty()) {
            return Judgement.OK;
        }
        if (kept.bodyOverBound()) {
            return Judgement.unchecked("body over " + HttpTransport.MAX_KEPT_BODY_BYTES + " bytes, Richter's kept-body limit");
        }
        JsonNode body;
        try {
            body = kept.body().length == 0 ? null : Json.MAPPER.readTree(kept.body());
        } catch (IOException e) {
            body = null;
        }
        if (body == null || body.isMissingNode()) {
            return Judgement.failed(kept.body().length == 0 ? "body is empty, not JSON" : "body is not JSON");
        }
        for (CompiledJson c : json) {
            String failure = failure(c, c.path().read(body, JsonPaths.CONFIG));
            if (failure != null) {
                return Judgement.failed(failure);
            }
        }
        return Judgement.OK;
    }

    /** Why {@code c} fails on the values its path selected, or null when it holds. */
    private static String failure(CompiledJson c, ArrayNode values) {
        String path = c.check().path();
        Expectation.CheckKind kind = c.check().kind();
        if (kind == Expectation.CheckKind.ABSENT) {
            return values.isEmpty() ? null : path + " is present (" + shown(values.get(0)) + "), expected absent";
        }
        if (values.isEmpty()) {
            return switch (kind) {
                case EQUALS -> path + " is absent, expected " + shown(c.check().value());
                case MATCHES -> path + " is absent, expected a match of " + c.pattern().pattern();
                default -> path + " is absent";
            };
        }
        for (JsonNode v : values) {
            String f = switch (kind) {
                case EQUALS -> sameJson(v, c.check().value()) ? null
                        : path + " is " + shown(v) + ", expected " + shown(c.check().value());
                case NON_EMPTY -> isEmpty(v) ? path + " is empty (" + shown(v) + ")" : null;
                case MATCHES -> v.isValueNode() && !v.isNull() && c.pattern().matcher(v.isTextual() ? v.asText() : v.toString()).matches()
                        ? null : path + " " + shown(v) + " does not match " + c.pattern().pattern();
                default -> null; // PRESENT: selected something
            };
            if (f != null) {
                return f;
            }
        }
        return null;
    }

    /** JSON equality, numbers by value (1 equals 1.0). */
    private static boolean sameJson(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue()) == 0;
        }
        return a.equals(b);
    }

    private static boolean isEmpty(JsonNode v) {
        return v.isNull() || (v.isTextual() && v.asText().isEmpty()) || (v.isContainerNode() && v.isEmpty());
    }

    private static String shown(JsonNode v) {
        return cut(v.toString());
    }

    private static String quote(String s) {
        return cut("\"" + s + "\"");
    }

    private static String cut(String s) {
        return s.length() <= MAX_VALUE_CHARS ? s : s.substring(0, MAX_VALUE_CHARS) + "...";
    }
}
