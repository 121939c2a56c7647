package dev.richter.sdk;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The proof that a marked request is Richter's: a token bound to a team and a run, that expires, signed with the
 * team's marker key. It travels as the W3C Baggage member {@value #MEMBER} next to the marker ({@code
 * richter-loadtest=1}), so every hop that propagates baggage carries it.
 *
 * <p>Format (version {@code r1}): {@code r1.<team>.<run>.<expires>.<mac>}, where {@code team} and {@code run} are
 * base64url without padding of their UTF-8 bytes, {@code expires} is the expiry in decimal epoch seconds, and {@code
 * mac} is base64url without padding of the first 16 bytes of HMAC-SHA256 (RFC 2104; truncation to 128 bits as in RFC
 * 4868 §2.6) over the ASCII text {@code r1.<team>.<run>.<expires>} (the token without its last part), keyed with
 * the team's key. Every character is a W3C baggage-octet, so the token needs no percent-encoding.
 *
 * <p>A team's key is 32 random bytes, written as base64url without padding ({@link #newKey}). Richter keeps it and
 * hands it to the team's extensions in the isolation document; a team may hold several (rotation), and a token
 * verifies when any of them signed it. Plain Java 8: the agent extension verifies with it in the service's JVM.
 */
public final class MarkerProof {
    /** The baggage member that carries the proof, next to the marker's own member. */
    public static final String MEMBER = "richter-proof";
    /** How far a verifier's clock may be behind the signer's, seconds: a token is still valid this long after expiry. */
    public static final long CLOCK_SKEW_S = 60;

    private static final String VERSION = "r1";
    private static final int MAC_BYTES = 16;
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder B64D = Base64.getUrlDecoder();

    private MarkerProof() {}

    /** Why a token did or did not verify. Only {@link #VALID} makes a request Richter's. */
    public enum Check {
        /** Signed by a key of the expected team, not expired. */
        VALID,
        /** No token at all next to the marker. */
        MISSING,
        /** Not a token of a version this code reads. */
        MALFORMED,
        /** A well-formed token of another team. */
        OTHER_TEAM,
        /** A well-formed token of the team, past its expiry (plus {@link #CLOCK_SKEW_S}). */
        EXPIRED,
        /** A well-formed token of the team whose signature no key of the team made. */
        BAD_SIGNATURE
    }

    /**
     * A token's fields, read without verifying it.
     *
     * @param team       the team it names
     * @param run        the run it names
     * @param expiresS   its expiry, epoch seconds
     */
    public static final class Claims {
        private final String team;
        private final String run;
        private final long expiresS;

        Claims(String team, String run, long expiresS) {
            this.team = team;
            this.run = run;
            this.expiresS = expiresS;
        }

        /** The team the token names. */
        public String team() {
            return team;
        }

        /** The run the token names. */
        public String run() {
            return run;
        }

        /** Its expiry, epoch seconds. */
        public long expiresS() {
            return expiresS;
        }
    }

    /** A new random key of 32 bytes, as base64url without padding. */
    public static String newKey() {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        return B64.encodeToString(key);
    }

    /**
     * Signs a token for one run.
     *
     * @param key      the team's key, base64url (as {@link #newKey} writes it)
     * @param team     the team id, non-empty
     * @param run      the run id, non-empty
     * @param expiresS when the token stops verifying, epoch seconds
     * @return the token, e.g. {@code r1.dGVhbS0x.cnVuLTE.1796000000.q7N…}
     * @throws IllegalArgumentException when the key is not base64url of at least 16 bytes, or team or run is empty
     */
    public static String mint(String key, String team, String run, long expiresS) {
        if (team == null || team.isEmpty() || run == null || run.isEmpty()) {
            throw new IllegalArgumentException("a marker proof needs a team and a run");
        }
        String body = VERSION + "." + B64.encodeToString(team.getBytes(StandardCharsets.UTF_8)) + "."
                + B64.encodeToString(run.getBytes(StandardCharsets.UTF_8)) + "." + expiresS;
        return body + "." + B64.encodeToString(mac(keyBytes(key), body));
    }

    /**
     * Reads a token's fields without verifying its signature (for evidence: which run a rejected token claimed).
     *
     * @return the claims, or null when {@code token} is not a well-formed token
     */
    public static Claims claims(String token) {
        if (token == null) {
            return null;
        }
        String[] parts = token.split("\\.", -1);
        if (parts.length != 5 || !VERSION.equals(parts[0])) {
            return null;
        }
        try {
            String team = new String(B64D.decode(parts[1]), StandardCharsets.UTF_8);
            String run = new String(B64D.decode(parts[2]), StandardCharsets.UTF_8);
            long expires = Long.parseLong(parts[3]);
            if (team.isEmpty() || run.isEmpty() || parts[4].isEmpty()) {
                return null;
            }
            return new Claims(team, run, expires);
        } catch (IllegalArgumentException malformed) {
            return null;
        }
    }

    /**
     * Verifies a token for a team.
     *
     * @param token  the value of the {@value #MEMBER} member, or null when the request had none
     * @param team   the team the verifier serves
     * @param keys   the team's keys, base64url; a key that is not base64url is skipped
     * @param nowS   the verifier's clock, epoch seconds
     * @return {@link Check#VALID} when some key of {@code keys} signed it for {@code team} and {@code nowS <=
     *     expires + }{@value #CLOCK_SKEW_S}; otherwise the first reason it fails, in the order of {@link Check}
     */
    public static Check verify(String token, String team, List<String> keys, long nowS) {
        if (token == null || token.isEmpty()) {
            return Check.MISSING;
        }
        Claims claims = claims(token);
        if (claims == null) {
            return Check.MALFORMED;
        }
        if (!claims.team().equals(team)) {
            return Check.OTHER_TEAM;
        }
        if (nowS > claims.expiresS() + CLOCK_SKEW_S) {
            return Check.EXPIRED;
        }
        int dot = token.lastIndexOf('.');
        // compared as written: base64 text with other unused low bits decodes to the same bytes, and is no token of ours
        byte[] given = token.substring(dot + 1).getBytes(StandardCharsets.US_ASCII);
        String body = token.substring(0, dot);
        for (String key : keys) {
            byte[] k;
            try {
                k = keyBytes(key);
            } catch (IllegalArgumentException unreadable) {
                continue;
            }
            if (MessageDigest.isEqual(B64.encodeToString(mac(k, body)).getBytes(StandardCharsets.US_ASCII), given)) {
                return Check.VALID;
            }
        }
        return Check.BAD_SIGNATURE;
    }

    /** Where a service answers its ownership token ({@link #ownershipToken}): {@value}. */
    public static final String OWNERSHIP_PATH = "/.well-known/richter-ownership";

    /**
     * The token a service answers at {@link #OWNERSHIP_PATH} to show that team {@code teamId} runs it: base64url of
     * the first 16 bytes of HMAC-SHA256 over {@code ownership|<team>|<service>} with the team's marker key (22
     * characters). Only the team (through the API, which shows it) and Richter can make it, and it names one service.
     *
     * @param key     the team's marker key, base64url ({@link #newKey})
     * @param teamId  the team
     * @param service the service's registered name
     * @throws IllegalArgumentException when {@code key} is not a key
     */
    public static String ownershipToken(String key, String teamId, String service) {
        return B64.encodeToString(mac(keyBytes(key), "ownership|" + teamId + "|" + service));
    }

    /** Whether {@code key} is a marker key: base64url of at least 16 bytes (as {@link #newKey} writes 32). */
    public static boolean isKey(String key) {
        try {
            keyBytes(key);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static byte[] keyBytes(String key) {
        byte[] k = key == null ? new byte[0] : B64D.decode(key);
        if (k.length < 16) {
            throw new IllegalArgumentException("a marker key is base64url of at least 16 bytes");
        }
        return k;
    }

    private static byte[] mac(byte[] key, String body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            byte[] full = mac.doFinal(body.getBytes(StandardCharsets.US_ASCII));
            byte[] out = new byte[MAC_BYTES];
            System.arraycopy(full, 0, out, 0, MAC_BYTES);
            return out;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every JVM has HmacSHA256", e);
        }
    }
}
