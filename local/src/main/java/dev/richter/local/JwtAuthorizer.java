package dev.richter.local;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKMatcher;
import com.nimbusds.jose.jwk.JWKSelector;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyType;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.EncryptedJWT;
import com.nimbusds.jwt.JWT;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.JWTParser;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import dev.richter.common.Json;
import java.text.ParseException;
import java.time.Clock;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The local HTTP API's JWT authorizer: validates a bearer token the way API Gateway's HTTP API JWT authorizer does
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-jwt-authorizer.html), against a JWK set.
 *
 * <p>Checks, in order, each failure a {@link Rejected} with a one-line reason: the {@code Authorization} header holds
 * a token, bare or after {@code Bearer }; the token is a signed JWS (an unsecured {@code alg: none} token or an
 * encrypted one is refused); its {@code alg} is one of {@link #ALGORITHMS}; its {@code kid} names a signing key of
 * the set ({@code use} {@code sig} or none, RFC 7517 §4.2; an {@code enc} key under the same kid is passed over) of
 * that algorithm's type; the signature verifies (nimbus-jose-jwt); {@code iss} equals the configured issuer;
 * {@code aud} contains one of the configured audiences ({@code client_id} when {@code aud} is absent); {@code exp} is
 * present and after now; {@code nbf}, when present, is not after now.
 *
 * <p>Times are compared exactly, with no clock tolerance, as API Gateway's JWT authorizer does (API Gateway developer
 * guide, "Controlling access to HTTP APIs with JWT authorizers": {@code exp} "Must be after the current time in UTC",
 * {@code nbf} "Must be before the current time in UTC", and no other time claim is evaluated): a token is refused from
 * the second its {@code exp} names. {@code iat} is not checked, as there.
 *
 * <p>On AWS the authorizer accepts RSA algorithms only; locally ES256 is accepted as well, so an identity provider
 * that signs with ES256 works here but needs an RSA key on AWS (docs/DESIGN.md section 7).
 */
public final class JwtAuthorizer {
    /** Signature algorithms accepted: RSA (what API Gateway accepts) and ES256. */
    public static final Set<JWSAlgorithm> ALGORITHMS = Set.of(JWSAlgorithm.RS256, JWSAlgorithm.RS384, JWSAlgorithm.RS512,
            JWSAlgorithm.ES256);
    /** A refused token; {@link #getMessage()} says why in one line, without the token. */
    public static final class Rejected extends Exception {
        public Rejected(String reason) {
            super(reason);
        }
    }

    private final JWKSet keys;
    private final String issuer;
    private final List<String> audiences;
    private final Clock clock;

    /**
     * @param keys      the public keys tokens are verified with (the identity provider's {@code jwks_uri} document)
     * @param issuer    the only accepted {@code iss}
     * @param audiences accepted {@code aud} values (at least one)
     * @param clock     the time {@code exp}, {@code nbf} and {@code iat} are compared with
     */
    public JwtAuthorizer(JWKSet keys, String issuer, List<String> audiences, Clock clock) {
        if (issuer == null || issuer.isBlank() || audiences == null || audiences.isEmpty()) {
            throw new IllegalArgumentException("a JWT authorizer needs an issuer and at least one audience");
        }
        this.keys = keys.toPublicJWKSet();
        this.issuer = issuer;
        this.audiences = List.copyOf(audiences);
        this.clock = clock;
    }

    public String issuer() {
        return issuer;
    }

    public List<String> audiences() {
        return audiences;
    }

    /**
     * Validates the token of an {@code Authorization} header.
     *
     * @param authorization the header value ({@code Bearer <jwt>} or the bare token), null when absent
     * @return the token's claims as API Gateway hands them to the integration in
     *         {@code requestContext.authorizer.jwt.claims}: strings as they are, numbers and booleans as their text,
     *         arrays and objects as JSON text
     * @throws Rejected naming the first check that failed
     */
    public Map<String, String> verify(String authorization) throws Rejected {
        if (authorization == null || authorization.isBlank()) {
            throw new Rejected("no token: send Authorization: Bearer <JWT>");
        }
        String token = authorization.strip();
        if (token.regionMatches(true, 0, "Bearer ", 0, 7)) {
            token = token.substring(7).strip();
        }
        JWT jwt;
        try {
            jwt = JWTParser.parse(token);
        } catch (ParseException e) {
            throw new Rejected("the token is not a JWT");
        }
        if (jwt instanceof PlainJWT) {
            throw new Rejected("unsigned tokens (alg none) are not accepted");
        }
        if (jwt instanceof EncryptedJWT || !(jwt instanceof SignedJWT signed)) {
            throw new Rejected("encrypted tokens are not accepted: send a signed JWT");
        }
        JWSAlgorithm alg = signed.getHeader().getAlgorithm();
        if (!ALGORITHMS.contains(alg)) {
            throw new Rejected("signature algorithm " + alg + " is not accepted (accepted: RS256, RS384, RS512, ES256)");
        }
        String kid = signed.getHeader().getKeyID();
        if (kid == null) {
            throw new Rejected("the token has no kid header");
        }
        List<JWK> candidates = signingKeys(kid, alg);
        if (candidates.isEmpty()) {
            throw new Rejected(keys.getKeyByKeyId(kid) == null ? "no key with kid '" + kid + "' in the issuer's key set"
                    : "no signing key with kid '" + kid + "' for " + alg + " in the issuer's key set");
        }
        if (candidates.stream().noneMatch(key -> verifies(signed, alg, key))) {
            throw new Rejected("the signature does not verify");
        }
        JWTClaimsSet claims;
        try {
            claims = signed.getJWTClaimsSet();
        } catch (ParseException e) {
            throw new Rejected("the token's claims are not a JSON object");
        }
        if (!issuer.equals(claims.getIssuer())) {
            throw new Rejected("issuer '" + claims.getIssuer() + "' is not trusted");
        }
        List<String> aud = claims.getAudience();
        boolean audienceOk = aud == null || aud.isEmpty()
                ? audiences.contains(String.valueOf(claims.getClaim("client_id")))
                : aud.stream().anyMatch(audiences::contains);
        if (!audienceOk) {
            throw new Rejected("audience " + (aud == null || aud.isEmpty() ? "(none)" : aud) + " is not accepted");
        }
        Instant now = clock.instant();
        Date exp = claims.getExpirationTime();
        if (exp == null) {
            throw new Rejected("the token has no exp claim");
        }
        if (!exp.toInstant().isAfter(now)) {
            throw new Rejected("the token expired at " + exp.toInstant());
        }
        Date nbf = claims.getNotBeforeTime();
        if (nbf != null && nbf.toInstant().isAfter(now)) {
            throw new Rejected("the token is not valid before " + nbf.toInstant());
        }
        return flatten(claims);
    }

    private static Map<String, String> flatten(JWTClaimsSet claims) {
        Map<String, String> out = new LinkedHashMap<>();
        claims.toJSONObject().forEach((k, v) -> {
            if (v instanceof String s) {
                out.put(k, s);
            } else if (v instanceof Number || v instanceof Boolean) {
                out.put(k, String.valueOf(v));
            } else if (v != null) {
                out.put(k, Json.write(v));
            }
        });
        return out;
    }

    /**
     * The keys of the set a token signed with {@code alg} under {@code kid} may be verified with: that {@code kid}, a
     * {@code use} of {@code sig} or none (RFC 7517 §4.2: an {@code enc} key is never a signing key), the key type
     * {@code alg} needs, and an {@code alg} of {@code alg} or none (§4.4), in the set's order.
     */
    private List<JWK> signingKeys(String kid, JWSAlgorithm alg) {
        return new JWKSelector(new JWKMatcher.Builder().keyID(kid).keyUses(KeyUse.SIGNATURE, null)
                .keyType(KeyType.forAlgorithm(alg)).algorithms(alg, null).build()).select(keys);
    }

    private static boolean verifies(SignedJWT signed, JWSAlgorithm alg, JWK key) {
        try {
            JWSVerifier verifier = JWSAlgorithm.Family.RSA.contains(alg) ? new RSASSAVerifier((RSAKey) key)
                    : new ECDSAVerifier((ECKey) key);
            return signed.verify(verifier);
        } catch (JOSEException | ClassCastException e) {
            return false;
        }
    }
}
