package dev.richter.common.secrets;

import dev.richter.common.AwsClients;
import dev.richter.common.Env;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.kms.KmsClient;
import software.amazon.awssdk.services.kms.model.DecryptRequest;
import software.amazon.awssdk.services.kms.model.EncryptRequest;
import software.amazon.awssdk.services.kms.model.IncorrectKeyException;
import software.amazon.awssdk.services.kms.model.InvalidCiphertextException;

/**
 * {@link SecretSealer} on AWS KMS, with the stack's symmetric key ({@code SecretsKey} in template.yaml, its ARN in
 * {@value #KEY_ENV}), no envelope: KMS {@code Encrypt} takes up to {@value #MAX_PLAINTEXT_BYTES} bytes of plaintext
 * directly (https://docs.aws.amazon.com/kms/latest/APIReference/API_Encrypt.html), and a marker keys document or a
 * webhook secret is far below that. Both {@code Encrypt} and {@code Decrypt}
 * (https://docs.aws.amazon.com/kms/latest/APIReference/API_Decrypt.html) carry the encryption context
 * {@code {"team", "purpose"}} ({@link SecretSealer#context}); {@code Decrypt} also names the key ({@code KeyId}), so a
 * ciphertext of another key fails ({@code IncorrectKeyException}) instead of being opened with whatever key made it.
 * The sealed form is the ciphertext blob in standard base64.
 *
 * <p><b>Cache.</b> Opened values are kept per container (per instance of this class; a function builds one) for
 * {@value #CACHE_TTL_MS} ms, at most {@value #CACHE_ENTRIES} of them, keyed by team, purpose and sealed value; a value
 * just sealed is cached too. A rotated or replaced secret is a new sealed value, so the cache never serves an old one.
 * Cost at production size (KMS pricing, https://aws.amazon.com/kms/pricing/: USD 0.03 per 10,000 symmetric requests,
 * USD 1 a month for the key): hundreds of extension JVMs refreshing {@code GET /safety/isolation} every 30 s are about
 * 10 requests a second (300 JVMs); opening each request's keys would be 10 {@code Decrypt}s a second, 26 million a
 * month (about USD 78) and 10/s of the account's shared cryptographic-operations quota
 * (https://docs.aws.amazon.com/kms/latest/developerguide/requests-per-second.html). With the cache a plan-api
 * container opens a team's keys at most once per 5 minutes: 5 warm containers serving 20 teams make at most 100
 * {@code Decrypt}s per 5 minutes (0.33/s, about 864,000 a month, USD 2.60). A load-driver worker opens its team's keys
 * once at its start; a webhook delivery once per container and 5 minutes.
 *
 * <p>Fail closed: without {@value #KEY_ENV} {@link #fromEnv()} throws {@link IllegalStateException} naming the
 * variable (only when a secret is touched: {@link SecretSealer#lazy}); a KMS error (denied, throttled, unreachable)
 * propagates as the SDK's exception.
 */
public final class KmsSecretSealer implements SecretSealer {
    /** The environment variable holding the key's ARN (template.yaml: {@code {"Fn::GetAtt": [SecretsKey, Arn]}}). */
    public static final String KEY_ENV = "RICHTER_SECRETS_KEY";
    /** KMS {@code Encrypt}'s largest plaintext, bytes (API reference, {@code Plaintext}: length 1 to 4096). */
    public static final int MAX_PLAINTEXT_BYTES = 4096;
    /** How long an opened value is kept, milliseconds. */
    public static final long CACHE_TTL_MS = 5 * 60 * 1000;
    /** How many opened values are kept at most (least recently used dropped first). */
    public static final int CACHE_ENTRIES = 1024;

    private static volatile KmsClient sharedClient;

    private final KmsClient kms;
    private final String keyArn;
    private final LongSupplier clockMs;
    private final Map<String, Opened> cache = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Opened> eldest) {
            return size() > CACHE_ENTRIES;
        }
    };

    private record Opened(String plaintext, long expiresAtMs) {}

    /**
     * @param kms     the KMS client
     * @param keyArn  the key's ARN (or key id), used as {@code KeyId} on both calls
     * @param clockMs epoch milliseconds, for the cache
     */
    public KmsSecretSealer(KmsClient kms, String keyArn, LongSupplier clockMs) {
        this.kms = kms;
        this.keyArn = keyArn;
        this.clockMs = clockMs;
    }

    /**
     * The sealer of a function: the key from {@value #KEY_ENV}, the container's KMS client (built once, like
     * {@link AwsClients}: the URL-connection HTTP client, region from {@code AWS_REGION}, the endpoint from
     * {@code AWS_ENDPOINT_URL_KMS} when set, as the SDK honours it).
     *
     * @throws IllegalStateException naming {@value #KEY_ENV} when it is unset
     */
    public static SecretSealer fromEnv() {
        String key = Env.get(KEY_ENV).orElseThrow(() -> new IllegalStateException(KEY_ENV + " is not set: secrets can be"
                + " neither sealed nor opened (template.yaml sets it to the stack's SecretsKey ARN)"));
        return new KmsSecretSealer(client(), key, System::currentTimeMillis);
    }

    private static KmsClient client() {
        if (sharedClient == null) {
            synchronized (KmsSecretSealer.class) {
                if (sharedClient == null) {
                    sharedClient = KmsClient.builder().region(AwsClients.region())
                            .httpClientBuilder(UrlConnectionHttpClient.builder()).build();
                }
            }
        }
        return sharedClient;
    }

    @Override
    public String seal(String teamId, String purpose, String plaintext) {
        SdkBytes bytes = SdkBytes.fromUtf8String(plaintext);
        if (bytes.asByteArrayUnsafe().length == 0 || bytes.asByteArrayUnsafe().length > MAX_PLAINTEXT_BYTES) {
            throw new IllegalArgumentException("a sealed " + purpose + " must be 1 to " + MAX_PLAINTEXT_BYTES
                    + " bytes of UTF-8, was " + bytes.asByteArrayUnsafe().length);
        }
        byte[] blob = kms.encrypt(EncryptRequest.builder().keyId(keyArn).plaintext(bytes)
                .encryptionContext(SecretSealer.context(teamId, purpose)).build()).ciphertextBlob().asByteArray();
        String sealed = Base64.getEncoder().encodeToString(blob);
        remember(cacheKey(teamId, purpose, sealed), plaintext);
        return sealed;
    }

    @Override
    public String open(String teamId, String purpose, String sealed) {
        String key = cacheKey(teamId, purpose, sealed);
        synchronized (cache) {
            Opened hit = cache.get(key);
            if (hit != null && hit.expiresAtMs() > clockMs.getAsLong()) {
                return hit.plaintext();
            }
        }
        byte[] blob;
        try {
            blob = Base64.getDecoder().decode(sealed);
        } catch (IllegalArgumentException e) {
            throw new SecretNotOpenedException(teamId, purpose, "not base64");
        }
        String plaintext;
        try {
            plaintext = kms.decrypt(DecryptRequest.builder().keyId(keyArn).ciphertextBlob(SdkBytes.fromByteArray(blob))
                    .encryptionContext(SecretSealer.context(teamId, purpose)).build()).plaintext().asUtf8String();
        } catch (InvalidCiphertextException | IncorrectKeyException e) {
            throw new SecretNotOpenedException(teamId, purpose, e.awsErrorDetails().errorCode());
        }
        remember(key, plaintext);
        return plaintext;
    }

    private void remember(String key, String plaintext) {
        synchronized (cache) {
            cache.put(key, new Opened(plaintext, clockMs.getAsLong() + CACHE_TTL_MS));
        }
    }

    private static String cacheKey(String teamId, String purpose, String sealed) {
        return teamId + '\u0000' + purpose + '\u0000' + sealed;
    }
}
