package dev.richter.common.model;

import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * The load-test marker carried by every request Richter sends.
 *
 * <p>Default: W3C Baggage member {@code richter-loadtest=1} in the {@code baggage} header
 * (https://www.w3.org/TR/baggage/). The header and key are configurable per team. Richter's own sends add the
 * marker's proof, a token signed for the run ({@code dev.richter.sdk.MarkerProof}), as the baggage member {@value
 * #PROOF_MEMBER}: an extension whose isolation document names the team's keys counts the marker only with it.
 *
 * @param header HTTP header that carries the marker, e.g. {@code baggage}
 * @param key    baggage member key (or header value name), e.g. {@code richter-loadtest}
 * @param value  member value, e.g. {@code 1}
 * @param proof  the run's signed token, sent as member {@value #PROOF_MEMBER} of a {@code baggage} marker; null when
 *               none (a marker of a team without keys, or one written by hand). Never written to JSON (a stored data
 *               set's marker, a task): it is a bearer token for the run's length, made where it is sent
 */
public record Marker(String header, String key, String value, @JsonIgnore String proof) {
    /** The default marker: {@code baggage: richter-loadtest=1}. */
    public static final Marker DEFAULT = new Marker("baggage", "richter-loadtest", "1");
    /** The baggage member that carries the proof ({@code MarkerProof.MEMBER}). */
    public static final String PROOF_MEMBER = "richter-proof";

    /** A marker without a proof. */
    public Marker(String header, String key, String value) {
        this(header, key, value, null);
    }

    /** This marker with {@code token} as its proof. */
    public Marker withProof(String token) {
        return new Marker(header, key, value, token);
    }

    /**
     * This marker with a proof signed for one run ({@code MarkerProof.mint}).
     *
     * @param key      the team's newest marker key, base64url
     * @param expiresS when the proof stops verifying, epoch seconds
     * @throws IllegalArgumentException when the key is not a marker key, or team or run is empty
     */
    public Marker signed(String key, String team, String run, long expiresS) {
        return withProof(dev.richter.sdk.MarkerProof.mint(key, team, run, expiresS));
    }

    /** Never the proof: it is a bearer token for the run's length. */
    @Override
    public String toString() {
        return "Marker[" + header + ": " + key + "=" + value + (proof == null ? "" : ", proof") + "]";
    }
}
