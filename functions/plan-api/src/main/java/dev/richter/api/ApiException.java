package dev.richter.api;

import java.util.List;
import java.util.Map;

/**
 * A client-visible failure: HTTP status, a stable error code and the field-level problems.
 * Rendered as {@code {"error": code, "message": ..., "errors": [{"path": "$.x", "reason": ...}]}}.
 */
public final class ApiException extends RuntimeException {
    private final int status;
    private final String code;
    private final List<Map<String, String>> errors;

    public ApiException(int status, String code, String message, List<Map<String, String>> errors) {
        super(message);
        this.status = status;
        this.code = code;
        this.errors = List.copyOf(errors);
    }

    public ApiException(int status, String code, String message) {
        this(status, code, message, List.of());
    }

    /** 404 for an unknown (or other team's) resource. */
    public static ApiException notFound(String what, String id) {
        return new ApiException(404, "NotFound", what + " '" + id + "' not found");
    }

    /** 400 with one field problem. */
    public static ApiException badField(String path, String reason) {
        return new ApiException(400, "ValidationFailed", path + ": " + reason, List.of(Map.of("path", path, "reason", reason)));
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }

    public List<Map<String, String>> errors() {
        return errors;
    }
}
