package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.retry.RetryUtils;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.InternalServerErrorException;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * dynalite.cjs's DynamoDB faults, armed at run time through {@link FaultInjector} at its control endpoint, as the AWS
 * SDK for Java v2 sees them: a {@code throttle} is a {@link ProvisionedThroughputExceededException} the SDK classifies as
 * throttling, an {@code internal} a 500 {@link DynamoDbException} it retries; other tables and operations pass.
 */
class DynaliteFaultsTest {
    static final Map<String, String> TABLES = Map.of("RunsTable", "richter-runs", "RunMetricsTable", "richter-run-metrics");
    static Path dir;
    static Process dynalite;
    static URI endpoint;
    static final List<String> log = new CopyOnWriteArrayList<>();
    FaultInjector faults;

    @BeforeAll
    static void startDynalite() throws Exception {
        dir = Files.createTempDirectory("richter-dynalite-faults");
        Path node = LocalAwsStack.rootFromEnv().resolve("local/node");
        dynalite = new ProcessBuilder("node", "--require", "./polyfill.cjs", "dynalite.cjs", "--port", "0",
                "--faults-log", dir.resolve("faults.jsonl").toString())
                .directory(node.toFile()).redirectError(dir.resolve("dynalite.log").toFile()).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(dynalite.getInputStream(), StandardCharsets.UTF_8));
        String ready = out.readLine();
        assertTrue(ready != null && ready.startsWith("READY dynamodb "), ready + "; " + Files.readString(dir.resolve("dynalite.log")));
        endpoint = URI.create("http://127.0.0.1:" + ready.substring("READY dynamodb ".length()).trim());
        try (DynamoDbClient ddb = client(AwsRetryStrategy.doNotRetry())) {
            for (String t : TABLES.values()) {
                ddb.createTable(b -> b.tableName(t).billingMode(BillingMode.PAY_PER_REQUEST)
                        .attributeDefinitions(a -> a.attributeName("pk").attributeType(ScalarAttributeType.S))
                        .keySchema(k -> k.attributeName("pk").keyType(KeyType.HASH)));
            }
        }
    }

    @AfterAll
    static void stopDynalite() throws Exception {
        if (dynalite != null) {
            dynalite.destroy();
            dynalite.waitFor();
        }
    }

    @BeforeEach
    void setUp() {
        faults = new FaultInjector(LocalFaults.NONE, dir.resolve("faults.jsonl"), log::add);
        faults.targets(java.util.Set.of(), TABLES);
        faults.attachDynamoDb(endpoint);
    }

    static DynamoDbClient client(RetryStrategy retries) {
        return DynamoDbClient.builder().region(Region.US_EAST_1).endpointOverride(endpoint)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .overrideConfiguration(c -> c.retryStrategy(retries)).build();
    }

    static void put(DynamoDbClient ddb, String table, String pk) {
        ddb.putItem(b -> b.tableName(table).item(Map.of("pk", AttributeValue.fromS(pk))));
    }

    static Map<String, AttributeValue> get(DynamoDbClient ddb, String table, String pk) {
        return ddb.getItem(b -> b.tableName(table).key(Map.of("pk", AttributeValue.fromS(pk)))).item();
    }

    @Test
    void throttleAndInternalAreTheErrorsTheSdkKnowsAndOtherTablesAndOperationsPass() throws Exception {
        faults.set(LocalFaults.parse("dynamodb.RunMetricsTable.PutItem=throttle,dynamodb.richter-runs.GetItem=internal"));
        try (DynamoDbClient ddb = client(AwsRetryStrategy.doNotRetry())) {
            ProvisionedThroughputExceededException throttled = assertThrows(ProvisionedThroughputExceededException.class,
                    () -> put(ddb, "richter-run-metrics", "a"));
            assertEquals(400, throttled.statusCode());
            assertTrue(throttled.isThrottlingException() && RetryUtils.isThrottlingException(throttled), "the SDK sees throttling");
            assertEquals("The level of configured provisioned throughput for the table was exceeded. Consider increasing your"
                    + " provisioning level with the UpdateTable API.", throttled.awsErrorDetails().errorMessage());

            put(ddb, "richter-runs", "a");   // another table
            DynamoDbException internal = assertThrows(DynamoDbException.class, () -> get(ddb, "richter-runs", "a"));
            assertTrue(internal instanceof InternalServerErrorException, internal.getClass().getName());
            assertEquals(500, internal.statusCode());
            assertEquals("InternalServerError", internal.awsErrorDetails().errorCode());
            assertFalse(internal.isThrottlingException());
            assertEquals(Map.of(), get(ddb, "richter-run-metrics", "a"), "another operation on the throttled table");
        }
        assertEquals(Map.of("dynamodb.RunMetricsTable.PutItem", 1L, "dynamodb.richter-runs.GetItem", 1L), faults.fired());
        List<JsonNode> lines = new ArrayList<>();
        for (String l : Files.readAllLines(dir.resolve("faults.jsonl"))) {
            lines.add(Json.MAPPER.readTree(l));
        }
        JsonNode first = lines.get(lines.size() - 2);
        assertEquals(List.of("dynamodb", "richter-run-metrics", "PutItem", "throttle", "1", "dynamodb.RunMetricsTable.PutItem"),
                List.of(first.path("component").asText(), first.path("target").asText(), first.path("operation").asText(),
                        first.path("kind").asText(), first.path("n").asText(), first.path("rule").asText()));
        assertTrue(Files.readString(dir.resolve("dynalite.log")).contains("dynalite: FAULT injected: dynamodb richter-runs GetItem internal"));
    }

    @Test
    void theSdksDefaultRetriesRideOutOneThrottleAndOneInternalError() {
        faults.set(LocalFaults.parse("dynamodb.*.PutItem=throttle@nth:1,dynamodb.RunsTable.GetItem=internal@nth:1"));
        try (DynamoDbClient ddb = client(AwsRetryStrategy.standardRetryStrategy())) {
            put(ddb, "richter-runs", "retried");
            assertEquals("retried", get(ddb, "richter-runs", "retried").get("pk").s(), "retried past the 500");
        }
        assertEquals(Map.of("dynamodb.*.PutItem", 1L, "dynamodb.RunsTable.GetItem", 1L), faults.fired());
    }

    @Test
    void faultsChangeAtRunTimeAndTheSeededProbabilityMatchesLocalFaults() {
        try (DynamoDbClient ddb = client(AwsRetryStrategy.doNotRetry())) {
            put(ddb, "richter-runs", "free");
            faults.set(LocalFaults.parse("seed=7,dynamodb.richter-runs.PutItem=throttle@p:0.5"));
            List<Boolean> expected = new ArrayList<>();
            List<Boolean> actual = new ArrayList<>();
            for (int k = 1; k <= 16; k++) {
                expected.add(LocalFaults.unit(7, "dynamodb.richter-runs.PutItem", k) < 0.5);
                try {
                    put(ddb, "richter-runs", "p" + k);
                    actual.add(false);
                } catch (ProvisionedThroughputExceededException e) {
                    actual.add(true);
                }
            }
            assertEquals(expected, actual, "dynalite draws the numbers Java does");
            assertEquals(expected.stream().filter(b -> b).count(), faults.fired().get("dynamodb.richter-runs.PutItem"));
            faults.clear();
            put(ddb, "richter-runs", "cleared");
            assertEquals(Map.of(), faults.fired());
        }
    }

    @Test
    void aTableTheTemplateLacksIsRefusedBeforeDynaliteGetsIt() {
        var e = assertThrows(IllegalArgumentException.class, () -> faults.set(LocalFaults.parse("dynamodb.RunTable.PutItem=throttle")));
        assertTrue(e.getMessage().contains("'dynamodb.RunTable.PutItem' names no table"), e.getMessage());
    }
}
