package dev.richter.common;

import java.time.Duration;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * AWS SDK v2 clients built once per container with the light URL-connection HTTP client, set on every builder
 * ({@code httpClientBuilder}) so the SDK's classpath discovery never picks another; the Lambda jars carry no other
 * (the root pom excludes the SDK's Apache and Netty clients). EventBridge's client is {@link EventPublisher}'s.
 *
 * <p>Endpoints are not set here: the SDK itself honours {@code AWS_ENDPOINT_URL} and
 * {@code AWS_ENDPOINT_URL_<SERVICE>} (e.g. {@code AWS_ENDPOINT_URL_DYNAMODB}), so the same
 * code reaches AWS, LocalStack or Richter's local stack. Region comes from {@code AWS_REGION}
 * (default {@code us-east-1}).
 */
public final class AwsClients {
    private static volatile DynamoDbClient dynamoDb;
    private static volatile DynamoDbClient dynamoDbForPolls;

    /** Deadline of one abort-flag poll, all attempts included, milliseconds: shorter than the 500 ms poll period. */
    public static final long POLL_CALL_TIMEOUT_MS = 400;

    private AwsClients() {}

    /** The AWS region from {@code AWS_REGION}, {@code us-east-1} when unset. */
    public static Region region() {
        String r = System.getenv("AWS_REGION");
        return Region.of(r == null || r.isBlank() ? "us-east-1" : r);
    }

    /** The container's shared DynamoDB client. */
    public static DynamoDbClient dynamoDb() {
        if (dynamoDb == null) {
            synchronized (AwsClients.class) {
                if (dynamoDb == null) {
                    dynamoDb = DynamoDbClient.builder()
                            .region(region())
                            .httpClientBuilder(UrlConnectionHttpClient.builder())
                            .build();
                }
            }
        }
        return dynamoDb;
    }

    /**
     * The container's DynamoDB client for the load driver's abort-flag polls: each call ends within
     * {@value #POLL_CALL_TIMEOUT_MS} ms (two attempts of at most 180 ms), so a throttled or hanging table makes the
     * poll fail at once instead of blocking in the SDK's backoff, and the worker's fail-safe
     * ({@code MonitorHeartbeat.UNREADABLE_AFTER_MS}) can count the time the flag was unreadable.
     */
    public static DynamoDbClient dynamoDbForPolls() {
        if (dynamoDbForPolls == null) {
            synchronized (AwsClients.class) {
                if (dynamoDbForPolls == null) {
                    dynamoDbForPolls = DynamoDbClient.builder()
                            .region(region())
                            .httpClientBuilder(UrlConnectionHttpClient.builder())
                            .overrideConfiguration(c -> c
                                    .apiCallTimeout(Duration.ofMillis(POLL_CALL_TIMEOUT_MS))
                                    .apiCallAttemptTimeout(Duration.ofMillis(180))
                                    .retryStrategy(b -> b.maxAttempts(2)))
                            .build();
                }
            }
        }
        return dynamoDbForPolls;
    }
}
