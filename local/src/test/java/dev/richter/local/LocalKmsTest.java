package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.secrets.KmsSecretSealer;
import dev.richter.common.secrets.SecretSealer;
import java.net.URI;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kms.KmsClient;
import software.amazon.awssdk.services.kms.model.IncorrectKeyException;
import software.amazon.awssdk.services.kms.model.KmsException;
import software.amazon.awssdk.services.kms.model.NotFoundException;

/**
 * The local KMS under the template's IAM: the functions' {@link KmsSecretSealer} seals and opens through it where
 * template.yaml grants {@code kms:Encrypt}/{@code kms:Decrypt} on {@code SecretsKey}, is refused with KMS's
 * {@code AccessDeniedException} where it does not, and a value opens only for the team and purpose it was sealed for.
 */
class LocalKmsTest {
    private static final String KEY = SamTemplate.localKmsKeyId("SecretsKey");
    private static final String KEY_ARN = SamTemplate.kmsKeyArn(KEY);
    private LocalKms kms;

    @AfterEach
    void stop() {
        IamEnforcement.uninstall();
        if (kms != null) {
            kms.close();
        }
    }

    private KmsClient client(Path dir, String... extraKeys) throws Exception {
        kms = LocalKms.loadOrCreate(dir.resolve("kms"), List.of(KEY, extraKeys.length > 0 ? extraKeys[0] : KEY)).start(0);
        return KmsClient.builder().region(Region.US_EAST_1).endpointOverride(URI.create("http://127.0.0.1:" + kms.port()))
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local"))).build();
    }

    /** Runs {@code call} as {@code function} (a thread the Lambda host marks), answering its value or what it threw. */
    private static Object as(String function, java.util.function.Supplier<Object> call) throws Exception {
        AtomicReference<Object> out = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            IamEnforcement.enter(function);
            try {
                out.set(call.get());
            } catch (Throwable e) {
                out.set(e);
            }
        });
        t.join();
        return out.get();
    }

    @Test
    void theTemplatesKeyIsTheSealersKeyAndOnlyFunctionsGrantedDecryptOpenWithIt(@TempDir Path dir) throws Exception {
        SamTemplate template = SamTemplate.load(LocalAwsStack.rootFromEnv(), LocalAwsStack.LOCAL_PARAMETER_DEFAULTS);
        assertEquals(java.util.Map.of("SecretsKey", KEY), template.kmsKeys());
        template.functions().forEach(f -> assertEquals(KEY_ARN, f.environment().get(KmsSecretSealer.KEY_ENV), f.logicalId()));
        IamEnforcement.install(IamPolicies.of(template), true, null, line -> { });
        KmsClient client = client(dir);

        Object sealed = as("PlanApiFunction", () -> new KmsSecretSealer(client, KEY_ARN, System::currentTimeMillis)
                .seal("team-a", SecretSealer.MARKER_KEYS, "{\"keys\":[\"a2V5LW9uZQ\"]}"));
        assertInstanceOf(String.class, sealed, String.valueOf(sealed));
        assertFalse(new String(Base64.getDecoder().decode((String) sealed), java.nio.charset.StandardCharsets.ISO_8859_1)
                .contains("a2V5LW9uZQ"), "the blob holds no plaintext");

        // the load driver may open (KMSDecryptPolicy), not seal
        assertEquals("{\"keys\":[\"a2V5LW9uZQ\"]}", as("LoadDriverFunction", () -> new KmsSecretSealer(client, KEY_ARN,
                System::currentTimeMillis).open("team-a", SecretSealer.MARKER_KEYS, (String) sealed)));
        KmsException encrypt = (KmsException) as("LoadDriverFunction", () -> new KmsSecretSealer(client, KEY_ARN,
                System::currentTimeMillis).seal("team-a", SecretSealer.MARKER_KEYS, "x"));
        assertEquals("AccessDeniedException", encrypt.awsErrorDetails().errorCode());

        // the report function has no kms:Decrypt in the template: KMS's AccessDeniedException, nothing sent
        KmsException denied = (KmsException) as("ReportFunction", () -> new KmsSecretSealer(client, KEY_ARN,
                System::currentTimeMillis).open("team-a", SecretSealer.MARKER_KEYS, (String) sealed));
        assertEquals("AccessDeniedException", denied.awsErrorDetails().errorCode());
        assertEquals(400, denied.statusCode());
        assertEquals("User: arn:aws:sts::" + SamTemplate.ACCOUNT + ":assumed-role/richter-ReportFunctionRole/ReportFunction is not"
                + " authorized to perform: kms:Decrypt on resource: " + KEY_ARN + " because no identity-based policy allows the"
                + " kms:Decrypt action", denied.awsErrorDetails().errorMessage());

        // the notifier opens webhook secrets; a marker key does not open as one, nor as another team's
        Object asWebhook = as("NotifierFunction", () -> new KmsSecretSealer(client, KEY_ARN, System::currentTimeMillis)
                .open("team-a", SecretSealer.WEBHOOK_SECRET, (String) sealed));
        assertInstanceOf(SecretSealer.SecretNotOpenedException.class, asWebhook);
        Object asTeamB = as("ChecksFunction", () -> new KmsSecretSealer(client, KEY_ARN, System::currentTimeMillis)
                .open("team-b", SecretSealer.MARKER_KEYS, (String) sealed));
        assertInstanceOf(SecretSealer.SecretNotOpenedException.class, asTeamB);
        assertTrue(((Exception) asTeamB).getMessage().contains("InvalidCiphertextException"), ((Exception) asTeamB).getMessage());
    }

    /** docs/aws.md "Secrets", who may do what: the template grants exactly this and nothing else in the account. */
    @Test
    void onlyTheFunctionsThatSealOrOpenSecretsMayUseTheKey() throws Exception {
        IamPolicies policies = IamPolicies.of(SamTemplate.load(LocalAwsStack.rootFromEnv(), LocalAwsStack.LOCAL_PARAMETER_DEFAULTS));
        java.util.Map<String, java.util.Set<String>> expected = java.util.Map.of(
                "PlanApiFunction", java.util.Set.of("kms:Encrypt", "kms:Decrypt"),
                "NotifierFunction", java.util.Set.of("kms:Decrypt"),
                "LoadDriverFunction", java.util.Set.of("kms:Decrypt"),
                "ChecksFunction", java.util.Set.of("kms:Decrypt"),
                "DataConstructionFunction", java.util.Set.of("kms:Encrypt", "kms:Decrypt"));
        for (String principal : policies.principals().keySet()) {
            java.util.Set<String> allowed = new java.util.TreeSet<>();
            for (String action : List.of("kms:Encrypt", "kms:Decrypt")) {
                if (policies.decide(principal, action, KEY_ARN) == IamPolicies.AccessDecision.ALLOWED) {
                    allowed.add(action);
                }
                assertEquals(IamPolicies.AccessDecision.IMPLICIT_DENY, policies.decide(principal, action,
                        SamTemplate.kmsKeyArn(java.util.UUID.randomUUID().toString())), principal + ": another key");
            }
            assertEquals(expected.getOrDefault(principal, java.util.Set.of()), allowed, principal);
        }
    }

    @Test
    void kmsAnswersItsOwnErrorsForATamperedBlobAnUnknownKeyAndAnotherKey(@TempDir Path dir) throws Exception {
        String other = java.util.UUID.randomUUID().toString();
        KmsClient client = client(dir, other);
        var context = SecretSealer.context("team-a", SecretSealer.WEBHOOK_SECRET);
        byte[] blob = client.encrypt(r -> r.keyId(KEY).plaintext(SdkBytes.fromUtf8String("whsec-0123456789abcdef"))
                .encryptionContext(context)).ciphertextBlob().asByteArray();
        assertEquals("whsec-0123456789abcdef", client.decrypt(r -> r.keyId(KEY_ARN).ciphertextBlob(SdkBytes.fromByteArray(blob))
                .encryptionContext(context)).plaintext().asUtf8String());
        byte[] tampered = blob.clone();
        tampered[tampered.length - 1] ^= 1;
        KmsException bad = assertThrowsKms(() -> client.decrypt(r -> r.ciphertextBlob(SdkBytes.fromByteArray(tampered))
                .encryptionContext(context)));
        assertEquals("InvalidCiphertextException", bad.awsErrorDetails().errorCode());
        assertInstanceOf(software.amazon.awssdk.services.kms.model.InvalidCiphertextException.class, bad);
        KmsException noContext = assertThrowsKms(() -> client.decrypt(r -> r.ciphertextBlob(SdkBytes.fromByteArray(blob))));
        assertEquals("InvalidCiphertextException", noContext.awsErrorDetails().errorCode());
        assertInstanceOf(IncorrectKeyException.class, assertThrowsKms(() -> client.decrypt(r -> r.keyId(other)
                .ciphertextBlob(SdkBytes.fromByteArray(blob)).encryptionContext(context))));
        KmsException unknown = assertThrowsKms(() -> client.encrypt(r -> r.keyId("alias/nope")
                .plaintext(SdkBytes.fromUtf8String("x"))));
        assertInstanceOf(NotFoundException.class, unknown);
        assertNull(IamEnforcement.policies().orElse(null), "no IAM installed here: the server's own answers");
    }

    private static KmsException assertThrowsKms(Runnable call) {
        return org.junit.jupiter.api.Assertions.assertThrows(KmsException.class, call::run);
    }
}
