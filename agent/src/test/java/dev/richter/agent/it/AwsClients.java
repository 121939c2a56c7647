package dev.richter.agent.it;

import java.net.URI;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;

/**
 * How the tests' AWS SDK v2 clients reach a local server: region {@code us-east-1}, fixed credentials {@code
 * local}/{@code local}, the endpoint given, url-connection-client (the test apps' and the counting side's alike).
 */
final class AwsClients {
    static final Region REGION = Region.US_EAST_1;
    static final StaticCredentialsProvider CREDENTIALS = StaticCredentialsProvider.create(
            AwsBasicCredentials.create("local", "local"));

    private AwsClients() {}

    static SdkHttpClient http() {
        return UrlConnectionHttpClient.create();
    }

    /** {@code builder} pointed at {@code endpoint} with the region and credentials above (its HTTP client is left). */
    static <B extends AwsClientBuilder<B, ?>> B local(B builder, String endpoint) {
        return builder.endpointOverride(URI.create(endpoint)).region(REGION).credentialsProvider(CREDENTIALS);
    }
}
