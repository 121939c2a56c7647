package dev.richter.links.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The streaming OTLP reader and the tree reader agree span for span on the corpus OTLP traces. */
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
        OtlpParser.parseRequest(new ObjectMapper().readTree(bytes), tree);
        ParsedTraces viaTree = tree.result(file, TraceFormat.OTLP_JSON);
        assertEquals(viaTree.spans(), streamed.spans());
        assertEquals(viaTree.skippedByReason(), streamed.skippedByReason());
    }
}
