package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class TraceChunksTest {
    /** The OTLP JSON files of the corpus, merged into one export (every resourceSpans of every file). */
    private static JsonNode corpusExport() throws Exception {
        Path dir = Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"), "traces");
        var doc = Json.MAPPER.createObjectNode();
        var all = doc.putArray("resourceSpans");
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".json")).toList()) {
                try {
                    JsonNode n = Json.MAPPER.readTree(f.toFile());
                    if (n.path("resourceSpans").isArray()) {
                        n.path("resourceSpans").forEach(all::add);
                    }
                } catch (Exception notJson) {
                    // other formats in the corpus
                }
            }
        }
        return doc;
    }

    private static Map<String, Integer> spansPerTrace(JsonNode export) {
        Map<String, Integer> out = new HashMap<>();
        export.path("resourceSpans").forEach(rs -> rs.path("scopeSpans").forEach(ss -> ss.path("spans")
                .forEach(span -> out.merge(span.path("traceId").asText(), 1, Integer::sum))));
        return out;
    }

    @Test
    void realOtlpSpansSplitIntoSmallDocumentsWithoutSplittingATrace() throws Exception {
        JsonNode export = corpusExport();
        Map<String, Integer> before = spansPerTrace(export);
        assertTrue(before.size() > 1, "the corpus holds OTLP traces: " + before.size());
        assertEquals(1, TraceChunks.split(export, Integer.MAX_VALUE).size(), "within the budget: one document");
        List<String> chunks = TraceChunks.split(export, 1);
        assertEquals(before.size(), chunks.size(), "a budget smaller than any trace: one document per trace");
        Map<String, Integer> after = new HashMap<>();
        Set<String> seen = new HashSet<>();
        for (String chunk : chunks) {
            Map<String, Integer> here = spansPerTrace(Json.MAPPER.readTree(chunk));
            for (String trace : here.keySet()) {
                assertTrue(seen.add(trace), "trace " + trace + " is in two documents");
            }
            here.forEach((k, v) -> after.merge(k, v, Integer::sum));
        }
        assertEquals(before, after, "every span once, each trace whole");
    }

    @Test
    void aDocumentWithoutResourceSpansIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> TraceChunks.split(Json.MAPPER.createObjectNode(), 100));
    }
}
