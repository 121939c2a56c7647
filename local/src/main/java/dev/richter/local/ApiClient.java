package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A small client of Richter's HTTP API over real sockets (what the demo and the tests use). */
public final class ApiClient {
    /** A response: status, raw body text, and the body parsed as JSON when it is JSON (else null). */
    public record Response(int status, String body, JsonNode json) {}

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String baseUrl;
    private final String team;

    /** @param baseUrl e.g. {@code http://127.0.0.1:3000}; @param team sent as {@code x-richter-team} */
    public ApiClient(String baseUrl, String team) {
        this.baseUrl = baseUrl;
        this.team = team;
    }

    public Response get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(baseUrl + path)).GET());
    }

    public Response post(String path, String jsonBody) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(baseUrl + path)).header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(jsonBody)));
    }

    public Response put(String path, String jsonBody) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(baseUrl + path)).header("content-type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(jsonBody)));
    }

    private Response send(HttpRequest.Builder b) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(b.header("x-richter-team", team).header("x-richter-user", "richter-cli")
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        JsonNode json = null;
        if (r.headers().firstValue("content-type").orElse("").startsWith("application/json") && !r.body().isEmpty()) {
            json = Json.MAPPER.readTree(r.body());
        }
        return new Response(r.statusCode(), r.body(), json);
    }
}
