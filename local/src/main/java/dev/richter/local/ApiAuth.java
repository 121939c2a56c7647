package dev.richter.local;

import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How the local HTTP API authorizes a request on a route that has an authorizer in {@code template.yaml}, standing in
 * for API Gateway's JWT authorizer: each of the template's JWT authorizers ({@link SamTemplate#jwtAuthorizers()}, issuer
 * and audience from the template parameters) verifies tokens with the local identity provider's keys.
 *
 * <p>With {@link #insecureDevHeaders()} (the stack's {@code --insecure-dev-auth}), a request that sends no token is
 * taken at its word: header {@code x-richter-team} becomes the {@code team} claim and {@code x-richter-user} the
 * {@code sub} (default {@value #INSECURE_DEFAULT_CALLER}). A token that is sent is still verified. Never on AWS.
 */
public final class ApiAuth {
    /** The caller of an insecure-dev request without {@code x-richter-user}. */
    public static final String INSECURE_DEFAULT_CALLER = "insecure-dev-user";

    private final Map<String, JwtAuthorizer> authorizers;
    private final Map<String, String> tokenHeaders;
    private final boolean insecureDevHeaders;

    private ApiAuth(Map<String, JwtAuthorizer> authorizers, Map<String, String> tokenHeaders, boolean insecureDevHeaders) {
        this.authorizers = Map.copyOf(authorizers);
        this.tokenHeaders = Map.copyOf(tokenHeaders);
        this.insecureDevHeaders = insecureDevHeaders;
    }

    /** No authorizer configured: every route that has one refuses every request. */
    public static ApiAuth none() {
        return new ApiAuth(Map.of(), Map.of(), false);
    }

    /** The template's JWT authorizers, verifying with {@code identity}'s keys. */
    public static ApiAuth of(SamTemplate template, LocalIdentityProvider identity) {
        Map<String, JwtAuthorizer> authorizers = new LinkedHashMap<>();
        Map<String, String> headers = new LinkedHashMap<>();
        template.jwtAuthorizers().forEach((name, def) -> {
            authorizers.put(name, new JwtAuthorizer(identity.publicKeys(), def.issuer(), def.audiences(), Clock.systemUTC()));
            headers.put(name, def.headerName());
        });
        return new ApiAuth(authorizers, headers, false);
    }

    /** This configuration, also accepting the {@code x-richter-team} header from requests without a token. */
    public ApiAuth insecureDevHeaders() {
        return new ApiAuth(authorizers, tokenHeaders, true);
    }

    public boolean isInsecure() {
        return insecureDevHeaders;
    }

    /**
     * The claims of a request on a route whose authorizer is {@code authorizer}.
     *
     * @param headers the request's headers, lower-case names
     * @throws JwtAuthorizer.Rejected when the token is missing or invalid, or the authorizer is unknown
     */
    public Map<String, String> authorize(String authorizer, Map<String, String> headers) throws JwtAuthorizer.Rejected {
        JwtAuthorizer jwt = authorizers.get(authorizer);
        if (jwt == null) {
            throw new JwtAuthorizer.Rejected("the route's authorizer '" + authorizer + "' is not configured on this local API");
        }
        String token = headers.get(tokenHeaders.get(authorizer));
        if (insecureDevHeaders && (token == null || token.isBlank()) && headers.containsKey("x-richter-team")) {
            Map<String, String> claims = new LinkedHashMap<>();
            claims.put("team", headers.get("x-richter-team"));
            claims.put("sub", headers.getOrDefault("x-richter-user", INSECURE_DEFAULT_CALLER));
            return claims;
        }
        return jwt.verify(token);
    }
}
