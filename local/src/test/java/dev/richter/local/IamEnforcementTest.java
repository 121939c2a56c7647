package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.eventbridge.model.EventBridgeException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.SfnException;

/**
 * The functions' SDK clients under the template's policies, through the global interceptor: a denied call fails with
 * the service's own exception, AWS's code, status and message, before anything is sent (the endpoint here accepts no
 * connection, so an allowed call fails to connect instead); calls are recorded.
 */
class IamEnforcementTest {
    static final URI NOWHERE = URI.create("http://127.0.0.1:9");   // discard port: nothing listens
    static final String ACCT = SamTemplate.ACCOUNT;

    @AfterEach
    void uninstall() {
        IamEnforcement.uninstall();
    }

    static void install(Path recording, boolean enforce) throws Exception {
        IamEnforcement.install(IamPolicies.of(SamTemplate.load(LocalAwsStack.rootFromEnv(), LocalAwsStack.LOCAL_PARAMETER_DEFAULTS)),
                enforce, recording, line -> { });
    }

    static <B extends software.amazon.awssdk.awscore.client.builder.AwsClientBuilder<B, C>, C> C client(B builder) {
        return builder.region(Region.US_EAST_1).endpointOverride(NOWHERE)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local"))).build();
    }

    /** Runs {@code call} on a fresh thread marked as {@code function}, as the Lambda host runs a handler. */
    static Throwable runAs(String function, Runnable call) throws Exception {
        var done = new CompletableFuture<Throwable>();
        Thread.ofPlatform().start(() -> {
            IamEnforcement.enter(function);
            try {
                call.run();
                done.complete(null);
            } catch (Throwable t) {
                done.complete(t);
            }
        });
        return done.get();
    }

    @Test
    void aDeniedDynamoDbCallFailsAsDynamoDbAnswersAndAnAllowedOneIsSent(@TempDir Path dir) throws Exception {
        install(dir.resolve("calls.jsonl"), true);
        try (DynamoDbClient ddb = client(DynamoDbClient.builder().httpClientBuilder(UrlConnectionHttpClient.builder()))) {
            Throwable denied = runAs("ReleaseLeasesFunction", () -> ddb.query(q -> q.tableName("richter-plans").indexName("byTeam")));
            DynamoDbException e = (DynamoDbException) denied;
            assertEquals("AccessDeniedException", e.awsErrorDetails().errorCode());
            assertEquals(400, e.statusCode());
            assertEquals("User: arn:aws:sts::" + ACCT + ":assumed-role/richter-ReleaseLeasesFunctionRole/ReleaseLeasesFunction is not authorized to"
                    + " perform: dynamodb:Query on resource: arn:aws:dynamodb:us-east-1:" + ACCT + ":table/richter-plans/index/byTeam"
                    + " because no identity-based policy allows the dynamodb:Query action", e.awsErrorDetails().errorMessage());
            Throwable allowed = runAs("ReleaseLeasesFunction", () -> ddb.getItem(g -> g.tableName("richter-runs").key(java.util.Map.of())));
            assertTrue(allowed instanceof SdkClientException, "allowed: sent, and nothing listens: " + allowed);
        }
        List<JsonNode> lines = Files.readAllLines(dir.resolve("calls.jsonl")).stream().map(l -> Json.read(l, JsonNode.class)).toList();
        assertEquals(2, lines.size(), lines.toString());
        assertEquals("dynamodb:Query", lines.get(0).path("action").asText());
        assertEquals("IMPLICIT_DENY", lines.get(0).path("decision").asText());
        assertEquals("arn:aws:dynamodb:us-east-1:" + ACCT + ":table/richter-runs", lines.get(1).path("resource").asText());
        assertEquals("ALLOWED", lines.get(1).path("decision").asText());
    }

    @Test
    void stepFunctionsEventBridgeAndS3DenialsUseTheirServicesExceptions(@TempDir Path dir) throws Exception {
        install(null, true);
        try (SfnClient sfn = client(SfnClient.builder().httpClientBuilder(UrlConnectionHttpClient.builder()));
             EventBridgeClient events = client(EventBridgeClient.builder().httpClientBuilder(UrlConnectionHttpClient.builder()));
             S3Client s3 = client(S3Client.builder().httpClientBuilder(UrlConnectionHttpClient.builder()))) {
            String execution = "arn:aws:states:us-east-1:" + ACCT + ":execution:richter-dev-load-test-run:run-1";
            SfnException stop = (SfnException) runAs("PlanApiFunction", () -> sfn.stopExecution(r -> r.executionArn(execution)));
            assertEquals("AccessDeniedException", stop.awsErrorDetails().errorCode());
            assertTrue(stop.getMessage().contains("is not authorized to perform: states:StopExecution on resource: " + execution
                    + " because no identity-based policy allows the states:StopExecution action"), stop.getMessage());
            assertTrue(runAs("PlanApiFunction", () -> sfn.describeExecution(r -> r.executionArn(execution))) instanceof SdkClientException,
                    "the plan API's DescribeExecution statement allows it");

            EventBridgeException put = (EventBridgeException) runAs("ReleaseLeasesFunction", () -> events.putEvents(p -> p.entries(
                    e -> e.eventBusName("richter-dev").source("richter").detailType("T").detail("{}"))));
            assertEquals("AccessDeniedException", put.awsErrorDetails().errorCode());
            assertTrue(put.getMessage().contains("events:PutEvents on resource: arn:aws:events:us-east-1:" + ACCT + ":event-bus/richter-dev"),
                    put.getMessage());

            S3Exception write = (S3Exception) runAs("PlanApiFunction", () -> s3.putObject(p -> p.bucket("richter-reports-bucket")
                    .key("reports/r1/report.json"), software.amazon.awssdk.core.sync.RequestBody.fromString("{}")));
            assertEquals("AccessDenied", write.awsErrorDetails().errorCode());
            assertEquals(403, write.statusCode());
            assertTrue(write.awsErrorDetails().errorMessage().contains(
                    "s3:PutObject on resource: \"arn:aws:s3:::richter-reports-bucket/reports/r1/report.json\" because"), write.getMessage());
        }
    }

    @Test
    void threadsAFunctionStartsCarryItsRoleAndUnmarkedThreadsAreNotChecked(@TempDir Path dir) throws Exception {
        install(null, true);
        try (DynamoDbClient ddb = client(DynamoDbClient.builder().httpClientBuilder(UrlConnectionHttpClient.builder()))) {
            Throwable inWorker = runAs("ReleaseLeasesFunction", () -> {
                try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
                    pool.submit(() -> ddb.putItem(p -> p.tableName("richter-runs").item(java.util.Map.of()))).get();
                } catch (InterruptedException | ExecutionException e) {
                    throw new RuntimeException(e.getCause());
                }
            });
            assertTrue(inWorker.getCause() instanceof DynamoDbException, String.valueOf(inWorker));
            // the stack's own and a test's calls are no function's: sent as they are
            assertThrows(SdkClientException.class, () -> ddb.putItem(p -> p.tableName("richter-runs").item(java.util.Map.of())));
        }
    }

    @Test
    void withIamOffEveryCallIsSentAndStillRecorded(@TempDir Path dir) throws Exception {
        install(dir.resolve("calls.jsonl"), false);
        try (DynamoDbClient ddb = client(DynamoDbClient.builder().httpClientBuilder(UrlConnectionHttpClient.builder()))) {
            assertTrue(runAs("ReleaseLeasesFunction", () -> ddb.query(q -> q.tableName("richter-plans"))) instanceof SdkClientException);
        }
        assertTrue(Files.readString(dir.resolve("calls.jsonl")).contains("\"decision\":\"IMPLICIT_DENY\""));
    }

    @Test
    void iamIsOnUnlessSwitchedOffAndAnyOtherValueIsAnError() {
        String previous = System.getProperty(LocalAwsStack.IAM_ENV_VAR);
        try {
            System.clearProperty(LocalAwsStack.IAM_ENV_VAR);
            assertTrue(LocalAwsStack.iamFromEnv(), "on by default, as on AWS");
            System.setProperty(LocalAwsStack.IAM_ENV_VAR, "off");
            assertEquals(false, LocalAwsStack.iamFromEnv());
            System.setProperty(LocalAwsStack.IAM_ENV_VAR, "no");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, LocalAwsStack::iamFromEnv);
            assertEquals("RICHTER_LOCAL_IAM: must be on or off, was 'no'", e.getMessage());
        } finally {
            if (previous == null) {
                System.clearProperty(LocalAwsStack.IAM_ENV_VAR);
            } else {
                System.setProperty(LocalAwsStack.IAM_ENV_VAR, previous);
            }
        }
    }

    /** A request of a client this classpath lacks (EventBridge Scheduler): its fields by member name. */
    static final class FakeRequest extends software.amazon.awssdk.core.SdkRequest {
        private final java.util.Map<String, Object> fields;

        FakeRequest(java.util.Map<String, Object> fields) {
            this.fields = fields;
        }

        @Override
        public java.util.Optional<? extends software.amazon.awssdk.core.RequestOverrideConfiguration> overrideConfiguration() {
            return java.util.Optional.empty();
        }

        @Override
        public Builder toBuilder() {
            throw new UnsupportedOperationException();
        }

        @Override
        public java.util.List<software.amazon.awssdk.core.SdkField<?>> sdkFields() {
            return java.util.List.of();
        }

        @Override
        public <T> java.util.Optional<T> getValueForField(String name, Class<T> type) {
            return java.util.Optional.ofNullable(fields.get(name)).map(type::cast);
        }
    }

    @Test
    void aScheduleIsAuthorizedOnItsArnAndItsTargetRoleIsPassed() {
        var create = new FakeRequest(java.util.Map.of("Name", "run-1", "GroupName", "richter",
                "Target", software.amazon.awssdk.services.eventbridge.model.Target.builder()
                        .roleArn("arn:aws:iam::" + ACCT + ":role/richter-SchedulerRole").build()));
        assertEquals(List.of("arn:aws:scheduler:us-east-1:" + ACCT + ":schedule/richter/run-1"),
                IamEnforcement.resources("Scheduler", "CreateSchedule", create));
        assertEquals("scheduler:CreateSchedule", IamEnforcement.action("Scheduler", "CreateSchedule"));
        assertEquals(java.util.Optional.of("arn:aws:iam::" + ACCT + ":role/richter-SchedulerRole"),
                IamEnforcement.passedRole("Scheduler", create));
        var delete = new FakeRequest(java.util.Map.of("Name", "run-1"));
        assertEquals(List.of("arn:aws:scheduler:us-east-1:" + ACCT + ":schedule/default/run-1"),
                IamEnforcement.resources("Scheduler", "DeleteSchedule", delete), "no group: the default group");
        assertEquals(java.util.Optional.empty(), IamEnforcement.passedRole("Scheduler", delete));
    }
}
