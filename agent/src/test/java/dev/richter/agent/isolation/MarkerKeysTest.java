package dev.richter.agent.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.richter.sdk.MarkerProof;
import dev.richter.sdk.MarkerProof.Check;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MarkerKeysTest {
    private static final String KEY = MarkerProof.newKey();

    private static MarkerKeys parse(String json) throws Exception {
        return MarkerKeys.parse(new ObjectMapper().readTree(json));
    }

    @Test
    void readsTheSectionAndNamesTheFieldOfABadOne() throws Exception {
        MarkerKeys keys = parse("{\"team\":\"shop-team\",\"keys\":[\"" + KEY + "\"]}");
        assertTrue(keys.required());
        assertEquals("shop-team", keys.team());
        assertFalse(keys.toString().contains(KEY), "never the key in a log line: " + keys);
        assertFalse(MarkerKeys.parse(null).required());
        assertEquals("marker.team: must be non-empty text",
                assertThrows(IllegalArgumentException.class, () -> parse("{\"keys\":[\"" + KEY + "\"]}")).getMessage());
        assertEquals("marker.keys: must be a non-empty array of base64url keys",
                assertThrows(IllegalArgumentException.class, () -> parse("{\"team\":\"t\",\"keys\":[]}")).getMessage());
        assertEquals("marker.keys[1]: must be base64url of at least 16 bytes", assertThrows(IllegalArgumentException.class,
                () -> parse("{\"team\":\"t\",\"keys\":[\"" + KEY + "\",\"c2hvcnQ\"]}")).getMessage());
    }

    @Test
    void aCachedValidTokenStillExpires() throws Exception {
        MarkerKeys keys = parse("{\"team\":\"t\",\"keys\":[\"" + KEY + "\"]}");
        String token = MarkerProof.mint(KEY, "t", "run-1", 1_000);
        assertEquals(Check.VALID, keys.check(token, 900));
        assertEquals(Check.VALID, keys.check(token, 1_000 + MarkerProof.CLOCK_SKEW_S));
        assertEquals(Check.EXPIRED, keys.check(token, 1_001 + MarkerProof.CLOCK_SKEW_S), "from the cache");
        assertEquals(Check.MISSING, keys.check(null, 900));
        assertEquals(Check.VALID, MarkerKeys.UNSIGNED.check(null, 900));
    }

    @Test
    void forgedTokensCannotGrowTheCacheWithoutBound() throws Exception {
        MarkerKeys keys = parse("{\"team\":\"t\",\"keys\":[\"" + KEY + "\"]}");
        String other = MarkerProof.newKey();
        for (int i = 0; i < MarkerKeys.CACHE_SIZE * 3; i++) {
            assertEquals(Check.BAD_SIGNATURE, keys.check(MarkerProof.mint(other, "t", "run-" + i, 2_000), 900));
        }
        java.lang.reflect.Field f = MarkerKeys.class.getDeclaredField("rejected");
        f.setAccessible(true);
        assertTrue(((java.util.Map<?, ?>) f.get(keys)).size() <= MarkerKeys.CACHE_SIZE);
    }

    @Test
    void parsedAsPartOfTheIsolationDocument() {
        IsolationConfig c = IsolationConfig.parse(("{\"mocks\":[],\"marker\":{\"team\":\"t\",\"keys\":[\"" + KEY + "\"]}}")
                .getBytes(StandardCharsets.UTF_8));
        assertTrue(c.marker().required());
        assertEquals("marker.team: must be non-empty text", assertThrows(IllegalArgumentException.class,
                () -> IsolationConfig.parse("{\"mocks\":[],\"marker\":{}}".getBytes(StandardCharsets.UTF_8))).getMessage());
    }
}
