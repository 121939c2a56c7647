package dev.richter.local;

import com.nimbusds.jose.JWSAlgorithm;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.richter.common.Json;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The local identity provider's sign-in, for the console: the OAuth 2.0 authorization code flow with PKCE
 * (RFC 6749 §4.1, RFC 7636 with {@code S256} only), served on the local HTTP API's origin under {@value #PATH}.
 *
 * <ul>
 *   <li>{@code GET /idp/authorize?response_type=code&client_id&redirect_uri&state&code_challenge&code_challenge_method=S256}:
 *       a sign-in page asking who you are ({@code sub}) and your team; nothing is checked but the form, as with
 *       {@code ./richter token}. The page has no script.</li>
 *   <li>{@code POST /idp/authorize} (the page's form): a one-time code, valid {@value #CODE_TTL_S} s, bound to the
 *       client, the redirect URI, the challenge, the user and the team; 302 to {@code redirect_uri?code&state}.</li>
 *   <li>{@code POST /idp/token} ({@code grant_type=authorization_code&code&redirect_uri&client_id&code_verifier}):
 *       {@code {"access_token", "token_type": "Bearer", "expires_in"}}, a token of {@link LocalIdentityProvider}
 *       for that team and user, valid {@value #TOKEN_TTL_S} s, when {@code BASE64URL(SHA-256(code_verifier))} is the
 *       challenge; else 400 {@code {"error": "invalid_grant" | "invalid_request" | "unsupported_grant_type"}}
 *       (RFC 6749 §5.2).</li>
 * </ul>
 *
 * <p>A redirect URI must be an http URL on a loopback host whose path is {@code /console}: the local stack's own
 * console. The client id must be the local audience ({@link LocalIdentityProvider#AUDIENCE}).
 */
public final class LocalSignIn implements HttpHandler {
    /** Where the sign-in is served, on the local HTTP API's port. */
    public static final String PATH = "/idp/";
    static final int CODE_TTL_S = 60;
    static final int TOKEN_TTL_S = 3600;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@-]{0,63}");
    private static final Pattern CHALLENGE = Pattern.compile("[A-Za-z0-9_-]{43}");
    private final LocalIdentityProvider identity;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();
    private final Map<String, Grant> codes = new ConcurrentHashMap<>();

    /** A code handed out and not yet traded. */
    private record Grant(String clientId, String redirectUri, String challenge, String subject, String team, long expiresAtMs) {}

    public LocalSignIn(LocalIdentityProvider identity, Clock clock) {
        this.identity = identity;
        this.clock = clock;
    }

    @Override
    public void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String path = ex.getRequestURI().getPath();
            String method = ex.getRequestMethod();
            if (path.equals(PATH + "authorize") && method.equals("GET")) {
                authorizePage(ex, LocalScheduler.query(ex.getRequestURI().getRawQuery()));
            } else if (path.equals(PATH + "authorize") && method.equals("POST")) {
                signIn(ex, LocalScheduler.query(new String(ex.getRequestBody().readNBytes(16_384), StandardCharsets.UTF_8)));
            } else if (path.equals(PATH + "token") && method.equals("POST")) {
                token(ex, LocalScheduler.query(new String(ex.getRequestBody().readNBytes(16_384), StandardCharsets.UTF_8)));
            } else {
                send(ex, 404, "text/plain; charset=utf-8", "no such page: " + method + " " + path);
            }
        }
    }

    private void authorizePage(HttpExchange ex, Map<String, String> q) throws IOException {
        String problem = requestProblem(q);
        if (!problem.isEmpty()) {
            send(ex, 400, "text/plain; charset=utf-8", "sign-in refused: " + problem);
            return;
        }
        StringBuilder h = new StringBuilder("<!doctype html><html lang=en><head><meta charset=utf-8>"
                + "<meta name=viewport content=\"width=device-width, initial-scale=1\"><title>Sign in - Richter local</title>"
                + "<link rel=stylesheet href=\"/console/style.css\"></head><body class=signin><main>"
                + "<h1>Sign in to Richter</h1><p>The local stack's identity provider: name yourself and your team.</p>"
                + "<form method=post action=\"" + PATH + "authorize\">");
        for (String k : new String[] {"client_id", "redirect_uri", "state", "code_challenge"}) {
            h.append("<input type=hidden name=").append(k).append(" value=\"").append(esc(q.getOrDefault(k, ""))).append("\">");
        }
        h.append("<label>User <input name=sub id=sub required pattern=\"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}\" value=\"oncall\"></label>"
                + "<label>Team <input name=team id=team required pattern=\"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}\"></label>"
                + "<button type=submit id=sign-in>Sign in</button></form></main></body></html>");
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Security-Policy", "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
        send(ex, 200, "text/html; charset=utf-8", h.toString(), headers);
    }

    private void signIn(HttpExchange ex, Map<String, String> form) throws IOException {
        String problem = requestProblem(form);
        String sub = form.getOrDefault("sub", "");
        String team = form.getOrDefault("team", "");
        if (problem.isEmpty() && (!NAME.matcher(sub).matches() || !NAME.matcher(team).matches())) {
            problem = "user and team: letters, digits and . _ @ -, at most 64";
        }
        if (!problem.isEmpty()) {
            send(ex, 400, "text/plain; charset=utf-8", "sign-in refused: " + problem);
            return;
        }
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        String code = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        codes.values().removeIf(g -> g.expiresAtMs() < clock.millis());
        codes.put(code, new Grant(form.get("client_id"), form.get("redirect_uri"), form.get("code_challenge"), sub, team,
                clock.millis() + CODE_TTL_S * 1000L));
        String location = form.get("redirect_uri") + "?code=" + code + "&state="
                + URLEncoder.encode(form.getOrDefault("state", ""), StandardCharsets.UTF_8);
        send(ex, 302, "text/plain; charset=utf-8", "", Map.of("Location", location));
    }

    private void token(HttpExchange ex, Map<String, String> form) throws IOException {
        if (!"authorization_code".equals(form.get("grant_type"))) {
            oauthError(ex, "unsupported_grant_type", "grant_type must be authorization_code");
            return;
        }
        Grant grant = codes.remove(form.getOrDefault("code", ""));   // one use, whatever follows
        if (grant == null || grant.expiresAtMs() < clock.millis()) {
            oauthError(ex, "invalid_grant", "the code is unknown, used or expired");
            return;
        }
        if (!grant.clientId().equals(form.get("client_id")) || !grant.redirectUri().equals(form.get("redirect_uri"))) {
            oauthError(ex, "invalid_grant", "client_id and redirect_uri must be those of the sign-in");
            return;
        }
        String verifier = form.getOrDefault("code_verifier", "");
        if (!verifier.matches("[A-Za-z0-9._~-]{43,128}") || !s256(verifier).equals(grant.challenge())) {
            oauthError(ex, "invalid_grant", "code_verifier does not match the code_challenge (S256)");
            return;
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("access_token", identity.token(grant.team(), grant.subject(), Duration.ofSeconds(TOKEN_TTL_S), JWSAlgorithm.RS256));
        body.put("token_type", "Bearer");
        body.put("expires_in", TOKEN_TTL_S);
        send(ex, 200, "application/json", Json.write(body), Map.of("Cache-Control", "no-store"));
    }

    /** Why an authorization request is refused, or {@code ""}. */
    private static String requestProblem(Map<String, String> q) {
        if (q.containsKey("response_type") && !"code".equals(q.get("response_type"))) {
            return "response_type must be code";
        }
        if (!LocalIdentityProvider.AUDIENCE.equals(q.get("client_id"))) {
            return "client_id must be " + LocalIdentityProvider.AUDIENCE;
        }
        if (q.containsKey("code_challenge_method") && !"S256".equals(q.get("code_challenge_method"))) {
            return "code_challenge_method must be S256";
        }
        if (!CHALLENGE.matcher(q.getOrDefault("code_challenge", "")).matches()) {
            return "code_challenge must be BASE64URL(SHA-256(code_verifier)), 43 characters";
        }
        try {
            URI r = URI.create(q.getOrDefault("redirect_uri", ""));
            String host = r.getHost() == null ? "" : r.getHost();
            if (!"http".equals(r.getScheme()) || !(host.equals("127.0.0.1") || host.equals("localhost") || host.equals("[::1]"))
                    || !"/console".equals(r.getPath()) || r.getRawQuery() != null || r.getRawFragment() != null) {
                return "redirect_uri must be the local console, http://<loopback>:<port>/console";
            }
        } catch (IllegalArgumentException e) {
            return "redirect_uri is not a URI";
        }
        return "";
    }

    static String s256(String verifier) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(d);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void oauthError(HttpExchange ex, String error, String description) throws IOException {
        send(ex, 400, "application/json", Json.write(Map.of("error", error, "error_description", description)), Map.of());
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;").replace("'", "&#39;");
    }

    private static void send(HttpExchange ex, int status, String type, String body) throws IOException {
        send(ex, status, type, body, Map.of());
    }

    private static void send(HttpExchange ex, int status, String type, String body, Map<String, String> headers) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
        ex.getResponseHeaders().set("Referrer-Policy", "no-referrer");
        headers.forEach((k, v) -> ex.getResponseHeaders().set(k, v));
        ex.sendResponseHeaders(status, b.length == 0 ? -1 : b.length);
        if (b.length > 0) {
            ex.getResponseBody().write(b);
        }
    }
}
