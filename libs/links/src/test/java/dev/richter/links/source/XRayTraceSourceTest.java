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
    /** Served with a segment whose id X-Ray does not allow (16 hex digits). */
    private static final String BAD = "1-5f000000-0000000000000000000000bd";
    /** Left in {@code UnprocessedTraceIds}. */
    private static final String UNPROCESSED = "1-5f000000-0000000000000000000000ee";

    @Test
    void readsSummariesPageByPageAndSegmentsInBatchesOfFive() throws Exception {
        readThrough(List.of(), read -> {
            assertEquals(List.of(), read.unreadable());
            List<Span> spans = read.spans();
            long traces = spans.stream().map(Span::traceId).distinct().count();
            assertEquals(7, traces, "every trace's segment was parsed");
            int perTrace = (int) (spans.size() / traces);
            assertTrue(perTrace >= 1 && spans.size() == perTrace * 7, "the same segment document per trace: " + spans.size());
        });
    }

    @Test
    void aTraceThatCannotBeReadOrWasLeftUnprocessedIsListedAndTheOtherTracesAreRead() throws Exception {
        readThrough(List.of(BAD, UNPROCESSED), read -> {
            long traces = read.spans().stream().map(Span::traceId).distinct().count();
            assertEquals(7, traces, "the 7 good traces are read: " + read.spans().size() + " spans");
            assertEquals(2, read.unreadable().size(), read.unreadable().toString());
            assertTrue(read.unreadable().get(0).startsWith("trace " + BAD + ": ") && read.unreadable().get(0).contains("id"),
                    read.unreadable().get(0));
            assertEquals("trace " + UNPROCESSED + ": BatchGetTraces left it unprocessed", read.unreadable().get(1));
        });
    }

    /** Serves 7 good trace ids, then {@code extra}, over two summary pages, and reads them all through the source. */
    private static void readThrough(List<String> extra, java.util.function.Consumer<TraceRead> check) throws Exception {
        List<String> summaryIds = new java.util.ArrayList<>();
        for (int i = 0; i < 7; i++) {
            summaryIds.add("1-5f000000-00000000000000000000000" + i);
        }
        summaryIds.addAll(extra);
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
                for (String id : second ? summaryIds.subList(4, summaryIds.size()) : summaryIds.subList(0, 4)) {
                    sums.addObject().put("Id", id);
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
                    if (id.equals(UNPROCESSED)) {
                        continue;
                    }
                    ObjectNode doc = segment.deepCopy();
                    doc.put("trace_id", id);
                    if (id.equals(BAD)) {
                        doc.put("id", "not-a-segment-id");
                    }
                    ObjectNode t = traces.addObject().put("Id", id);
                    t.putArray("Segments").addObject().put("Id", doc.path("id").asText()).put("Document", doc.toString());
                }
                ArrayNode unprocessed = resp.putArray("UnprocessedTraceIds");
                if (ids.contains(UNPROCESSED)) {
                    unprocessed.add(UNPROCESSED);
                }
                byte[] b = MAPPER.writeValueAsBytes(resp);
                ex.sendResponseHeaders(200, b.length);
                ex.getResponseBody().write(b);
            }
        });
        server.start();
        try (XRayClient xray = XRayClient.builder().region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("k", "s")))
                .endpointOverride(URI.create("http://127.0.0.1:" + server.getAddress().getPort())).build()) {
            TraceRead read = new XRayTraceSource(xray).read("team", 1_700_000_000_000L, 1_700_000_060_000L);

            assertEquals(2, summaryBodies.size(), "two summary pages");
            assertTrue(summaryBodies.get(0).contains("\"StartTime\":1.7E9") || summaryBodies.get(0).contains("\"StartTime\":1700000000"),
                    summaryBodies.get(0));
            List<Integer> sizes = new java.util.ArrayList<>();
            for (int left = summaryIds.size(); left > 0; left -= 5) {
                sizes.add(Math.min(5, left));
            }
            assertEquals(sizes, batches.stream().map(List::size).toList(), "BatchGetTraces takes at most 5 ids");
            check.accept(read);
        } finally {
            server.stop(0);
        }
    }
}
