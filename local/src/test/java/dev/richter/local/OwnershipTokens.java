package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.richter.common.model.TargetAddress;
import dev.richter.sdk.MarkerProof;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ITs' test servers show that their team runs them as a team's service without the Richter extension does (the
 * {@code target-owned} check): they answer the ownership token that {@code POST /services} gave for their address,
 * at {@link MarkerProof#OWNERSHIP_PATH}. Tokens are kept per address ({@code host:port}) for the JVM's ITs.
 */
final class OwnershipTokens {
    private static final Map<String, String> BY_ADDRESS = new ConcurrentHashMap<>();

    private OwnershipTokens() {}

    /**
     * Keeps the token of a registration's answer ({@code POST /services}: {@code {baseUrl, ownership: {token}}}) for
     * the address of its {@code baseUrl}.
     */
    static void keep(JsonNode registered) {
        String token = registered.path("ownership").path("token").asText("");
        if (!token.isEmpty()) {
            BY_ADDRESS.put(TargetAddress.of(registered.path("baseUrl").asText()).authority(), token);
        }
    }

    /** Makes {@code server} answer the token kept for its address at the ownership path (404 before registration). */
    static void serve(HttpServer server) {
        server.createContext(MarkerProof.OWNERSHIP_PATH, ex -> {
            try (ex) {
                String token = BY_ADDRESS.get("127.0.0.1:" + server.getAddress().getPort());
                if (token == null) {
                    ex.sendResponseHeaders(404, -1);
                    return;
                }
                byte[] body = token.getBytes(StandardCharsets.UTF_8);
                ex.getResponseHeaders().set("Content-Type", "text/plain");
                ex.sendResponseHeaders(200, body.length);
                ex.getResponseBody().write(body);
            }
        });
    }
}
