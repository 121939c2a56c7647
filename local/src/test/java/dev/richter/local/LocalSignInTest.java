package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.richter.common.Json;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link LocalSignIn} over a real socket: the authorization code flow with PKCE (RFC 7636 S256), as the console uses it. */
class LocalSignInTest {
    static final String VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";   // RFC 7636 appendix B
    static final String CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
    @TempDir
    Path dir;
    HttpServer server;
    LocalIdentityProvider identity;
    String base;
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        identity = LocalIdentityProvider.loadOrCreate(dir);
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
        server.createContext(LocalSignIn.PATH, new LocalSignIn(identity, Clock.systemUTC()));
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    static String form(Map<String, String> fields) {
        return fields.entrySet().stream().map(e -> e.getKey() + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
    }

    HttpResponse<String> post(String path, Map<String, String> fields) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form(fields))).build(), HttpResponse.BodyHandlers.ofString());
    }

    Map<String, String> authorization(String redirect) {
        return Map.of("client_id", LocalIdentityProvider.AUDIENCE, "redirect_uri", redirect, "state", "s-1",
                "code_challenge", CHALLENGE, "sub", "oncall", "team", "shop");
    }

    @Test
    void aCodeTradedWithItsVerifierGivesATokenOfTheTeamTheUserNamedOnce() throws Exception {
        assertEquals(CHALLENGE, LocalSignIn.s256(VERIFIER), "RFC 7636 appendix B");
        String redirect = "http://127.0.0.1:3000/console";
        HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(base + "/idp/authorize?" + form(Map.of(
                "response_type", "code", "client_id", LocalIdentityProvider.AUDIENCE, "redirect_uri", redirect, "state", "s-1",
                "code_challenge", CHALLENGE, "code_challenge_method", "S256")))).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, page.statusCode(), page.body());
        assertTrue(page.body().contains("name=team") && !page.body().contains("<script"), page.body());
        assertTrue(page.headers().firstValue("Content-Security-Policy").orElse("").contains("default-src 'none'"));

        HttpResponse<String> signedIn = post("/idp/authorize", authorization(redirect));
        assertEquals(302, signedIn.statusCode(), signedIn.body());
        String location = signedIn.headers().firstValue("Location").orElseThrow();
        assertTrue(location.startsWith(redirect + "?code=") && location.endsWith("&state=s-1"), location);
        String code = location.substring(location.indexOf("code=") + 5, location.indexOf("&state"));

        Map<String, String> trade = Map.of("grant_type", "authorization_code", "code", code, "redirect_uri", redirect,
                "client_id", LocalIdentityProvider.AUDIENCE, "code_verifier", VERIFIER.replace('d', 'e'));
        HttpResponse<String> wrong = post("/idp/token", trade);
        assertEquals(400, wrong.statusCode());
        assertEquals("invalid_grant", Json.read(wrong.body(), JsonNode.class).path("error").asText());
        assertEquals("invalid_grant", Json.read(post("/idp/token", Map.of("grant_type", "authorization_code", "code", code,
                "redirect_uri", redirect, "client_id", LocalIdentityProvider.AUDIENCE, "code_verifier", VERIFIER)).body(),
                JsonNode.class).path("error").asText(), "a code is gone after one trade, even a failed one");

        String fresh = post("/idp/authorize", authorization(redirect)).headers().firstValue("Location").orElseThrow();
        String code2 = fresh.substring(fresh.indexOf("code=") + 5, fresh.indexOf("&state"));
        HttpResponse<String> ok = post("/idp/token", Map.of("grant_type", "authorization_code", "code", code2,
                "redirect_uri", redirect, "client_id", LocalIdentityProvider.AUDIENCE, "code_verifier", VERIFIER));
        assertEquals(200, ok.statusCode(), ok.body());
        JsonNode token = Json.read(ok.body(), JsonNode.class);
        assertEquals("Bearer", token.path("token_type").asText());
        Map<String, String> claims = identity.authorizer().verify("Bearer " + token.path("access_token").asText());
        assertEquals("shop", claims.get("team"));
        assertEquals("oncall", claims.get("sub"));
    }

    @Test
    void aRequestThatIsNotTheLocalConsolesIsRefused() throws Exception {
        for (String redirect : new String[] {"http://evil.example/console", "http://127.0.0.1:3000/other", "https://127.0.0.1/console",
                "http://127.0.0.1:3000/console?x=1"}) {
            HttpResponse<String> r = post("/idp/authorize", authorization(redirect));
            assertEquals(400, r.statusCode(), redirect);
            assertTrue(r.body().contains("redirect_uri"), r.body());
        }
        Map<String, String> noChallenge = new java.util.HashMap<>(authorization("http://127.0.0.1:3000/console"));
        noChallenge.put("code_challenge", "plain");
        assertEquals(400, post("/idp/authorize", noChallenge).statusCode(), "PKCE S256 is required");
        assertEquals("unsupported_grant_type", Json.read(post("/idp/token", Map.of("grant_type", "password")).body(),
                JsonNode.class).path("error").asText());
    }
}
