package dev.richter.links.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.richter.links.trace.Span;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectoryTraceSourceTest {
    static final ObjectMapper MAPPER = new ObjectMapper();
    /** shop-broken-async-marker.otlp.json: 14 spans starting 1796029011356 .. 1796029014597 ms. */
    static final long FIRST_MS = 1796029011356L;
    static final long LAST_MS = 1796029014597L;

    static byte[] resource(String name) throws IOException {
        try (InputStream in = DirectoryTraceSourceTest.class.getResourceAsStream("/source/" + name)) {
            return in.readAllBytes();
        }
    }

    /** The document as the agent logs it: one ResourceSpans per line after log text, a torn last line. */
    static String agentLog(byte[] otlp) throws IOException {
        StringBuilder b = new StringBuilder("[otel.javaagent 2026-11-30 09:00:00:000 +0000] [main] INFO io.opentelemetry.javaagent.tooling.VersionLogger - starting\n");
        for (JsonNode rs : MAPPER.readTree(otlp).path("resourceSpans")) {
            b.append("[otel.javaagent 2026-11-30 09:00:01:000 +0000] [BatchSpanProcessor_WorkerThread-1] INFO "
                    + "io.opentelemetry.exporter.logging.otlp.OtlpJsonLoggingSpanExporter - ").append(MAPPER.writeValueAsString(rs)).append('\n');
        }
        return b.append("inventory up on :18082\n[otel.javaagent ...] INFO ...OtlpJsonLoggingSpanExporter - {\"resource\":{\"attr").toString();
    }

    @Test
    void readsAgentLogLinesAndWholeOtlpDocumentsAndDeduplicates(@TempDir Path dir) throws IOException {
        byte[] otlp = resource("shop-broken-async-marker.otlp.json");
        Files.writeString(dir.resolve("inventory.log"), agentLog(otlp));
        Files.write(dir.resolve("copy.otlp.json"), otlp);
        Files.writeString(dir.resolve("order.pid"), "12345\n");
        List<Span> spans = new DirectoryTraceSource(dir).read("team", FIRST_MS, LAST_MS).spans();
        assertEquals(14, spans.size(), "the same 14 spans from both files, once each");
        assertTrue(spans.stream().anyMatch(s -> s.service().equals("payment")));
    }

    @Test
    void keepsOnlySpansStartingInTheWindowAndSkipsFilesNotWrittenSince(@TempDir Path dir) throws IOException {
        Path log = dir.resolve("all.log");
        Files.writeString(log, agentLog(resource("shop-broken-async-marker.otlp.json")));
        DirectoryTraceSource source = new DirectoryTraceSource(dir);
        List<Span> late = source.read("team", LAST_MS, LAST_MS + 10).spans();
        assertTrue(!late.isEmpty() && late.size() < 14, late.size() + " spans");
        assertTrue(late.stream().allMatch(s -> s.startEpochNanos() >= LAST_MS * 1_000_000L));
        Files.setLastModifiedTime(log, FileTime.fromMillis(LAST_MS - 60_000));
        assertEquals(List.of(), source.read("team", LAST_MS - 1_000, LAST_MS + 10).spans(), "modified before the window: not read");
    }

    @Test
    void aMissingDirectoryHoldsNoSpansYet(@TempDir Path dir) {
        assertEquals(List.of(), new DirectoryTraceSource(dir.resolve("not-yet")).read("team", 0, Long.MAX_VALUE / 2_000_000).spans());
    }

    @Test
    void specOpensADirectoryAndSaysWhichKindsAreNotImplemented(@TempDir Path dir) {
        assertTrue(new TraceSourceSpec("Directory", dir.toString(), "", "").open() instanceof DirectoryTraceSource);
        assertThrows(UnsupportedOperationException.class, () -> new TraceSourceSpec("s3", "", "b", "p/").open());
        assertThrows(IllegalArgumentException.class, () -> new TraceSourceSpec("directory", "", "", "").open());
        assertThrows(IllegalArgumentException.class, () -> new TraceSourceSpec("ftp", "x", "", "").open());
    }

    @Test
    void aWholeDocumentWithIdsNotValidForItsFormatIsListedWithItsPositionAndTheOtherFilesAreRead(@TempDir Path dir)
            throws IOException {
        byte[] bug22 = Files.readAllBytes(Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"), "bugs",
                "22-otlp-base64-ids.json"));
        Files.write(dir.resolve("22-otlp-base64-ids.json"), bug22);
        Files.writeString(dir.resolve("inventory.log"), agentLog(resource("shop-broken-async-marker.otlp.json")));
        DirectoryTraceSource source = new DirectoryTraceSource(dir);
        for (int call = 1; call <= 2; call++) {
            TraceRead read = source.read("team", FIRST_MS, LAST_MS);
            assertEquals(14, read.spans().size(), "call " + call + ": the log's spans are still read");
            assertEquals(1, read.unreadable().size(), read.unreadable().toString());
            String problem = read.unreadable().get(0);
            assertTrue(problem.startsWith("22-otlp-base64-ids.json:") && problem.contains(
                    "resourceSpans[0].scopeSpans[0].spans[0].traceId: expected 32 hex characters"), problem);
            assertTrue(problem.matches("22-otlp-base64-ids\\.json:\\d+:\\d+: .*"), "file:line:column: " + problem);
        }
    }
}
