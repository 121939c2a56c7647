package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jwt.JWTClaimsSet;
import dev.richter.common.Json;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The local API's JWT authorizer against tokens of the local identity provider, good and bad. */
class JwtAuthorizerTest {
    @TempDir
    Path dir;

    private String reason(JwtAuthorizer authorizer, String header) {
        return assertThrows(JwtAuthorizer.Rejected.class, () -> authorizer.verify(header)).getMessage();
    }

    @Test
    void validRs256AndEs256TokensGiveTheirClaimsAsStrings() throws Exception {
        LocalIdentityProvider idp = LocalIdentityProvider.loadOrCreate(dir);
        JwtAuthorizer authorizer = idp.authorizer();
        for (JWSAlgorithm alg : new JWSAlgorithm[] {JWSAlgorithm.RS256, JWSAlgorithm.ES256}) {
            Map<String, String> claims = authorizer.verify("Bearer " + idp.token("team-a", "alice", Duration.ofMinutes(5), alg));
            assertEquals("team-a", claims.get("team"), alg.getName());
            assertEquals("alice", claims.get("sub"));
            assertEquals(LocalIdentityProvider.AUDIENCE, claims.get("aud").replaceAll("[\\[\\]\"]", ""));
            assertTrue(claims.get("exp").matches("\\d+"), claims.toString());
        }
        // the bare token works too, as API Gateway accepts it
        assertEquals("team-a", authorizer.verify(idp.token("team-a", "alice", Duration.ofMinutes(5), JWSAlgorithm.RS256)).get("team"));
    }

    @Test
    void theKeysAreKeptSoATokenOutlivesTheProcessThatMadeIt() {
        String token = LocalIdentityProvider.loadOrCreate(dir).token("t", "s", Duration.ofMinutes(5), JWSAlgorithm.ES256);
        assertDoesNotReject(LocalIdentityProvider.loadOrCreate(dir).authorizer(), token);
    }

    private static void assertDoesNotReject(JwtAuthorizer a, String token) {
        try {
            a.verify(token);
        } catch (JwtAuthorizer.Rejected e) {
            throw new AssertionError("rejected: " + e.getMessage());
        }
    }

    @Test
    void everyBadTokenIsRefusedWithItsReason() {
        LocalIdentityProvider idp = LocalIdentityProvider.loadOrCreate(dir.resolve("good"));
        LocalIdentityProvider other = LocalIdentityProvider.loadOrCreate(dir.resolve("other"));
        JwtAuthorizer authorizer = idp.authorizer();
        Instant now = Instant.now();

        assertTrue(reason(authorizer, null).contains("no token"));
        assertTrue(reason(authorizer, "Bearer not.a.jwt").contains("not a JWT"));
        String expired = idp.sign(LocalIdentityProvider.claims("t", "s", now.minusSeconds(3600), now.minusSeconds(600)).build(),
                JWSAlgorithm.RS256);
        assertTrue(reason(authorizer, "Bearer " + expired).contains("expired"));
        String wrongAudience = idp.sign(new JWTClaimsSet.Builder(LocalIdentityProvider.claims("t", "s", now, now.plusSeconds(600)).build())
                .audience("someone-else").build(), JWSAlgorithm.RS256);
        assertTrue(reason(authorizer, "Bearer " + wrongAudience).contains("audience"));
        String wrongIssuer = idp.sign(new JWTClaimsSet.Builder(LocalIdentityProvider.claims("t", "s", now, now.plusSeconds(600)).build())
                .issuer("https://evil.example").build(), JWSAlgorithm.ES256);
        assertTrue(reason(authorizer, "Bearer " + wrongIssuer).contains("issuer"));
        // signed by another provider's key under the same kid
        String forged = other.token("t", "s", Duration.ofMinutes(5), JWSAlgorithm.RS256);
        assertEquals("the signature does not verify", reason(authorizer, "Bearer " + forged));
        assertEquals("the signature does not verify", reason(authorizer, "Bearer " + other.token("t", "s", Duration.ofMinutes(5), JWSAlgorithm.ES256)));
        // a valid token with one character of its signature changed
        String good = idp.token("t", "s", Duration.ofMinutes(5), JWSAlgorithm.RS256);
        char last = good.charAt(good.length() - 2);
        String tampered = good.substring(0, good.length() - 2) + (last == 'A' ? 'B' : 'A') + good.charAt(good.length() - 1);
        assertEquals("the signature does not verify", reason(authorizer, "Bearer " + tampered));
        // alg none: header {"alg":"none"}, the claims of a valid token, no signature
        String claims = good.split("\\.")[1];
        String none = b64("{\"alg\":\"none\",\"typ\":\"JWT\"}") + "." + claims + ".";
        assertTrue(reason(authorizer, "Bearer " + none).contains("alg none"));
        // alg none declared in a JWS header with a kid, signature kept: still not an accepted algorithm
        String noneWithKid = b64("{\"alg\":\"none\",\"kid\":\"local-rs256\"}") + "." + claims + "." + good.split("\\.")[2];
        assertTrue(reason(authorizer, "Bearer " + noneWithKid).matches(".*(alg none|not accepted|not a JWT).*"));
        // HS256 with the public key as secret (algorithm confusion) is refused before any key is used
        String hs = b64("{\"alg\":\"HS256\",\"kid\":\"local-rs256\"}") + "." + claims + ".c2lnbmF0dXJl";
        assertTrue(reason(authorizer, "Bearer " + hs).contains("not accepted"));
        String notYet = idp.sign(LocalIdentityProvider.claims("t", "s", now.plusSeconds(3600), now.plusSeconds(7200)).build(), JWSAlgorithm.RS256);
        assertTrue(reason(authorizer, "Bearer " + notYet).contains("not valid before"));
        String noExp = idp.sign(new JWTClaimsSet.Builder(LocalIdentityProvider.claims("t", "s", now, now.plusSeconds(60)).build())
                .expirationTime(null).build(), JWSAlgorithm.RS256);
        assertTrue(reason(authorizer, "Bearer " + noExp).contains("no exp"));
    }

    /**
     * Issue 24 finding 3: no clock tolerance, as API Gateway's JWT authorizer ("exp – Must be after the current time in
     * UTC"; "nbf – Must be before the current time in UTC"; iat is not evaluated): refused from the second of exp.
     */
    @Test
    void aTokenIsRefusedFromTheSecondItsExpNamesWithNoClockTolerance() throws Exception {
        LocalIdentityProvider idp = LocalIdentityProvider.loadOrCreate(dir);
        Instant now = Instant.parse("2026-12-02T10:00:00Z");
        JwtAuthorizer authorizer = new JwtAuthorizer(idp.publicKeys(), LocalIdentityProvider.ISSUER,
                List.of(LocalIdentityProvider.AUDIENCE), Clock.fixed(now, ZoneOffset.UTC));
        String goneASecondAgo = idp.sign(LocalIdentityProvider.claims("t", "s", now.minusSeconds(60), now.minusSeconds(1)).build(),
                JWSAlgorithm.RS256);
        assertEquals("the token expired at 2026-12-02T09:59:59Z", reason(authorizer, goneASecondAgo));
        String goneNow = idp.sign(LocalIdentityProvider.claims("t", "s", now.minusSeconds(60), now).build(), JWSAlgorithm.RS256);
        assertEquals("the token expired at 2026-12-02T10:00:00Z", reason(authorizer, goneNow));
        assertDoesNotReject(authorizer, idp.sign(LocalIdentityProvider.claims("t", "s", now.minusSeconds(60), now.plusSeconds(1))
                .build(), JWSAlgorithm.RS256));
        String validInASecond = idp.sign(LocalIdentityProvider.claims("t", "s", now.plusSeconds(1), now.plusSeconds(60)).build(),
                JWSAlgorithm.RS256);
        assertEquals("the token is not valid before 2026-12-02T10:00:01Z", reason(authorizer, validInASecond));
        String issuedAheadNoNbf = idp.sign(new JWTClaimsSet.Builder(LocalIdentityProvider.claims("t", "s", now.plusSeconds(60),
                now.plusSeconds(120)).build()).notBeforeTime(null).build(), JWSAlgorithm.RS256);
        assertDoesNotReject(authorizer, issuedAheadNoNbf);
    }

    private static String b64(String json) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theTeamHeaderCountsOnlyBehindInsecureDevAuth() throws Exception {
        LocalIdentityProvider idp = LocalIdentityProvider.loadOrCreate(dir);
        SamTemplate t = SamTemplate.load(LocalAwsStack.rootFromEnv(), LocalAwsStack.LOCAL_PARAMETER_DEFAULTS);
        ApiAuth secure = ApiAuth.of(t, idp);
        Map<String, String> headers = Map.of("x-richter-team", "t1", "x-richter-user", "bob");
        assertThrows(JwtAuthorizer.Rejected.class, () -> secure.authorize("OidcAuthorizer", headers));
        ApiAuth insecure = secure.insecureDevHeaders();
        assertEquals(Map.of("team", "t1", "sub", "bob"), insecure.authorize("OidcAuthorizer", headers));
        // a token, when sent, is still verified, and wins over the header
        String token = idp.token("t2", "carol", Duration.ofMinutes(5), JWSAlgorithm.RS256);
        assertEquals("t2", insecure.authorize("OidcAuthorizer", Map.of("authorization", "Bearer " + token, "x-richter-team", "t1")).get("team"));
        assertThrows(JwtAuthorizer.Rejected.class, () -> insecure.authorize("OidcAuthorizer",
                Map.of("authorization", "Bearer nope", "x-richter-team", "t1")));
    }

    /**
     * A key set may list an encryption key and a signing key under one {@code kid} (Keycloak realms do): the token is
     * verified with the key whose {@code use} is {@code sig} (or unset) and whose type and {@code alg} fit the
     * token's, whatever the order (corpus bug 35; opensearch-project/security#4618).
     */
    @Test
    void bug35TheSigningKeyIsChosenWhenAnEncryptionKeySharesItsKid() throws Exception {
        var c = Json.MAPPER.readTree(
                Files.readString(Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"),
                        "bugs/35-jwks-same-kid-sig-enc.json")));
        var keys = JWKSet.parse(c.get("jwks").toString());
        var authorizer = new JwtAuthorizer(keys, c.get("issuer").asText(), List.of(c.get("audience").asText()),
                Clock.fixed(Instant.parse(c.get("clock").asText()), ZoneOffset.UTC));
        assertDoesNotReject(authorizer, c.get("authorization").asText());

        var encOnly = new JWKSet(keys.getKeys().stream()
                .filter(k -> KeyUse.ENCRYPTION.equals(k.getKeyUse())).toList());
        var onlyEnc = new JwtAuthorizer(encOnly, c.get("issuer").asText(), List.of(c.get("audience").asText()),
                Clock.fixed(Instant.parse(c.get("clock").asText()), ZoneOffset.UTC));
        assertEquals("no signing key with kid 'realm-key-1' for RS256 in the issuer's key set",
                reason(onlyEnc, c.get("authorization").asText()));
    }
}
