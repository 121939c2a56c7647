package dev.richter.api;

import dev.richter.common.Json;
import dev.richter.runs.InputProblem;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A client-visible failure: HTTP status, a stable error code, a one-line message and the field-level problems.
 * Rendered in the API's one error shape {@code {"error": code, "message": ..., "errors": [{"path": "$.x", "reason": ...}]}}
 * ({@code errors} only when there are field problems); messages name the input and the rule, never a library's
 * internals.
 */
public final class ApiException extends RuntimeException {
    private final int status;
    private final String code;
    private final List<Map<String, String>> errors;
    private final Map<String, String> headers;

    /**
     * @param status  the HTTP status, 4xx or 5xx
     * @param code    the stable error code, e.g. {@code ValidationFailed}
     * @param message one line naming the input and the rule
     * @param errors  the field problems, {@code {path, reason}} each; empty for none
     */
    public ApiException(int status, String code, String message, List<Map<String, String>> errors) {
        this(status, code, message, errors, Map.of());
    }

    private ApiException(int status, String code, String message, List<Map<String, String>> errors, Map<String, String> headers) {
        super(message);
        this.status = status;
        this.code = code;
        this.errors = List.copyOf(errors);
        this.headers = Map.copyOf(headers);
    }

    /** A failure without field problems. */
    public ApiException(int status, String code, String message) {
        this(status, code, message, List.of());
    }

    /** This failure with one more response header (e.g. {@code Allow} of a 405). */
    public ApiException withHeader(String name, String value) {
        Map<String, String> h = new LinkedHashMap<>(headers);
        h.put(name, value);
        return new ApiException(status, code, getMessage(), errors, h);
    }

    /** 404 for an unknown (or other team's) resource. */
    public static ApiException notFound(String what, String id) {
        return new ApiException(404, "NotFound", what + " '" + id + "' not found");
    }

    /** 400 with one field problem. */
    public static ApiException badField(String path, String reason) {
        return new ApiException(400, "ValidationFailed", path + ": " + reason, List.of(Map.of("path", path, "reason", reason)));
    }

    /**
     * 400 {@code ValidationFailed} with every problem, the first one in the message ({@code <path>: <reason>}).
     *
     * @param problems at least one
     */
    public static ApiException validationFailed(List<InputProblem> problems) {
        InputProblem first = problems.get(0);
        return new ApiException(400, "ValidationFailed", first.path() + ": " + first.reason(),
                problems.stream().map(p -> Map.of("path", p.path(), "reason", p.reason())).toList());
    }

    /** This failure in the API's one error shape {@code {"error", "message", "errors"?}}, with its headers. */
    public ApiResponse response() {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("error", code);
        error.put("message", getMessage());
        if (!errors.isEmpty()) {
            error.put("errors", errors);
        }
        return new ApiResponse(status, "application/json", Json.write(error), headers);
    }

    /** The HTTP status. */
    public int status() {
        return status;
    }

    /** The stable error code, e.g. {@code NotFound}. */
    public String code() {
        return code;
    }

    /** The field problems, {@code {path, reason}} each; empty for none. */
    public List<Map<String, String>> errors() {
        return errors;
    }

    /** Response headers of this failure. */
    public Map<String, String> headers() {
        return headers;
    }
}
