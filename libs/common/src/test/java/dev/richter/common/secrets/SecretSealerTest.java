package dev.richter.common.secrets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kms.KmsClient;
import software.amazon.awssdk.services.kms.model.DecryptRequest;
import software.amazon.awssdk.services.kms.model.DecryptResponse;
import software.amazon.awssdk.services.kms.model.EncryptRequest;
import software.amazon.awssdk.services.kms.model.EncryptResponse;
import software.amazon.awssdk.services.kms.model.InvalidCiphertextException;

/**
 * A sealed secret opens only for the team and purpose it was sealed for; the KMS sealer sends the encryption context
 * and key on both calls, keeps opened values for 5 minutes, and refuses to work without its key.
 */
class SecretSealerTest {
    @Test
    void aValueSealedForOneTeamDoesNotOpenAsAnotherTeamsOrAsAnotherPurpose() {
        SecretSealer sealer = new MemorySecretSealer();
        // the key holds a space, which no base64 text does: finding it in the sealed text can only mean a leak, never chance
        String keys = "{\"keys\":[\"key one\"]}";
        String sealed = sealer.seal("team-a", SecretSealer.MARKER_KEYS, keys);
        assertFalse(sealed.contains("key one"));
        assertEquals(keys, sealer.open("team-a", SecretSealer.MARKER_KEYS, sealed));
        var other = assertThrows(SecretSealer.SecretNotOpenedException.class,
                () -> sealer.open("team-b", SecretSealer.MARKER_KEYS, sealed));
        assertFalse(other.getMessage().contains("key one"));
        assertThrows(SecretSealer.SecretNotOpenedException.class, () -> sealer.open("team-a", SecretSealer.WEBHOOK_SECRET, sealed));
        assertThrows(SecretSealer.SecretNotOpenedException.class, () -> new MemorySecretSealer().open("team-a",
                SecretSealer.MARKER_KEYS, sealed), "another key");
    }

    /** A KMS that seals by prefixing the context and records every request. */
    static final class FakeKms {
        final List<Object> requests = new ArrayList<>();
        final KmsClient client = (KmsClient) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {KmsClient.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "encrypt" -> {
                        EncryptRequest r = (EncryptRequest) args[0];
                        requests.add(r);
                        yield EncryptResponse.builder().keyId(r.keyId()).ciphertextBlob(SdkBytes.fromUtf8String(
                                r.encryptionContext() + "|" + r.plaintext().asUtf8String())).build();
                    }
                    case "decrypt" -> {
                        DecryptRequest r = (DecryptRequest) args[0];
                        requests.add(r);
                        String blob = r.ciphertextBlob().asUtf8String();
                        String prefix = r.encryptionContext() + "|";
                        if (!blob.startsWith(prefix)) {
                            throw InvalidCiphertextException.builder().statusCode(400).awsErrorDetails(AwsErrorDetails.builder()
                                    .errorCode("InvalidCiphertextException").build()).build();
                        }
                        yield DecryptResponse.builder().keyId(r.keyId()).plaintext(SdkBytes.fromUtf8String(
                                blob.substring(prefix.length()))).build();
                    }
                    case "close" -> null;
                    case "serviceName" -> "kms";
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void theKmsSealerSendsTheContextAndKeyOnBothCallsAndKeepsOpenedValuesFiveMinutes() {
        FakeKms kms = new FakeKms();
        AtomicLong now = new AtomicLong(1_000_000);
        String key = "arn:aws:kms:us-east-1:123456789012:key/k";
        KmsSecretSealer sealer = new KmsSecretSealer(kms.client, key, now::get);
        String sealed = sealer.seal("team-a", SecretSealer.WEBHOOK_SECRET, "s3cret-s3cret-s3cret");
        EncryptRequest enc = (EncryptRequest) kms.requests.get(0);
        assertEquals(key, enc.keyId());
        assertEquals(Map.of("team", "team-a", "purpose", "webhook-secret"), enc.encryptionContext());

        // just sealed: cached, no Decrypt
        assertEquals("s3cret-s3cret-s3cret", sealer.open("team-a", SecretSealer.WEBHOOK_SECRET, sealed));
        assertEquals(1, kms.requests.size());

        KmsSecretSealer fresh = new KmsSecretSealer(kms.client, key, now::get);
        assertEquals("s3cret-s3cret-s3cret", fresh.open("team-a", SecretSealer.WEBHOOK_SECRET, sealed));
        DecryptRequest dec = (DecryptRequest) kms.requests.get(1);
        assertEquals(key, dec.keyId());
        assertEquals(Map.of("team", "team-a", "purpose", "webhook-secret"), dec.encryptionContext());
        now.addAndGet(KmsSecretSealer.CACHE_TTL_MS - 1);
        fresh.open("team-a", SecretSealer.WEBHOOK_SECRET, sealed);
        assertEquals(2, kms.requests.size(), "within 5 minutes: cached");
        now.addAndGet(1);
        fresh.open("team-a", SecretSealer.WEBHOOK_SECRET, sealed);
        assertEquals(3, kms.requests.size(), "after 5 minutes: opened again");

        var wrongTeam = assertThrows(SecretSealer.SecretNotOpenedException.class,
                () -> fresh.open("team-b", SecretSealer.WEBHOOK_SECRET, sealed));
        assertTrue(wrongTeam.getMessage().contains("InvalidCiphertextException"), wrongTeam.getMessage());
        assertFalse(wrongTeam.getMessage().contains("s3cret"));
        assertThrows(SecretSealer.SecretNotOpenedException.class, () -> fresh.open("team-a", SecretSealer.WEBHOOK_SECRET, "%%"));
        assertThrows(IllegalArgumentException.class, () -> fresh.seal("team-a", SecretSealer.WEBHOOK_SECRET, "x".repeat(4097)));
    }

    @Test
    void withoutItsKeyTheKmsSealerRefusesOnlyWhenASecretIsTouched() {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv(KmsSecretSealer.KEY_ENV) == null
                && System.getProperty(KmsSecretSealer.KEY_ENV) == null);
        AtomicInteger built = new AtomicInteger();
        SecretSealer lazy = SecretSealer.lazy(() -> {
            built.incrementAndGet();
            return KmsSecretSealer.fromEnv();
        });
        assertEquals(0, built.get(), "nothing built before a secret is touched");
        var e = assertThrows(IllegalStateException.class, () -> lazy.open("team-a", SecretSealer.MARKER_KEYS, "AAAA"));
        assertTrue(e.getMessage().contains("RICHTER_SECRETS_KEY"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> lazy.seal("team-a", SecretSealer.MARKER_KEYS, "x"));
        assertEquals(2, built.get(), "a failed build is tried again, never replaced by a sealer that stores plain text");
    }
}
