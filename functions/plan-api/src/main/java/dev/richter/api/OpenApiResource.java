package dev.richter.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** {@code GET /openapi.json}: the API's contract (OpenAPI 3.1), the one route that needs no team. */
final class OpenApiResource {
    private final String document = resource("/openapi.json");

    /** 200 with {@code openapi.json} as the jar holds it. */
    ApiResponse get(ApiRequest req) {
        return new ApiResponse(200, "application/json", document, Map.of());
    }

    private static String resource(String name) {
        try (InputStream in = OpenApiResource.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
