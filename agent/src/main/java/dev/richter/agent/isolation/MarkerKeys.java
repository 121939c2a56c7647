package dev.richter.agent.isolation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.sdk.Backports;
import dev.richter.sdk.MarkerProof;
import dev.richter.sdk.MarkerProof.Check;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code marker} section of the isolation document: the team whose markers this service accepts and the keys
 * that sign them ({@link MarkerProof}). {@code {"team": "shop-team", "keys": ["<base64url>", ...]}}; Richter's {@code
 * GET /safety/isolation} always serves it. A document without it ({@link #UNSIGNED}, a document written by hand)
 * accepts the bare marker.
 *
 * <p>Checks are cached per token, so each hop of a request, and each exit a hop makes, checks a run's token by one
 * map lookup after its first HMAC: a valid token with its expiry (compared with the clock at each use), a rejected
 * one with its reason. Each cache holds at most {@value #CACHE_SIZE} tokens and is emptied when full, so forged
 * tokens cannot grow it without bound. Equality is on team and keys: a refresh that changes neither keeps the value.
 */
public final class MarkerKeys {
    /** No {@code marker} section: the bare marker is accepted, as before markers were signed. */
    public static final MarkerKeys UNSIGNED = new MarkerKeys("", Collections.<String>emptyList());
    static final int CACHE_SIZE = 10_000;

    private final String team;
    private final List<String> keys;
    private final Map<String, Long> validUntilS = new ConcurrentHashMap<>();
    private final Map<String, Check> rejected = new ConcurrentHashMap<>();

    /**
     * @param team the team whose markers are accepted; {@code ""} with no keys for {@link #UNSIGNED}
     * @param keys the team's keys, base64url
     */
    public MarkerKeys(String team, List<String> keys) {
        this.team = team;
        this.keys = Backports.listCopy(keys);
    }

    /** Whether a marker must carry a proof that verifies (the document named keys). */
    public boolean required() {
        return !keys.isEmpty();
    }

    /** The team whose markers are accepted; {@code ""} when {@link #UNSIGNED}. */
    public String team() {
        return team;
    }

    /**
     * The check of a marked request's proof.
     *
     * @param token the {@value MarkerProof#MEMBER} member's value, or null when the request had none
     * @param nowS  the clock, epoch seconds
     * @return {@link Check#VALID} for any token when {@link #UNSIGNED}; otherwise {@link MarkerProof#verify}'s
     */
    public Check check(String token, long nowS) {
        if (!required()) {
            return Check.VALID;
        }
        if (token == null || token.isEmpty()) {
            return Check.MISSING;
        }
        Long until = validUntilS.get(token);
        if (until != null) {
            return nowS <= until ? Check.VALID : Check.EXPIRED;
        }
        Check known = rejected.get(token);
        if (known != null) {
            return known;
        }
        Check v = MarkerProof.verify(token, team, keys, nowS);
        if (v == Check.VALID) {
            remember(validUntilS, token, MarkerProof.claims(token).expiresS() + MarkerProof.CLOCK_SKEW_S);
        } else if (v != Check.EXPIRED) {
            remember(rejected, token, v);
        }
        return v;
    }

    private static <V> void remember(Map<String, V> cache, String token, V value) {
        if (cache.size() >= CACHE_SIZE) {
            cache.clear();
        }
        cache.put(token, value);
    }

    /**
     * Reads the {@code marker} section.
     *
     * @param node the section, or null when the document has none
     * @throws IllegalArgumentException naming the field: {@code marker.team: must be non-empty text}, {@code
     *     marker.keys: must be a non-empty array of base64url keys}, {@code marker.keys[1]: must be base64url of at
     *     least 16 bytes}
     */
    public static MarkerKeys parse(JsonNode node) {
        if (node == null || node.isNull()) {
            return UNSIGNED;
        }
        if (!node.isObject()) {
            throw new IllegalArgumentException("marker: must be an object {\"team\": ..., \"keys\": [...]}");
        }
        JsonNode team = node.get("team");
        if (team == null || !team.isTextual() || team.asText().isEmpty()) {
            throw new IllegalArgumentException("marker.team: must be non-empty text");
        }
        JsonNode keys = node.get("keys");
        if (keys == null || !keys.isArray() || keys.size() == 0) {
            throw new IllegalArgumentException("marker.keys: must be a non-empty array of base64url keys");
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            JsonNode k = keys.get(i);
            if (!k.isTextual() || !MarkerProof.isKey(k.asText())) {
                throw new IllegalArgumentException("marker.keys[" + i + "]: must be base64url of at least 16 bytes");
            }
            out.add(k.asText());
        }
        return new MarkerKeys(team.asText(), out);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MarkerKeys && team.equals(((MarkerKeys) o).team) && keys.equals(((MarkerKeys) o).keys);
    }

    @Override
    public int hashCode() {
        return Objects.hash(team, keys);
    }

    /** Never the keys: this reaches logs. */
    @Override
    public String toString() {
        return required() ? "MarkerKeys[team=" + team + ", " + keys.size() + " key(s)]" : "MarkerKeys[unsigned]";
    }
}
