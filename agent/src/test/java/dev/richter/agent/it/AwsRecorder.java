package dev.richter.agent.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The receiving side of SNS, EventBridge and Kinesis for the tests, which have no local server from Maven Central or
 * Debian: a loopback HTTP server on an ephemeral port that the SDK's clients are given as their {@code
 * endpointOverride}. It reads each request as the service's protocol carries it (SDK 2.57.8) and counts what reached
 * which resource, then answers the smallest valid response:
 * <ul>
 *   <li>SNS (AWS query protocol, a form body): {@code Action=Publish} counts 1 for {@code sns:<TopicArn or
 *       TargetArn>}, {@code Action=PublishBatch} 1 per entry for {@code sns:<TopicArn>}; XML answers;</li>
 *   <li>EventBridge (AWS JSON 1.1, {@code X-Amz-Target: AWSEvents.PutEvents}): 1 per entry for {@code
 *       events:<EventBusName>}, {@code events:default} for an entry naming none;</li>
 *   <li>Kinesis (AWS JSON 1.1 with the client's CBOR off, {@code Kinesis_20131202.PutRecord(s)}): 1 per record for
 *       {@code kinesis:<StreamName or StreamARN>}.</li>
 * </ul>
 * Anything else is answered 400 and counted as {@code unknown:<target>}.
 */
final class AwsRecorder implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

    AwsRecorder() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** What reached {@code resource} ({@code sns:<arn>}, {@code events:<bus>}, {@code kinesis:<stream>}). */
    long count(String resource) {
        AtomicLong n = counts.get(resource);
        return n == null ? 0 : n.get();
    }

    private void count(String resource, long n) {
        counts.computeIfAbsent(resource, r -> new AtomicLong()).addAndGet(n);
    }

    private void handle(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String target = String.valueOf(exchange.getRequestHeaders().getFirst("X-Amz-Target"));
        if (target.equals("AWSEvents.PutEvents")) {
            ArrayNode entries = JSON.createArrayNode();
            for (JsonNode e : JSON.readTree(body).path("Entries")) {
                count("events:" + e.path("EventBusName").asText("default"), 1);
                entries.addObject().put("EventId", "e" + entries.size());
            }
            ObjectNode answer = JSON.createObjectNode().put("FailedEntryCount", 0);
            answer.set("Entries", entries);
            respond(exchange, 200, "application/x-amz-json-1.1", answer.toString());
        } else if (target.startsWith("Kinesis_20131202.PutRecord")) {
            JsonNode request = JSON.readTree(body);
            String stream = request.hasNonNull("StreamARN") ? request.get("StreamARN").asText()
                    : request.path("StreamName").asText();
            ObjectNode answer = JSON.createObjectNode();
            if (target.endsWith("PutRecords")) {
                ArrayNode records = answer.put("FailedRecordCount", 0).putArray("Records");
                for (int i = 0; i < request.path("Records").size(); i++) {
                    records.addObject().put("ShardId", "shardId-000000000000").put("SequenceNumber", "" + (i + 1));
                }
                count("kinesis:" + stream, records.size());
            } else {
                answer.put("ShardId", "shardId-000000000000").put("SequenceNumber", "1");
                count("kinesis:" + stream, 1);
            }
            respond(exchange, 200, "application/x-amz-json-1.1", answer.toString());
        } else if (body.contains("Action=Publish")) {
            Map<String, String> form = form(body);
            String topic = form.containsKey("TopicArn") ? form.get("TopicArn") : form.get("TargetArn");
            if ("PublishBatch".equals(form.get("Action"))) {
                List<String> ids = new ArrayList<>();
                for (int i = 1; form.containsKey("PublishBatchRequestEntries.member." + i + ".Id"); i++) {
                    ids.add(form.get("PublishBatchRequestEntries.member." + i + ".Id"));
                }
                count("sns:" + topic, ids.size());
                StringBuilder members = new StringBuilder();
                ids.forEach(id -> members.append("<member><Id>").append(id).append("</Id><MessageId>m-").append(id)
                        .append("</MessageId></member>"));
                respond(exchange, 200, "text/xml", "<PublishBatchResponse><PublishBatchResult><Successful>" + members
                        + "</Successful><Failed/></PublishBatchResult><ResponseMetadata><RequestId>r</RequestId>"
                        + "</ResponseMetadata></PublishBatchResponse>");
            } else {
                count("sns:" + topic, 1);
                respond(exchange, 200, "text/xml", "<PublishResponse><PublishResult><MessageId>m-1</MessageId>"
                        + "</PublishResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata>"
                        + "</PublishResponse>");
            }
        } else {
            count("unknown:" + target, 1);
            respond(exchange, 400, "text/plain", "not recorded: " + target + " " + body);
        }
    }

    private static Map<String, String> form(String body) {
        Map<String, String> out = new TreeMap<>();
        for (String pair : body.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    private static void respond(HttpExchange exchange, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
