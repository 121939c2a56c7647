package dev.richter.api;

import dev.richter.common.Json;
import java.util.Map;

/**
 * One HTTP API response.
 *
 * @param status      HTTP status
 * @param contentType e.g. {@code application/json}
 * @param body        body text
 * @param headers     extra headers (e.g. {@code Location})
 */
public record ApiResponse(int status, String contentType, String body, Map<String, String> headers) {
    /** A JSON response of {@code value}. */
    public static ApiResponse json(int status, Object value) {
        return new ApiResponse(status, "application/json", Json.write(value), Map.of());
    }
}
