package dev.richter.common.secrets;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.KeyGenerator;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;

/**
 * A {@link SecretSealer} for tests, in memory: AES-256-GCM under a random key of this instance, the encryption context
 * ({@code team}, {@code purpose}) as the authenticated additional data, as KMS binds it; so a value opens only for the
 * team and purpose it was sealed for, and only with the instance that sealed it. Sealed form: base64 of
 * {@code iv (12 bytes) | ciphertext and tag}.
 */
public final class MemorySecretSealer implements SecretSealer {
    private static final SecureRandom RANDOM = new SecureRandom();
    private final SecretKey key;
    private final AtomicInteger opens = new AtomicInteger();

    public MemorySecretSealer() {
        try {
            KeyGenerator g = KeyGenerator.getInstance("AES");
            g.init(256, RANDOM);
            this.key = g.generateKey();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** How many values were opened. */
    public int opens() {
        return opens.get();
    }

    @Override
    public String seal(String teamId, String purpose, String plaintext) {
        byte[] iv = new byte[12];
        RANDOM.nextBytes(iv);
        try {
            Cipher c = cipher(Cipher.ENCRYPT_MODE, iv, teamId, purpose);
            byte[] ct = c.doFinal(plaintext.getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(ByteBuffer.allocate(iv.length + ct.length).put(iv).put(ct).array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String open(String teamId, String purpose, String sealed) {
        opens.incrementAndGet();
        byte[] blob;
        try {
            blob = Base64.getDecoder().decode(sealed);
        } catch (IllegalArgumentException e) {
            throw new SecretNotOpenedException(teamId, purpose, "not base64");
        }
        if (blob.length < 12 + 16) {
            throw new SecretNotOpenedException(teamId, purpose, "too short");
        }
        try {
            Cipher c = cipher(Cipher.DECRYPT_MODE, java.util.Arrays.copyOf(blob, 12), teamId, purpose);
            return new String(c.doFinal(blob, 12, blob.length - 12), StandardCharsets.UTF_8);
        } catch (AEADBadTagException e) {
            throw new SecretNotOpenedException(teamId, purpose, "InvalidCiphertextException");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private Cipher cipher(int mode, byte[] iv, String teamId, String purpose) throws GeneralSecurityException {
        Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
        c.init(mode, key, new GCMParameterSpec(128, iv));
        c.updateAAD(dev.richter.common.Json.write(new java.util.TreeMap<>(SecretSealer.context(teamId, purpose)))
                .getBytes(StandardCharsets.UTF_8));
        return c;
    }
}
