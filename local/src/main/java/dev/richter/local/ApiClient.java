package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A small client of Richter's HTTP API over real sockets (what the demo and the tests use). Every request carries
 * {@code Authorization: Bearer <token>} when the client has a token.
 *
 * <p>Every exchange goes to {@link #observer} when one is set (the integration tests check each one against
 * {@code openapi.json}).
 */
public final class ApiClient {
    /** A response: status, raw body text, the body parsed as JSON when it is JSON (else null), the headers. */
    public record Response(int status, String body, JsonNode json, HttpHeaders headers) {
        public Response(int status, String body, JsonNode json) {
            this(status, body, json, HttpHeaders.of(Map.of(), (a, b) -> true));
        }

        /** The first value of a response header, or null. */
        public String header(String name) {
            return headers.firstValue(name).orElse(null);
        }
    }

    /**
     * One request and its response, as sent and received.
     *
     * @param method      HTTP method
     * @param pathAndQuery the request target, e.g. {@code /plans?limit=2}
     * @param requestHeaders headers sent (lower-case names)
     * @param requestBody body sent ({@code ""} when none)
     * @param response    what came back
     */
    public record Exchange(String method, String pathAndQuery, Map<String, String> requestHeaders, String requestBody,
                           Response response) {}

    /** Receives every exchange of every client, when set. */
    public static volatile Consumer<Exchange> observer;

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String baseUrl;
    private final String token;

    /**
     * @param baseUrl e.g. {@code http://127.0.0.1:3000}
     * @param token   a JWT sent as {@code Authorization: Bearer <token>}; null or empty: none
     */
    public ApiClient(String baseUrl, String token) {
        this.baseUrl = baseUrl;
        this.token = token == null ? "" : token;
    }

    public Response get(String path) throws IOException, InterruptedException {
        return send("GET", path, null, Map.of());
    }

    public Response post(String path, String jsonBody) throws IOException, InterruptedException {
        return send("POST", path, jsonBody, Map.of());
    }

    public Response put(String path, String jsonBody) throws IOException, InterruptedException {
        return send("PUT", path, jsonBody, Map.of());
    }

    public Response delete(String path) throws IOException, InterruptedException {
        return send("DELETE", path, null, Map.of());
    }

    /**
     * Sends any request.
     *
     * @param body    the body, sent as {@code application/json} (null: no body)
     * @param headers extra headers (e.g. {@code Idempotency-Key})
     */
    public Response send(String method, String path, String body, Map<String, String> headers) throws IOException, InterruptedException {
        return sendBytes(method, path, body == null ? null : body.getBytes(StandardCharsets.UTF_8), headers);
    }

    /**
     * Sends any request with a body of bytes (a file as it is on disk).
     *
     * @param body    the body, {@code application/json} unless {@code headers} name another {@code content-type} (null:
     *                no body)
     * @param headers extra headers
     */
    public Response sendBytes(String method, String path, byte[] body, Map<String, String> headers) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        Map<String, String> sent = new LinkedHashMap<>();
        if (body != null) {
            sent.put("content-type", "application/json");
        }
        if (!token.isEmpty()) {
            sent.put("authorization", "Bearer " + token);
        }
        headers.forEach((k, v) -> sent.put(k.toLowerCase(Locale.ROOT), v));
        sent.forEach(b::header);
        HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        JsonNode json = null;
        if (r.headers().firstValue("content-type").orElse("").startsWith("application/json") && !r.body().isEmpty()) {
            json = Json.MAPPER.readTree(r.body());
        }
        Response response = new Response(r.statusCode(), r.body(), json, r.headers());
        Consumer<Exchange> o = observer;
        if (o != null) {
            o.accept(new Exchange(method, path, sent, body == null ? "" : new String(body, StandardCharsets.UTF_8), response));
        }
        return response;
    }
}
