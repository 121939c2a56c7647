package dev.richter.api;

import dev.richter.common.Json;
import dev.richter.report.RunCharts;
import dev.richter.report.UPlot;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * {@code GET /console} and {@code GET /console/{file}}: the console, static files the function's jar holds
 * ({@code console/} on its classpath, and the report's charts: {@code uplot.js}, {@code uplot.css},
 * {@code run-charts.js}), served by the HTTP API itself. One origin with the API: the console's calls
 * need no CORS, and {@code sam deploy} deploys it with the API, nothing else to install. Both routes need no token (no
 * authorizer on AWS): the files hold no data; every call the console makes goes to the API with the signed-in
 * user's token.
 *
 * <p>{@code GET /console/config.json} tells the console how to sign in: {@code issuer} ({@code OIDC_ISSUER}),
 * {@code clientId} ({@code CONSOLE_CLIENT_ID}, else the API's audience {@code OIDC_AUDIENCE}: API Gateway's JWT
 * authorizer accepts a token whose {@code client_id} is the audience), and {@code authorizationEndpoint} and
 * {@code tokenEndpoint} ({@code CONSOLE_AUTHORIZATION_ENDPOINT}, {@code CONSOLE_TOKEN_ENDPOINT}; empty: the console
 * reads them from the issuer's {@code /.well-known/openid-configuration}). The console signs in with the
 * authorization code flow and PKCE (RFC 7636, S256).
 *
 * <p>Every answer carries a Content-Security-Policy that allows scripts and styles from this origin only (no inline
 * script, no {@code eval}), connections to this origin and the issuer's, no framing, and
 * {@code X-Content-Type-Options: nosniff}, {@code Referrer-Policy: no-referrer}.
 */
final class ConsoleResource {
    /** The files the console has: a name of lower-case letters, digits and dashes, and a known type. */
    private static final Pattern FILE = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}\\.(html|js|css|svg)");
    private static final Map<String, String> TYPES = Map.of("html", "text/html; charset=utf-8",
            "js", "text/javascript; charset=utf-8", "css", "text/css; charset=utf-8", "svg", "image/svg+xml");
    /**
     * The files the console shares with the HTML report, from their classes rather than {@code console/}: uPlot and
     * the run charts' script ({@link RunCharts}), so the console's charts read the same as the report's.
     */
    private static final Map<String, java.util.function.Supplier<String>> SHARED = Map.of("uplot.js", UPlot::js,
            "uplot.css", UPlot::css, "run-charts.js", RunCharts::js);
    private final Map<String, String> config;
    private final String policy;
    /** The files served so far, read once from the jar per warm function (a few KB each). */
    private final Map<String, String> files = new java.util.concurrent.ConcurrentHashMap<>();

    /** @param env the function's configuration by name ({@link dev.richter.common.Env}: the environment, locally system properties) */
    ConsoleResource(Function<String, String> env) {
        Map<String, String> c = new LinkedHashMap<>();
        String audience = value(env, "OIDC_AUDIENCE");
        String clientId = value(env, "CONSOLE_CLIENT_ID");
        c.put("issuer", value(env, "OIDC_ISSUER"));
        c.put("clientId", clientId.isEmpty() ? audience : clientId);
        c.put("authorizationEndpoint", value(env, "CONSOLE_AUTHORIZATION_ENDPOINT"));
        c.put("tokenEndpoint", value(env, "CONSOLE_TOKEN_ENDPOINT"));
        this.config = Map.copyOf(c);
        Set<String> connect = new LinkedHashSet<>();
        connect.add("'self'");
        Set<String> forms = new LinkedHashSet<>();
        forms.add("'self'");
        origin(c.get("issuer")).ifPresent(connect::add);
        origin(c.get("tokenEndpoint")).ifPresent(connect::add);
        origin(c.get("authorizationEndpoint")).ifPresent(forms::add);
        this.policy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src "
                + String.join(" ", connect) + "; form-action " + String.join(" ", forms)
                + "; frame-ancestors 'none'; base-uri 'none'";
    }

    /** The Content-Security-Policy every console answer carries. */
    String policy() {
        return policy;
    }

    /** 200 with {@code index.html}. */
    ApiResponse index(ApiRequest req) {
        return file("index.html");
    }

    /**
     * 200 with the named file, or {@code config.json}.
     *
     * @throws ApiException 404 {@code NoSuchFile} for a name the console does not have
     */
    ApiResponse get(ApiRequest req) {
        String name = req.pathParameters().getOrDefault("file", "");
        if (name.equals("config.json")) {
            return new ApiResponse(200, "application/json", Json.write(config), headers("no-store"));
        }
        if (!FILE.matcher(name).matches()) {
            throw new ApiException(404, "NoSuchFile", "the console has no file '" + name + "'");
        }
        return file(name);
    }

    private ApiResponse file(String name) {
        String text = files.computeIfAbsent(name, n -> SHARED.containsKey(n) ? SHARED.get(n).get() : resource("/console/" + n));
        if (text == null) {
            throw new ApiException(404, "NoSuchFile", "the console has no file '" + name + "'");
        }
        String type = TYPES.get(name.substring(name.lastIndexOf('.') + 1));
        return new ApiResponse(200, type, text, headers("no-cache"));
    }

    private Map<String, String> headers(String cache) {
        return Map.of("Content-Security-Policy", policy, "X-Content-Type-Options", "nosniff",
                "Referrer-Policy", "no-referrer", "Cache-Control", cache);
    }

    private static String resource(String path) {
        try (InputStream in = ConsoleResource.class.getResourceAsStream(path)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String value(Function<String, String> env, String name) {
        String v = env.apply(name);
        return v == null ? "" : v.trim();
    }

    /** {@code scheme://host[:port]} of an absolute http(s) URL; empty for a relative or empty one (this origin). */
    private static java.util.Optional<String> origin(String url) {
        try {
            URI u = URI.create(url);
            if (u.getScheme() == null || u.getHost() == null || !u.getScheme().matches("https?")) {
                return java.util.Optional.empty();
            }
            return java.util.Optional.of(u.getScheme() + "://" + u.getHost() + (u.getPort() < 0 ? "" : ":" + u.getPort()));
        } catch (IllegalArgumentException e) {
            return java.util.Optional.empty();
        }
    }
}
