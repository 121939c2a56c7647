package dev.richter.links.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The streaming OTLP reader and the tree reader agree span for span on the corpus OTLP traces, and error for error. */
class OtlpStreamParserTest {
    @ParameterizedTest
    @ValueSource(strings = {"traces/otlp/otlp-trace.json", "traces/jaeger/otlp2jaeger-in.json",
            "bugs/03-kafka-link-not-parent.otlp.json"})
    void streamEqualsTree(String file) throws Exception {
        Path root = Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"));
        String env = System.getenv("RICHTER_CORPUS");
        if (env != null && !env.isBlank()) {
            root = Path.of(env);
        }
        byte[] bytes = Files.readAllBytes(root.resolve(file));
        ParsedTraces streamed = TraceDocuments.parse(file, bytes);
        SpanCollector tree = new SpanCollector();
        OtlpParser.parseRequest(new ObjectMapper().readTree(bytes), tree, JsonPath.value(0));
        ParsedTraces viaTree = tree.result(file, TraceFormat.OTLP_JSON);
        assertEquals(viaTree.spans(), streamed.spans());
        assertEquals(viaTree.skippedByReason(), streamed.skippedByReason());
    }

    /**
     * Both readers reject the same invalid id with the same path, reason, line and column: bug 22
     * (base64 ids), and documents where the bad id is not the first id field of its span or sits
     * in a link, so the readers must meet ids in document order.
     */
    @ParameterizedTest
    @ValueSource(strings = {"bug22", "spanIdFirst", "link", "parentAllZeroIsRootButBadLengthIsNot"})
    void streamAndTreeRejectAlike(String name) throws Exception {
        byte[] bytes = switch (name) {
            case "bug22" -> corpus("bugs/22-otlp-base64-ids.json");
            case "spanIdFirst" -> """
                    {"resourceSpans":[{"scopeSpans":[{"spans":[
                      {"spanId":"b7ad6b716920333","traceId":"QUJD","name":"x"}]}]}]}""".getBytes(StandardCharsets.UTF_8);
            case "link" -> """
                    {"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c",
                      "spanId":"b7ad6b7169203331","links":[{"spanId":"00f067aa0ba902b7"},
                      {"traceId":"0af7651916cd43dd8448eb211c80319c0000","spanId":"00f067aa0ba902b7"}]}]}]}]}"""
                    .getBytes(StandardCharsets.UTF_8);
            default -> """
                    {"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c",
                      "spanId":"b7ad6b7169203331","parentSpanId":"0000000000000000"},
                      {"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"00f067aa0ba902b7","parentSpanId":"0"}]}]}]}"""
                    .getBytes(StandardCharsets.UTF_8);
        };
        TraceFormatException streamed = assertThrows(TraceFormatException.class,
                () -> TraceDocuments.parse(name, bytes, true));
        TraceFormatException viaTree = assertThrows(TraceFormatException.class,
                () -> TraceDocuments.parse(name, bytes, false));
        assertEquals(streamed.getMessage(), viaTree.getMessage());
        assertEquals(streamed.line(), viaTree.line());
        assertEquals(streamed.column(), viaTree.column());
        String expectedPath = switch (name) {
            case "bug22" -> "resourceSpans[0].scopeSpans[0].spans[0].traceId: ";
            case "spanIdFirst" -> "resourceSpans[0].scopeSpans[0].spans[0].spanId: ";
            case "link" -> "resourceSpans[0].scopeSpans[0].spans[0].links[1].traceId: ";
            default -> "resourceSpans[0].scopeSpans[0].spans[1].parentSpanId: ";
        };
        assertTrue(streamed.reason().startsWith(expectedPath), streamed.reason());
    }

    /** Bug 22's control (hex ids) reads the same through both readers. */
    @Test
    void bug22ControlStreamEqualsTree() throws Exception {
        byte[] bytes = new String(corpus("bugs/22-otlp-base64-ids.json"), StandardCharsets.UTF_8)
                .replace("YzRlMWEwN2I5M2QyNWY2OGUwYjdhNGM5MWQzZjJlODU=", "c4e1a07b93d25f68e0b7a4c91d3f2e85")
                .replace("N2QyZTlhNGIxYzZmMGUzOA==", "7d2e9a4b1c6f0e38")
                .replace("MTliNWMwZDRlNmEyN2YzMQ==", "19b5c0d4e6a27f31").getBytes(StandardCharsets.UTF_8);
        ParsedTraces streamed = TraceDocuments.parse("c", bytes, true);
        ParsedTraces viaTree = TraceDocuments.parse("c", bytes, false);
        assertEquals(2, streamed.spans().size());
        assertEquals(viaTree.spans(), streamed.spans());
    }

    private static byte[] corpus(String file) throws java.io.IOException {
        Path root = Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"));
        return Files.readAllBytes(root.resolve(file));
    }
}
