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
        assertEquals(spanCount(first), source.read("t", ALL_FROM, ALL_TO).spans().size());
        long before = source.bytesRead();
        assertEquals(Files.size(log), before, "the first call reads the file once");

        String appended = String.join("", rest);
        append(log, appended);
        List<Span> later = source.read("t", ALL_FROM, ALL_TO).spans();
        assertEquals(14, later.size(), "the old lines' spans, re-read by position, and the new ones");
        long fullReRead = Files.size(log);
        long secondCall = source.bytesRead() - before;
        long oldLines = Files.size(log) - appended.getBytes(StandardCharsets.UTF_8).length - first.size();
        assertEquals(appended.getBytes(StandardCharsets.UTF_8).length + DirectoryTraceSource.GUARD_BYTES + oldLines,
                secondCall, "new bytes, the guard, and the old lines this window overlaps (all of them here, without their newlines)");

        long mark = source.bytesRead();
        long windowAfterAll = ALL_TO + 1;
        assertEquals(List.of(), source.read("t", windowAfterAll, windowAfterAll + 1_000).spans());
        assertEquals(DirectoryTraceSource.GUARD_BYTES, source.bytesRead() - mark,
                "nothing new and no old line overlaps a window after every span: the guard only, not " + fullReRead);
    }

    @Test
    void anExportLineThatCannotBeReadIsListedByFileAndLineInEveryWindowItsStartsOverlapAndTheOtherLinesAreRead(
            @TempDir Path dir) throws IOException {
        List<String> lines = exportLines();
        String good = lines.get(1);
        JsonNode export = DirectoryTraceSourceTest.MAPPER.readTree(good.substring(good.indexOf('{')));
        int badSpans = 0;
        long minStartMs = Long.MAX_VALUE;
        long maxStartMs = Long.MIN_VALUE;
        for (JsonNode ss : export.path("scopeSpans")) {
            for (JsonNode s : ss.path("spans")) {
                ((com.fasterxml.jackson.databind.node.ObjectNode) s).put("spanId", "not-hex!");
                long ms = Long.parseLong(s.path("startTimeUnixNano").asText()) / 1_000_000;
                minStartMs = Math.min(minStartMs, ms);
                maxStartMs = Math.max(maxStartMs, ms);
                badSpans++;
            }
        }
        String bad = good.substring(0, good.indexOf('{')) + DirectoryTraceSourceTest.MAPPER.writeValueAsString(export) + "\n";
        List<String> withBad = new ArrayList<>(lines);
        withBad.set(1, bad);
        Path log = dir.resolve("inventory.log");
        append(log, "starting\n" + String.join("", withBad)); // the bad export is line 3
        DirectoryTraceSource source = new DirectoryTraceSource(dir);

        TraceRead first = source.read("t", ALL_FROM, ALL_TO);
        assertEquals(14 - badSpans, first.spans().size(), "every other line is read");
        assertEquals(1, first.unreadable().size(), first.unreadable().toString());
        assertTrue(first.unreadable().get(0).startsWith("inventory.log:3: ") && first.unreadable().get(0).contains("spanId"),
                first.unreadable().get(0));

        append(log, lines.get(1).replace("INFO", "INFO ")); // another call reads on from the offset
        TraceRead second = source.read("t", minStartMs, maxStartMs);
        assertEquals(first.unreadable(), second.unreadable(), "a line read in an earlier call is listed again");
        assertEquals(List.of(), source.read("t", ALL_TO + 1, ALL_TO + 1_000).unreadable(),
                "a window after every start the line shows does not list it");

        Files.writeString(dir.resolve("payment.log"), "[otel.javaagent] INFO OtlpJsonLoggingSpanExporter - "
                + "{\"resource\":{},\"scopeSpans\":[{\"spans\":[{\"traceId\":\"xyz\",\"spanId\":\"00f067aa0ba902b7\"}]}]}\n");
        TraceRead later = source.read("t", ALL_TO + 1, ALL_TO + 1_000);
        assertEquals(1, later.unreadable().size(), later.unreadable().toString());
        assertTrue(later.unreadable().get(0).startsWith("payment.log:1: "), "a line that shows no start is listed in any window: "
                + later.unreadable());
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
        assertEquals(headSpans, source.read("t", ALL_FROM, ALL_TO).spans().size(), "the torn line is skipped");
        append(log, last.substring(cut));
        assertEquals(14, source.read("t", ALL_FROM, ALL_TO).spans().size(), "the torn line, complete now, is read");
    }

    @Test
    void aTruncatedOrRewrittenFileIsReadAgainFromTheStart(@TempDir Path dir) throws IOException {
        List<String> lines = exportLines();
        Path log = dir.resolve("order.log");
        append(log, String.join("", lines));
        DirectoryTraceSource source = new DirectoryTraceSource(dir);
        assertEquals(14, source.read("t", ALL_FROM, ALL_TO).spans().size());

        Files.writeString(log, lines.get(0)); // truncated (logrotate copytruncate) and one export written
        long mark = source.bytesRead();
        assertEquals(spanCount(lines.subList(0, 1)), source.read("t", ALL_FROM, ALL_TO).spans().size());
        assertEquals(Files.size(log), source.bytesRead() - mark, "shorter than the offset: read from 0");

        // rewritten, longer than before, other bytes before the old offset: the guard tells it from an append
        String rewritten = "[otel.javaagent 2026-11-30 10:00:00:000 +0000] [main] INFO restarted\n"
                + String.join("", lines.subList(1, lines.size())) + lines.get(0);
        Files.writeString(log, rewritten);
        assertEquals(14, source.read("t", ALL_FROM, ALL_TO).spans().size(), "every span of the rewritten file");
    }
}
