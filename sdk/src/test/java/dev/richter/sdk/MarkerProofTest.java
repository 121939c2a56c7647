package dev.richter.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.sdk.MarkerProof.Check;
import java.util.List;
import org.junit.jupiter.api.Test;

class MarkerProofTest {
    /** Bytes 0..31 as base64url; the token below was computed with Python's hmac module, not with this code. */
    private static final String KEY = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
    private static final String TOKEN = "r1.c2hvcC10ZWFt.cnVuLTQy.1796000000.-3pODlE37ulAIkDIx-yTMw";
    private static final long BEFORE = 1_795_999_000L;

    @Test
    void mintsTheDocumentedFormatByteForByte() {
        assertEquals(TOKEN, MarkerProof.mint(KEY, "shop-team", "run-42", 1_796_000_000L));
    }

    @Test
    void verifiesOnlyATokenOfTheTeamSignedByItsKeyBeforeItExpires() {
        assertEquals(Check.VALID, MarkerProof.verify(TOKEN, "shop-team", List.of(KEY), BEFORE));
        assertEquals(Check.VALID, MarkerProof.verify(TOKEN, "shop-team", List.of(MarkerProof.newKey(), KEY), BEFORE),
                "any key of the team (rotation)");
        assertEquals(Check.OTHER_TEAM, MarkerProof.verify(TOKEN, "other-team", List.of(KEY), BEFORE));
        assertEquals(Check.BAD_SIGNATURE, MarkerProof.verify(TOKEN, "shop-team", List.of(MarkerProof.newKey()), BEFORE));
        assertEquals(Check.VALID, MarkerProof.verify(TOKEN, "shop-team", List.of(KEY),
                1_796_000_000L + MarkerProof.CLOCK_SKEW_S), "within the clock skew");
        assertEquals(Check.EXPIRED, MarkerProof.verify(TOKEN, "shop-team", List.of(KEY),
                1_796_000_000L + MarkerProof.CLOCK_SKEW_S + 1));
        assertEquals(Check.MISSING, MarkerProof.verify(null, "shop-team", List.of(KEY), BEFORE));
        assertEquals(Check.MISSING, MarkerProof.verify("", "shop-team", List.of(KEY), BEFORE));
    }

    @Test
    void anyChangeToAFieldBreaksTheSignature() {
        String laterExpiry = TOKEN.replace(".1796000000.", ".1896000000.");
        assertEquals(Check.BAD_SIGNATURE, MarkerProof.verify(laterExpiry, "shop-team", List.of(KEY), BEFORE));
        String otherRun = TOKEN.replace(".cnVuLTQy.", ".cnVuLTQz.");
        assertEquals(Check.BAD_SIGNATURE, MarkerProof.verify(otherRun, "shop-team", List.of(KEY), BEFORE));
        String flipped = TOKEN.substring(0, TOKEN.length() - 1) + (TOKEN.endsWith("w") ? "x" : "w");
        assertEquals(Check.BAD_SIGNATURE, MarkerProof.verify(flipped, "shop-team", List.of(KEY), BEFORE));
    }

    @Test
    void readsNothingFromWhatIsNotAToken() {
        for (String bad : new String[] {"1", "r1", "r1.a.b.c", "r2.c2hvcC10ZWFt.cnVuLTQy.1796000000.x",
                "r1.c2hvcC10ZWFt.cnVuLTQy.soon.x", "r1.c2hvcC10ZWFt.cnVuLTQy.1796000000.", "r1..cnVuLTQy.1.x",
                "r1.c2hvcC10ZWFt.cnVuLTQy.1796000000.x.y", "r1.*.cnVuLTQy.1796000000.x"}) {
            assertNull(MarkerProof.claims(bad), bad);
            assertEquals(Check.MALFORMED, MarkerProof.verify(bad, "shop-team", List.of(KEY), BEFORE), bad);
        }
        assertEquals("run-42", MarkerProof.claims(TOKEN).run());
        assertEquals("shop-team", MarkerProof.claims(TOKEN).team());
        assertEquals(1_796_000_000L, MarkerProof.claims(TOKEN).expiresS());
    }

    @Test
    void keysAreRandomAndLongEnough() {
        String a = MarkerProof.newKey();
        assertNotEquals(a, MarkerProof.newKey());
        assertEquals(43, a.length(), "32 bytes as base64url without padding");
        assertTrue(MarkerProof.isKey(a));
        assertTrue(MarkerProof.isKey(KEY));
        assertTrue(!MarkerProof.isKey("c2hvcnQ") && !MarkerProof.isKey("not a key!") && !MarkerProof.isKey(null),
                "too short, not base64url, absent");
        assertThrows(IllegalArgumentException.class, () -> MarkerProof.mint("c2hvcnQ", "t", "r", 1));
        assertThrows(IllegalArgumentException.class, () -> MarkerProof.mint(KEY, "", "r", 1));
        assertEquals(Check.BAD_SIGNATURE, MarkerProof.verify(TOKEN, "shop-team", List.of("not a key!"), BEFORE),
                "an unreadable key verifies nothing");
    }

    @Test
    void everyCharacterOfATokenIsABaggageOctet() {
        String token = MarkerProof.mint(MarkerProof.newKey(), "équipe/ü", "run 1,2;3", 1_796_000_000L);
        assertTrue(token.chars().allMatch(c -> c == 0x21 || (c >= 0x23 && c <= 0x2B) || (c >= 0x2D && c <= 0x3A)
                || (c >= 0x3C && c <= 0x5B) || (c >= 0x5D && c <= 0x7E)), token);
        assertEquals("run 1,2;3", MarkerProof.claims(token).run());
    }
}
