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
    /** 201 with {@code value} as JSON and {@code Location: location} (the new resource's path, e.g. {@code /flows/f-1}). */
    public static ApiResponse created(Object value, String location) {
        return new ApiResponse(201, "application/json", Json.write(value), Map.of("Location", location));
    }

    /** 204 without a body. */
    public static ApiResponse noContent() {
        return new ApiResponse(204, "application/json", "", Map.of());
    }

    /** A JSON response of {@code value}. */
    public static ApiResponse json(int status, Object value) {
        return new ApiResponse(status, "application/json", Json.write(value), Map.of());
    }
}
