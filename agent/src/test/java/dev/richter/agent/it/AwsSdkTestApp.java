package dev.richter.agent.it;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.context.Scope;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
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
 *
 * <p>{@code /aws?service=<service>&op=<op>&target=<target>&id=<id>[&mark=1]} makes one call of another service's
 * sync client (url-connection-client), each built when its endpoint property is set: {@code sqs} ({@code
 * -Dapp.sqs.endpoint}; {@code send} and {@code batch}, a {@code SendMessage} and a {@code SendMessageBatch} of one
 * message, to the queue named {@code target}, whose URL a {@code GetQueueUrl} answers), {@code s3} ({@code
 * -Dapp.s3.endpoint}, path-style, checksums only where S3 requires them; {@code target} {@code bucket/key}: {@code put}
 * {@code PutObject}, {@code get} {@code GetObject}, {@code delete} {@code DeleteObject}, {@code deletes} {@code
 * DeleteObjects} of that key, {@code copy} a {@code CopyObject} to {@code target} from {@code id} ({@code
 * bucket/key}), {@code multipart} {@code CreateMultipartUpload}, one {@code UploadPart}, {@code
 * CompleteMultipartUpload}), and, to {@code -Dapp.aws.recorder} ({@link AwsRecorder}), {@code sns} ({@code publish}
 * to the topic ARN {@code target}, {@code batch} a {@code PublishBatch} of one), {@code events} ({@code put}: {@code
 * PutEvents} of one entry on the bus {@code target}, on none when it is empty) and {@code kinesis} ({@code put} a
 * {@code PutRecord}, {@code batch} a {@code PutRecords} of one, to the stream named {@code target}; the client's CBOR
 * is off, {@code -Daws.cborEnabled=false}, so the recorder reads JSON).
 */
public final class AwsSdkTestApp {
    private AwsSdkTestApp() {}

    public static void main(String[] args) throws Exception {
        String dynamoEndpoint = System.getProperty("app.dynamodb.endpoint", "http://127.0.0.1:1");
        DynamoDbClient dynamo = AwsClients.local(DynamoDbClient.builder(), dynamoEndpoint).httpClient(AwsClients.http())
                .build();
        DynamoDbAsyncClient dynamoAsync = AwsClients.local(DynamoDbAsyncClient.builder(), dynamoEndpoint)
                .httpClient(NettyNioAsyncHttpClient.create()).build();
        OtherAwsServices others = new OtherAwsServices();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/aws", exchange -> {
            Map<String, String> q = query(exchange);
            CountingServer.answer(exchange, 200, answer(q, () -> others.call(q)));
        });
        server.createContext("/dynamodb", exchange -> {
            Map<String, String> q = query(exchange);
            CountingServer.answer(exchange, 200, answer(q, () -> {
                Map<String, AttributeValue> item = Map.of("id", AttributeValue.fromS(String.valueOf(q.get("id"))));
                return "1".equals(q.get("async")) ? switch (q.get("op")) {
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
                };
            }));
        });
        server.start();
        System.out.println("READY " + server.getAddress().getPort());
    }

    /** A call, answering what it answers as text. */
    interface Call {
        Object call() throws Exception;
    }

    /**
     * {@code ok=<what call answered>}, or {@code error=<exception class>: <message>} (an async client's failure's
     * cause); with {@code mark=1} in {@code q} the call runs in a context the app marks itself.
     */
    static String answer(Map<String, String> q, Call call) {
        Scope marked = null;
        try {
            if ("1".equals(q.get("mark"))) {
                marked = Baggage.current().toBuilder().put("richter-loadtest", "1").build().makeCurrent();
            }
            return "ok=" + call.call();
        } catch (Exception | LinkageError e) {
            Throwable t = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            if (e instanceof LinkageError) {
                e.printStackTrace();
            }
            return "error=" + t.getClass().getName() + ": " + t.getMessage();
        } finally {
            if (marked != null) {
                marked.close();
            }
        }
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
