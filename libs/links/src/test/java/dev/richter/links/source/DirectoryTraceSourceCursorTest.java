package dev.richter.links.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.links.trace.Span;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DirectoryTraceSource} reads only what it has not read: the agent's {@code logging-otlp} lines of
 * {@code source/shop-broken-async-marker.otlp.json} (14 spans), appended, torn and rewritten between two calls.
 */
class DirectoryTraceSourceCursorTest {
    private static final long ALL_FROM = DirectoryTraceSourceTest.FIRST_MS;
    private static final long ALL_TO = DirectoryTraceSourceTest.LAST_MS;

    /** One agent export line per ResourceSpans of the fixture, each ending in a newline. */
    private static List<String> exportLines() throws IOException {
        List<String> lines = new ArrayList<>();
        for (JsonNode rs : DirectoryTraceSourceTest.MAPPER.readTree(
                DirectoryTraceSourceTest.resource("shop-broken-async-marker.otlp.json")).path("resourceSpans")) {
            lines.add("[otel.javaagent 2026-11-30 09:00:01:000 +0000] [BatchSpanProcessor_WorkerThread-1] INFO "
                    + "io.opentelemetry.exporter.logging.otlp.OtlpJsonLoggingSpanExporter - "
                    + DirectoryTraceSourceTest.MAPPER.writeValueAsString(rs) + "\n");
        }
        return lines;
    }

    private static int spanCount(List<String> lines) throws IOException {
        int n = 0;
        for (String l : lines) {
            for (JsonNode ss : DirectoryTraceSourceTest.MAPPER.readTree(l.substring(l.indexOf('{'))).path("scopeSpans")) {
                n += ss.path("spans").size();
            }
        }
        return n;
    }

    private static void append(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    @Test
    void aFileAppendedBetweenTwoCallsIsReadFromItsOffsetAndEarlierWindowsStillSeeTheOldSpans(@TempDir Path dir)
            throws IOException {
        List<String> lines = exportLines();
        assertTrue(lines.size() >= 2, lines.size() + " export lines");
        List<String> first = lines.subList(0, lines.size() / 2);
        List<String> rest = lines.subList(lines.size() / 2, lines.size());
        Path log = dir.resolve("inventory.log");
        append(log, String.join("", first));
        DirectoryTraceSource source = new DirectoryTraceSource(dir);
        assertEquals(spanCount(first), source.spans("t", ALL_FROM, ALL_TO).size());
        long before = source.bytesRead();
        assertEquals(Files.size(log), before, "the first call reads the file once");

        String appended = String.join("", rest);
        append(log, appended);
        List<Span> later = source.spans("t", ALL_FROM, ALL_TO);
        assertEquals(14, later.size(), "the old lines' spans, re-read by position, and the new ones");
        long fullReRead = Files.size(log);
        long secondCall = source.bytesRead() - before;
        long oldLines = Files.size(log) - appended.getBytes(StandardCharsets.UTF_8).length - first.size();
        assertEquals(appended.getBytes(StandardCharsets.UTF_8).length + DirectoryTraceSource.GUARD_BYTES + oldLines,
                secondCall, "new bytes, the guard, and the old lines this window overlaps (all of them here, without their newlines)");

        long mark = source.bytesRead();
        long windowAfterAll = ALL_TO + 1;
        assertEquals(List.of(), source.spans("t", windowAfterAll, windowAfterAll + 1_000));
        assertEquals(DirectoryTraceSource.GUARD_BYTES, source.bytesRead() - mark,
                "nothing new and no old line overlaps a window after every span: the guard only, not " + fullReRead);
    }

    @Test
    void aPartiallyWrittenLastLineIsCompletedAtTheNextCall(@TempDir Path dir) throws IOException {
        List<String> lines = exportLines();
        String last = lines.get(lines.size() - 1);
        String head = String.join("", lines.subList(0, lines.size() - 1));
        Path log = dir.resolve("shop.log");
        int cut = last.length() / 2;
        append(log, head + last.substring(0, cut));
        DirectoryTraceSource source = new DirectoryTraceSource(dir);
        int headSpans = spanCount(lines.subList(0, lines.size() - 1));
        assertEquals(headSpans, source.spans("t", ALL_FROM, ALL_TO).size(), "the torn line is skipped");
        append(log, last.substring(cut));
        assertEquals(14, source.spans("t", ALL_FROM, ALL_TO).size(), "the torn line, complete now, is read");
    }

    @Test
    void aTruncatedOrRewrittenFileIsReadAgainFromTheStart(@TempDir Path dir) throws IOException {
        List<String> lines = exportLines();
        Path log = dir.resolve("order.log");
        append(log, String.join("", lines));
        DirectoryTraceSource source = new DirectoryTraceSource(dir);
        assertEquals(14, source.spans("t", ALL_FROM, ALL_TO).size());

        Files.writeString(log, lines.get(0)); // truncated (logrotate copytruncate) and one export written
        long mark = source.bytesRead();
        assertEquals(spanCount(lines.subList(0, 1)), source.spans("t", ALL_FROM, ALL_TO).size());
        assertEquals(Files.size(log), source.bytesRead() - mark, "shorter than the offset: read from 0");

        // rewritten, longer than before, other bytes before the old offset: the guard tells it from an append
        String rewritten = "[otel.javaagent 2026-11-30 10:00:00:000 +0000] [main] INFO restarted\n"
                + String.join("", lines.subList(1, lines.size())) + lines.get(0);
        Files.writeString(log, rewritten);
        assertEquals(14, source.spans("t", ALL_FROM, ALL_TO).size(), "every span of the rewritten file");
    }
}
