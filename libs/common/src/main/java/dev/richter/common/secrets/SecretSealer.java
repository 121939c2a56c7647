package dev.richter.common.secrets;

import java.util.Map;
import java.util.function.Supplier;

/**
 * Seals a team's secret for storage and opens it again, bound to its team and purpose: a value sealed for team A as a
 * marker key opens only as team A's marker key. What Richter stores sealed (docs/aws.md "Secrets"): each team's marker
 * keys ({@link #MARKER_KEYS}) and its webhook secret ({@link #WEBHOOK_SECRET}).
 *
 * <p>The binding is the encryption context {@code {"team": <teamId>, "purpose": <purpose>}} ({@link #context}), which
 * AWS KMS authenticates as additional data
 * (https://docs.aws.amazon.com/kms/latest/developerguide/encrypt_context.html): opening with another context fails.
 * Deployed, {@link KmsSecretSealer} does it; tests use an in-memory one (common's test-jar).
 *
 * <p>Fail closed: a sealer that cannot seal or open throws, and callers let it propagate; nothing falls back to
 * storing or serving a secret in plain text. No implementation writes a plaintext into a log line or an exception
 * message.
 */
public interface SecretSealer {
    /** The purpose of a team's marker keys document ({@code {"keys": ["<base64url>", ...]}}). */
    String MARKER_KEYS = "marker-keys";
    /** The purpose of a team's webhook signing secret ({@code PUT /notifications}). */
    String WEBHOOK_SECRET = "webhook-secret";

    /**
     * Seals {@code plaintext} for {@code teamId} and {@code purpose}.
     *
     * @param plaintext UTF-8 text of at most {@value KmsSecretSealer#MAX_PLAINTEXT_BYTES} bytes
     * @return the sealed value, standard base64 (RFC 4648 §4), safe to store
     * @throws IllegalArgumentException when the plaintext is empty or too long
     * @throws IllegalStateException    when the sealer is not configured ({@code RICHTER_SECRETS_KEY} unset)
     */
    String seal(String teamId, String purpose, String plaintext);

    /**
     * Opens a value {@link #seal} made for the same {@code teamId} and {@code purpose}.
     *
     * @return the plaintext
     * @throws SecretNotOpenedException when {@code sealed} is not a value sealed for this team and purpose with this
     *                                  sealer's key (another team's or purpose's, tampered, not base64)
     * @throws IllegalStateException    when the sealer is not configured ({@code RICHTER_SECRETS_KEY} unset)
     */
    String open(String teamId, String purpose, String sealed);

    /** The encryption context of a team's secret: {@code {"team": teamId, "purpose": purpose}}. */
    static Map<String, String> context(String teamId, String purpose) {
        return Map.of("team", teamId, "purpose", purpose);
    }

    /**
     * A sealer that builds its delegate with {@code factory} when a secret is first sealed or opened, and keeps it: a
     * function that never touches a secret never builds one (nor fails for want of its configuration). A factory that
     * throws is asked again next time.
     */
    static SecretSealer lazy(Supplier<SecretSealer> factory) {
        return new SecretSealer() {
            private volatile SecretSealer delegate;

            private SecretSealer delegate() {
                SecretSealer d = delegate;
                if (d == null) {
                    synchronized (this) {
                        d = delegate;
                        if (d == null) {
                            d = factory.get();
                            delegate = d;
                        }
                    }
                }
                return d;
            }

            @Override
            public String seal(String teamId, String purpose, String plaintext) {
                return delegate().seal(teamId, purpose, plaintext);
            }

            @Override
            public String open(String teamId, String purpose, String sealed) {
                return delegate().open(teamId, purpose, sealed);
            }
        };
    }

    /**
     * A sealed value that does not open for the team and purpose asked (AWS KMS: {@code InvalidCiphertextException} or
     * {@code IncorrectKeyException}). Its message names the team and purpose, never the value.
     */
    final class SecretNotOpenedException extends RuntimeException {
        public SecretNotOpenedException(String teamId, String purpose, String why) {
            super("the sealed " + purpose + " of team " + teamId + " does not open: " + why);
        }
    }
}
