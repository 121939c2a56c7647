package dev.richter.local;

import com.sun.net.httpserver.HttpServer;
import dev.richter.common.Json;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * Serves the local identity provider as an OpenID provider for an API Gateway that fetches keys itself (LocalStack's
 * JWT authorizer, on the LocalStack path of {@code local/localstack.sh}): {@code GET /.well-known/openid-configuration}
 * ({@code issuer}, {@code jwks_uri}) and {@code GET /jwks.json} (the public keys of {@code build/local/idp}).
 *
 * <p>Arguments: {@code --port <port>} (default 4599), {@code --issuer <url>} (the URL LocalStack reaches this server
 * at, e.g. {@code http://host.docker.internal:4599}; tokens must carry it, see {@code ./richter token --issuer}),
 * {@code --bind <address>} (default 0.0.0.0: a container must reach it). Runs until killed.
 */
public final class OidcDiscoveryServer {
    private OidcDiscoveryServer() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        int port = 4599;
        String issuer = "http://host.docker.internal:4599";
        String bind = "0.0.0.0";
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[i + 1]);
                case "--issuer" -> issuer = args[i + 1];
                case "--bind" -> bind = args[i + 1];
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (--port, --issuer, --bind)");
            }
        }
        LocalIdentityProvider idp = LocalIdentityProvider.loadOrCreate(LocalAwsStack.rootFromEnv().resolve("build/local/idp"));
        Map<String, Object> discovery = new LinkedHashMap<>();
        discovery.put("issuer", issuer);
        discovery.put("jwks_uri", issuer + "/jwks.json");
        discovery.put("id_token_signing_alg_values_supported", List.of("RS256", "ES256"));
        byte[] config = Json.write(discovery).getBytes(StandardCharsets.UTF_8);
        byte[] keys = idp.publicKeys().toString().getBytes(StandardCharsets.UTF_8);
        HttpServer server = HttpServer.create(new InetSocketAddress(bind, port), 16);
        server.createContext("/", ex -> {
            try (ex) {
                String path = ex.getRequestURI().getPath();
                byte[] body = path.equals("/.well-known/openid-configuration") ? config : path.equals("/jwks.json") ? keys : null;
                ex.getResponseHeaders().set("Content-Type", "application/json");
                ex.sendResponseHeaders(body == null ? 404 : 200, body == null ? -1 : body.length);
                if (body != null) {
                    ex.getResponseBody().write(body);
                }
            }
        });
        server.start();
        System.out.println("OIDC discovery for issuer " + issuer + " on " + bind + ":" + port);
        new CountDownLatch(1).await();
    }
}
