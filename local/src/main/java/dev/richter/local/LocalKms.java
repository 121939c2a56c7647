package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.richter.common.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The local stack's AWS KMS: {@code Encrypt} and {@code Decrypt} of the template's {@code AWS::KMS::Key}s
 * ({@link SamTemplate#kmsKeys()}), over KMS's own protocol, so the functions' {@code KmsClient} (and any other KMS
 * client) talks to it through {@code AWS_ENDPOINT_URL_KMS} unchanged.
 *
 * <p>Protocol: AWS JSON 1.1, {@code POST /} with {@code X-Amz-Target: TrentService.<Operation>} and a JSON body; binary
 * members (blobs) in base64 (https://docs.aws.amazon.com/kms/latest/APIReference/CommonParameters.html). Shapes as the
 * API reference gives them: {@code Encrypt} {@code {KeyId, Plaintext, EncryptionContext?}} → {@code {CiphertextBlob,
 * KeyId (the key ARN), EncryptionAlgorithm: SYMMETRIC_DEFAULT}}
 * (https://docs.aws.amazon.com/kms/latest/APIReference/API_Encrypt.html); {@code Decrypt} {@code {CiphertextBlob,
 * EncryptionContext?, KeyId?}} → {@code {KeyId, Plaintext, EncryptionAlgorithm}}
 * (https://docs.aws.amazon.com/kms/latest/APIReference/API_Decrypt.html). {@code KeyId} is a key id or key ARN.
 * Errors are HTTP 400 {@code {"__type": <code>, "message"}}: {@code NotFoundException} (no such key; an alias, which
 * the local stack has none of), {@code ValidationException} (a missing member, a plaintext outside 1 to 4096 bytes),
 * {@code InvalidCiphertextException} (a blob this server did not make, tampered, or opened with another encryption
 * context), {@code IncorrectKeyException} (Decrypt's {@code KeyId} is not the key that made the blob),
 * {@code UnknownOperationException} (any other target). {@code AccessDeniedException} comes from IAM before a request
 * is sent ({@link IamEnforcement}: {@code kms:Encrypt}/{@code kms:Decrypt} on the key ARN, as the template's
 * {@code KMSEncryptPolicy}/{@code KMSDecryptPolicy} grant); the key policy (the account's root {@code kms:*}) defers to
 * IAM, so the local stack evaluates IAM only.
 *
 * <p>Ciphertext (local, opaque to callers as AWS's is): {@code 0x01 | key id (36 ASCII bytes) | IV (12) | AES-256-GCM
 * ciphertext and tag}, the additional authenticated data being the key id and the encryption context as sorted JSON,
 * as KMS binds the context (https://docs.aws.amazon.com/kms/latest/developerguide/encrypt_context.html). Key material:
 * 32 random bytes per key in {@code <dir>/<keyId>.key} (owner-only), made on the first start and kept, so values
 * sealed in a persistent local DynamoDB still open after a restart.
 */
public final class LocalKms implements AutoCloseable {
    /** KMS's JSON 1.1 target prefix. */
    static final String TARGET_PREFIX = "TrentService.";
    /** {@code Encrypt}'s plaintext limit, bytes. */
    static final int MAX_PLAINTEXT_BYTES = 4096;
    private static final byte VERSION = 1;
    private static final int KEY_ID_BYTES = 36;
    private static final int IV_BYTES = 12;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** key id → AES-256 key. */
    private final Map<String, SecretKeySpec> keys;
    private HttpServer server;

    private LocalKms(Map<String, SecretKeySpec> keys) {
        this.keys = Map.copyOf(keys);
    }

    /**
     * The keys {@code keyIds} (UUIDs), their material read from {@code dir}, or made there when absent.
     *
     * @throws UncheckedIOException when the directory cannot be written or a key file is not 32 bytes of base64
     */
    public static LocalKms loadOrCreate(Path dir, Collection<String> keyIds) {
        Map<String, SecretKeySpec> keys = new LinkedHashMap<>();
        try {
            Files.createDirectories(dir);
            for (String id : keyIds) {
                UUID.fromString(id);   // a key id is a UUID: 36 characters in the blob
                Path file = dir.resolve(id + ".key");
                if (!Files.exists(file)) {
                    byte[] material = new byte[32];
                    RANDOM.nextBytes(material);
                    SecretFiles.createOnce(file, Base64.getEncoder().encodeToString(material));
                }
                byte[] material = Base64.getDecoder().decode(Files.readString(file).strip());
                if (material.length != 32) {
                    throw new IOException(file + " is not a local KMS key (32 bytes in base64); delete it to make a new"
                            + " one (values sealed with the old one stop opening)");
                }
                keys.put(id, new SecretKeySpec(material, "AES"));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (IllegalArgumentException e) {
            throw new UncheckedIOException(new IOException("local KMS keys in " + dir + ": " + e.getMessage(), e));
        }
        return new LocalKms(keys);
    }

    /** Starts on loopback {@code port} (0: any free port, {@link #port()}). */
    public LocalKms start(int port) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 64);
        server.createContext("/", this::serve);
        server.start();
        return this;
    }

    /** The port it listens on. */
    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        if (server != null) {
            server.stop(0);
        }
    }

    /** A KMS error: its {@code __type} and message. */
    private static final class KmsError extends Exception {
        final String code;

        KmsError(String code, String message) {
            super(message);
            this.code = code;
        }
    }

    private void serve(HttpExchange ex) throws IOException {
        try (ex) {
            String target = Optional.ofNullable(ex.getRequestHeaders().getFirst("X-Amz-Target")).orElse("");
            byte[] body = ex.getRequestBody().readAllBytes();
            try {
                if (!"POST".equals(ex.getRequestMethod()) || !target.startsWith(TARGET_PREFIX)) {
                    throw new KmsError("UnknownOperationException", "no KMS operation " + ex.getRequestMethod() + " " + target);
                }
                JsonNode request = body.length == 0 ? Json.MAPPER.createObjectNode() : Json.MAPPER.readTree(body);
                ObjectNode answer = switch (target.substring(TARGET_PREFIX.length())) {
                    case "Encrypt" -> encrypt(request);
                    case "Decrypt" -> decrypt(request);
                    default -> throw new KmsError("UnknownOperationException", "the local KMS serves Encrypt and Decrypt, not "
                            + target.substring(TARGET_PREFIX.length()));
                };
                send(ex, 200, answer);
            } catch (KmsError e) {
                ObjectNode err = Json.MAPPER.createObjectNode();
                err.put("__type", e.code);
                err.put("message", e.getMessage());
                send(ex, 400, err);
            } catch (IOException e) {
                ObjectNode err = Json.MAPPER.createObjectNode();
                err.put("__type", "SerializationException");
                err.put("message", "the body is not JSON");
                send(ex, 400, err);
            }
        }
    }

    private static void send(HttpExchange ex, int status, JsonNode body) throws IOException {
        byte[] out = Json.write(body).getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/x-amz-json-1.1");
        ex.getResponseHeaders().set("x-amzn-RequestId", UUID.randomUUID().toString());
        ex.sendResponseHeaders(status, out.length);
        ex.getResponseBody().write(out);
    }

    private ObjectNode encrypt(JsonNode r) throws KmsError {
        String keyId = key(required(r, "KeyId"));
        byte[] plaintext = blob(r, "Plaintext");
        if (plaintext.length < 1 || plaintext.length > MAX_PLAINTEXT_BYTES) {
            throw new KmsError("ValidationException", "1 validation error detected: Value at 'plaintext' failed to satisfy"
                    + " constraint: Member must have length between 1 and " + MAX_PLAINTEXT_BYTES);
        }
        byte[] iv = new byte[IV_BYTES];
        RANDOM.nextBytes(iv);
        byte[] sealed = crypt(Cipher.ENCRYPT_MODE, keyId, iv, context(r), plaintext);
        byte[] id = keyId.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(1 + id.length + iv.length + sealed.length).put(VERSION).put(id).put(iv).put(sealed);
        ObjectNode out = Json.MAPPER.createObjectNode();
        out.put("CiphertextBlob", Base64.getEncoder().encodeToString(b.array()));
        out.put("KeyId", SamTemplate.kmsKeyArn(keyId));
        out.put("EncryptionAlgorithm", "SYMMETRIC_DEFAULT");
        return out;
    }

    private ObjectNode decrypt(JsonNode r) throws KmsError {
        byte[] blob = blob(r, "CiphertextBlob");
        if (blob.length < 1 + KEY_ID_BYTES + IV_BYTES + 16 || blob[0] != VERSION) {
            throw new KmsError("InvalidCiphertextException", null);
        }
        String keyId = new String(blob, 1, KEY_ID_BYTES, StandardCharsets.US_ASCII);
        if (!keys.containsKey(keyId)) {
            throw new KmsError("InvalidCiphertextException", null);
        }
        if (r.path("KeyId").isTextual() && !key(r.get("KeyId").asText()).equals(keyId)) {
            throw new KmsError("IncorrectKeyException", "The key ID in the request does not identify a KMS key that can"
                    + " perform this operation.");
        }
        byte[] iv = Arrays.copyOfRange(blob, 1 + KEY_ID_BYTES, 1 + KEY_ID_BYTES + IV_BYTES);
        byte[] plaintext = crypt(Cipher.DECRYPT_MODE, keyId, iv, context(r),
                Arrays.copyOfRange(blob, 1 + KEY_ID_BYTES + IV_BYTES, blob.length));
        ObjectNode out = Json.MAPPER.createObjectNode();
        out.put("KeyId", SamTemplate.kmsKeyArn(keyId));
        out.put("Plaintext", Base64.getEncoder().encodeToString(plaintext));
        out.put("EncryptionAlgorithm", "SYMMETRIC_DEFAULT");
        return out;
    }

    /** AES-256-GCM under the key, the key id and context authenticated; a failed tag is {@code InvalidCiphertextException}. */
    private byte[] crypt(int mode, String keyId, byte[] iv, Map<String, String> context, byte[] input) throws KmsError {
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(mode, keys.get(keyId), new GCMParameterSpec(128, iv));
            c.updateAAD((keyId + Json.write(context)).getBytes(StandardCharsets.UTF_8));
            return c.doFinal(input);
        } catch (AEADBadTagException e) {
            throw new KmsError("InvalidCiphertextException", null);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM unavailable", e);
        }
    }

    /** The key id a {@code KeyId} names (a key id or this stack's key ARN). */
    private String key(String keyId) throws KmsError {
        String prefix = SamTemplate.kmsKeyArn("");
        String id = keyId.startsWith(prefix) ? keyId.substring(prefix.length()) : keyId;
        if (!keys.containsKey(id)) {
            throw new KmsError("NotFoundException", keyId.startsWith("alias/") || keyId.contains(":alias/")
                    ? "Alias " + keyId + " is not found." : "Key '" + SamTemplate.kmsKeyArn(id) + "' does not exist");
        }
        return id;
    }

    private static String required(JsonNode r, String member) throws KmsError {
        if (!r.path(member).isTextual() || r.get(member).asText().isEmpty()) {
            throw new KmsError("ValidationException", "1 validation error detected: Value null at '"
                    + Character.toLowerCase(member.charAt(0)) + member.substring(1) + "' failed to satisfy constraint: Member"
                    + " must not be null");
        }
        return r.get(member).asText();
    }

    private static byte[] blob(JsonNode r, String member) throws KmsError {
        try {
            return Base64.getDecoder().decode(required(r, member));
        } catch (IllegalArgumentException e) {
            throw new KmsError("SerializationException", member + " is not base64");
        }
    }

    /** The request's encryption context, sorted (empty when none). */
    private static Map<String, String> context(JsonNode r) {
        Map<String, String> out = new TreeMap<>();
        r.path("EncryptionContext").fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
        return out;
    }
}
