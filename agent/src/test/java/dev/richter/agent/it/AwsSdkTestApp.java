package dev.richter.agent.it;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.context.Scope;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * A service with no Richter code that writes to DynamoDB with the AWS SDK for Java v2 (its sync client over {@code
 * url-connection-client}; its async client over netty-nio-client), for {@link AwsSdkIsolationIT}: a JDK {@code
 * HttpServer} on an ephemeral port (prints {@code READY <port>}) answering {@code
 * /dynamodb?op=put|batch|get|list&table=<table>&id=<id>[&mark=1][&async=1]} through one {@code DynamoDbClient} (with
 * {@code async=1}: one {@code DynamoDbAsyncClient}, {@code put} and {@code get} only) to {@code -Dapp.dynamodb.endpoint}: {@code put} a {@code PutItem}, {@code batch} a {@code
 * BatchWriteItem} of one item, {@code get} a {@code GetItem} ({@code found=true|false}), {@code list} {@code
 * ListTables}; answers {@code ok=...} or {@code error=<exception class>: <message>}. With {@code mark=1} the call is
 * made in a context the app marks itself through the OpenTelemetry API (baggage {@code richter-loadtest=1}), as a job
 * of the service with no marked inbound request would: the inbound gate then has nothing to answer 503.
 */
public final class AwsSdkTestApp {
    private AwsSdkTestApp() {}

    public static void main(String[] args) throws Exception {
        DynamoDbClient dynamo = DynamoDbClient.builder()
                .endpointOverride(URI.create(System.getProperty("app.dynamodb.endpoint")))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(UrlConnectionHttpClient.create())
                .build();
        DynamoDbAsyncClient dynamoAsync = DynamoDbAsyncClient.builder()
                .endpointOverride(URI.create(System.getProperty("app.dynamodb.endpoint")))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(NettyNioAsyncHttpClient.create())
                .build();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/dynamodb", exchange -> {
            Map<String, String> q = query(exchange);
            String answer;
            Scope marked = null;
            try {
                if ("1".equals(q.get("mark"))) {
                    marked = Baggage.current().toBuilder().put("richter-loadtest", "1").build().makeCurrent();
                }
                Map<String, AttributeValue> item = Map.of("id", AttributeValue.fromS(String.valueOf(q.get("id"))));
                answer = "ok=" + ("1".equals(q.get("async")) ? switch (q.get("op")) {
                    case "put" -> dynamoAsync.putItem(r -> r.tableName(q.get("table")).item(item))
                            .get(30, TimeUnit.SECONDS).sdkHttpResponse().statusCode();
                    case "get" -> "found=" + dynamoAsync.getItem(r -> r.tableName(q.get("table")).key(item))
                            .get(30, TimeUnit.SECONDS).hasItem();
                    default -> "unknown op";
                } : switch (q.get("op")) {
                    case "put" -> dynamo.putItem(r -> r.tableName(q.get("table")).item(item)).sdkHttpResponse()
                            .statusCode();
                    case "batch" -> dynamo.batchWriteItem(r -> r.requestItems(Map.of(q.get("table"), List.of(
                            WriteRequest.builder().putRequest(PutRequest.builder().item(item).build()).build()))))
                            .unprocessedItems().size();
                    case "get" -> "found=" + dynamo.getItem(r -> r.tableName(q.get("table")).key(item)).hasItem();
                    case "list" -> dynamo.listTables().tableNames().size();
                    default -> "unknown op";
                });
            } catch (Exception | LinkageError e) {
                Throwable t = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
                answer = "error=" + t.getClass().getName() + ": " + t.getMessage();
                if (e instanceof LinkageError) {
                    e.printStackTrace();
                }
            } finally {
                if (marked != null) {
                    marked.close();
                }
            }
            CountingServer.answer(exchange, 200, answer);
        });
        server.start();
        System.out.println("READY " + server.getAddress().getPort());
    }

    /** The request's query parameters, decoded (as {@code StorageTestApp}'s, whose class needs its stores' jars). */
    static Map<String, String> query(HttpExchange exchange) {
        Map<String, String> out = new HashMap<>();
        String raw = exchange.getRequestURI().getRawQuery();
        for (String pair : raw == null ? new String[0] : raw.split("&")) {
            int eq = pair.indexOf('=');
            out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                    URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }
}
