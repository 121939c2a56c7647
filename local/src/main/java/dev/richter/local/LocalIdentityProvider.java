package dev.richter.local;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.UUID;

/**
 * The local stack's OpenID provider: one RSA 2048 key ({@code kid} {@value #RS256_KID}) and one P-256 key
 * ({@code kid} {@value #ES256_KID}) that sign tokens, and their public JWK set that the local HTTP API's
 * {@link JwtAuthorizer} verifies them with.
 *
 * <p>The keys live in {@code <dir>/private-jwks.json} (owner-only permissions) and {@code <dir>/jwks.json} (public),
 * created on first use and kept, so a token printed by {@code ./richter token} stays valid across stack restarts and
 * is accepted by a stack started in another process. Tokens carry {@code iss} {@value #ISSUER}, {@code aud}
 * {@value #AUDIENCE}, {@code sub} (the caller, recorded in the audit log and in abort reasons), {@code team}
 * (the team every read and write is scoped to), {@code iat}, {@code nbf}, {@code exp} and a {@code jti}.
 */
public final class LocalIdentityProvider {
    /** The local issuer; the local stack sets the template parameter {@code OidcIssuer} to it. */
    public static final String ISSUER = "https://idp.richter.localhost";
    /** The local audience; the local stack sets the template parameter {@code OidcAudience} to it. */
    public static final String AUDIENCE = "richter-local";
    public static final String RS256_KID = "local-rs256";
    public static final String ES256_KID = "local-es256";
    /** Lifetime of a token when none is asked for. */
    public static final Duration DEFAULT_TTL = Duration.ofHours(8);

    private final JWKSet privateKeys;
    private final Clock clock;
    private final String issuer;

    private LocalIdentityProvider(JWKSet privateKeys, Clock clock, String issuer) {
        this.privateKeys = privateKeys;
        this.clock = clock;
        this.issuer = issuer;
    }

    /**
     * This provider under another issuer name: the URL where another API (LocalStack's JWT authorizer) fetches its
     * discovery document ({@link OidcDiscoveryServer}). Same keys.
     */
    public LocalIdentityProvider withIssuer(String issuer) {
        return new LocalIdentityProvider(privateKeys, clock, issuer);
    }

    /** The issuer of this provider's tokens ({@value #ISSUER} unless {@link #withIssuer}). */
    public String issuer() {
        return issuer;
    }

    /**
     * The provider whose keys are in {@code dir}, creating them when absent (safe against a concurrent creator: the
     * first file written wins and both processes then use it).
     *
     * @throws UncheckedIOException when the directory cannot be written or the key file is not a JWK set
     */
    public static LocalIdentityProvider loadOrCreate(Path dir) {
        Path file = dir.resolve("private-jwks.json");
        try {
            Files.createDirectories(dir);
            if (!Files.exists(file)) {
                JWKSet created = new JWKSet(List.of(
                        new RSAKeyGenerator(2048).keyID(RS256_KID).keyUse(KeyUse.SIGNATURE).algorithm(JWSAlgorithm.RS256).generate(),
                        new ECKeyGenerator(Curve.P_256).keyID(ES256_KID).keyUse(KeyUse.SIGNATURE).algorithm(JWSAlgorithm.ES256).generate()));
                SecretFiles.createOnce(file, created.toString(false));
            }
            JWKSet keys = JWKSet.parse(Files.readString(file));
            Files.writeString(dir.resolve("jwks.json"), keys.toPublicJWKSet().toString());
            return new LocalIdentityProvider(keys, Clock.systemUTC(), ISSUER);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (JOSEException | ParseException e) {
            throw new UncheckedIOException(new IOException(file + " is not a JWK set of the local identity provider; delete it to"
                    + " create new keys (tokens printed before then stop working)", e));
        }
    }

    /** The public keys ({@code jwks_uri} document). */
    public JWKSet publicKeys() {
        return privateKeys.toPublicJWKSet();
    }

    /** The authorizer the local HTTP API uses: these keys, {@link #ISSUER}, {@link #AUDIENCE}. */
    public JwtAuthorizer authorizer() {
        return new JwtAuthorizer(publicKeys(), issuer, List.of(AUDIENCE), clock);
    }

    /**
     * A signed token for {@code team}.
     *
     * @param team    the {@code team} claim
     * @param subject the {@code sub} claim (who calls)
     * @param ttl     lifetime from now
     * @param alg     {@link JWSAlgorithm#RS256} or {@link JWSAlgorithm#ES256}
     */
    public String token(String team, String subject, Duration ttl, JWSAlgorithm alg) {
        Instant now = clock.instant();
        return sign(claims(team, subject, now, now.plus(ttl)).issuer(issuer).build(), alg);
    }

    /** The standard claims of a token of {@code team}, issued at {@code issuedAt}, expiring at {@code expiresAt}. */
    public static JWTClaimsSet.Builder claims(String team, String subject, Instant issuedAt, Instant expiresAt) {
        return new JWTClaimsSet.Builder().issuer(ISSUER).audience(AUDIENCE).subject(subject).claim("team", team)
                .issueTime(Date.from(issuedAt)).notBeforeTime(Date.from(issuedAt)).expirationTime(Date.from(expiresAt))
                .jwtID(UUID.randomUUID().toString());
    }

    /**
     * Signs any claims with this provider's key for {@code alg} (tests make expired or wrongly addressed tokens with it).
     *
     * @throws IllegalArgumentException for an algorithm other than RS256 and ES256
     */
    public String sign(JWTClaimsSet claims, JWSAlgorithm alg) {
        try {
            JWSSigner signer;
            String kid;
            if (JWSAlgorithm.RS256.equals(alg)) {
                kid = RS256_KID;
                signer = new RSASSASigner((RSAKey) privateKeys.getKeyByKeyId(kid));
            } else if (JWSAlgorithm.ES256.equals(alg)) {
                kid = ES256_KID;
                signer = new ECDSASigner((ECKey) privateKeys.getKeyByKeyId(kid));
            } else {
                throw new IllegalArgumentException("the local identity provider signs with RS256 or ES256, not " + alg);
            }
            SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(alg).keyID(kid).type(JOSEObjectType.JWT).build(), claims);
            jwt.sign(signer);
            return jwt.serialize();
        } catch (JOSEException e) {
            throw new IllegalStateException("signing failed", e);
        }
    }
}
