package dev.richter.links.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import dev.richter.links.trace.Span;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.xray.XRayClient;

/**
 * {@link XRayTraceSource} against a real HTTP server speaking the X-Ray REST-JSON API
 * ({@code POST /TraceSummaries}, {@code POST /Traces}), serving the corpus segment document
 * {@code traces/xray/ddbSample.json} for 7 trace ids over two summary pages (so batching by 5 and
 * pagination are both exercised).
 */
class XRayTraceSourceTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void readsSummariesPageByPageAndSegmentsInBatchesOfFive() throws Exception {
        Path corpus = Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"), "traces/xray/ddbSample.json");
        JsonNode segment = MAPPER.readTree(Files.readString(corpus));
        List<List<String>> batches = new CopyOnWriteArrayList<>();
        List<String> summaryBodies = new CopyOnWriteArrayList<>();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        server.createContext("/TraceSummaries", ex -> {
            try (ex) {
                JsonNode req = MAPPER.readTree(ex.getRequestBody());
                summaryBodies.add(req.toString());
                boolean second = req.hasNonNull("NextToken");
                ObjectNode resp = MAPPER.createObjectNode();
                ArrayNode sums = resp.putArray("TraceSummaries");
                for (int i = second ? 4 : 0; i < (second ? 7 : 4); i++) {
                    sums.addObject().put("Id", "1-5f000000-00000000000000000000000" + i);
                }
                if (!second) {
                    resp.put("NextToken", "page-2");
                }
                byte[] b = MAPPER.writeValueAsBytes(resp);
                ex.sendResponseHeaders(200, b.length);
                ex.getResponseBody().write(b);
            }
        });
        server.createContext("/Traces", ex -> {
            try (ex) {
                JsonNode req = MAPPER.readTree(ex.getRequestBody());
                List<String> ids = MAPPER.convertValue(req.get("TraceIds"), MAPPER.getTypeFactory().constructCollectionType(List.class, String.class));
                batches.add(ids);
                ObjectNode resp = MAPPER.createObjectNode();
                ArrayNode traces = resp.putArray("Traces");
                for (String id : ids) {
                    ObjectNode doc = segment.deepCopy();
                    doc.put("trace_id", id);
                    ObjectNode t = traces.addObject().put("Id", id);
                    t.putArray("Segments").addObject().put("Id", doc.path("id").asText()).put("Document", doc.toString());
                }
                resp.putArray("UnprocessedTraceIds");
                byte[] b = MAPPER.writeValueAsBytes(resp);
                ex.sendResponseHeaders(200, b.length);
                ex.getResponseBody().write(b);
            }
        });
        server.start();
        try (XRayClient xray = XRayClient.builder().region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("k", "s")))
                .endpointOverride(URI.create("http://127.0.0.1:" + server.getAddress().getPort())).build()) {
            List<Span> spans = new XRayTraceSource(xray).spans("team", 1_700_000_000_000L, 1_700_000_060_000L);

            assertEquals(2, summaryBodies.size(), "two summary pages");
            assertTrue(summaryBodies.get(0).contains("\"StartTime\":1.7E9") || summaryBodies.get(0).contains("\"StartTime\":1700000000"),
                    summaryBodies.get(0));
            assertEquals(List.of(5, 2), batches.stream().map(List::size).toList(), "BatchGetTraces takes at most 5 ids");
            long traces = spans.stream().map(Span::traceId).distinct().count();
            assertEquals(7, traces, "every trace's segment was parsed");
            int perTrace = (int) (spans.size() / traces);
            assertTrue(perTrace >= 1 && spans.size() == perTrace * 7, "the same segment document per trace: " + spans.size());
        } finally {
            server.stop(0);
        }
    }
}
