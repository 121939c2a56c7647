package dev.richter.links.source;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.SpanRef;
import dev.richter.links.trace.TraceDocuments;
import dev.richter.links.trace.TraceFormatException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Spans from the regular files of one directory (not recursive).
 *
 * <p>Each file is either one trace document in any format {@link TraceDocuments#parse} reads (OTLP JSON
 * {@code {"resourceSpans":[...]}}, Zipkin v2, Jaeger, X-Ray), or text with one JSON object per line,
 * possibly prefixed by log text: the OpenTelemetry Java agent with {@code otel.traces.exporter=logging-otlp}
 * writes each export as {@code [otel.javaagent ...] INFO ...OtlpJsonLoggingSpanExporter - {ResourceSpans}}.
 * From such lines, the JSON part is taken from the first {@code {}; objects with {@code resourceSpans}
 * contribute all of them, objects with {@code scopeSpans} are one {@code ResourceSpans}; other lines,
 * and a last line still being written, are skipped. A file that is neither (a whole document that was rejected,
 * e.g. for an id that is not valid for its format) fails with the document's error and position.
 *
 * <p>Files last modified before the window starts are not read (a span that started in the window was
 * written after it started). Spans are kept when their start is in the window.
 */
public final class DirectoryTraceSource implements TraceSource {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private final Path directory;

    /** @param directory the directory; it may not exist yet (no spans then) */
    public DirectoryTraceSource(Path directory) {
        this.directory = directory;
    }

    @Override
    public List<Span> spans(String teamId, long fromEpochMs, long toEpochMs) {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        List<Path> files;
        try (Stream<Path> list = Files.list(directory)) {
            files = list.filter(Files::isRegularFile).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + directory, e);
        }
        Map<SpanRef, Span> out = new LinkedHashMap<>();
        long fromNanos = fromEpochMs * 1_000_000L;
        long toNanos = toEpochMs * 1_000_000L + 999_999L;
        for (Path file : files) {
            byte[] bytes;
            try {
                if (Files.getLastModifiedTime(file).toMillis() < fromEpochMs) {
                    continue;
                }
                bytes = Files.readAllBytes(file);
            } catch (IOException e) {
                continue; // rotated or removed while listing: nothing to read
            }
            for (Span s : read(file.getFileName().toString(), bytes)) {
                if (s.startEpochNanos() >= fromNanos && s.startEpochNanos() <= toNanos) {
                    out.putIfAbsent(new SpanRef(s.traceId(), s.spanId()), s);
                }
            }
        }
        return new ArrayList<>(out.values());
    }

    /** Every span of one file (see the class comment for the accepted shapes). */
    static List<Span> read(String name, byte[] bytes) {
        int first = 0;
        while (first < bytes.length && Character.isWhitespace(bytes[first])) {
            first++;
        }
        if (first == bytes.length) {
            return List.of();
        }
        RuntimeException asOneDocument = null;
        if (bytes[first] == '{' || bytes[first] == '[') {
            try {
                return TraceDocuments.parse(name, bytes).spans();
            } catch (TraceFormatException | IllegalArgumentException notOneDocument) {
                asOneDocument = notOneDocument; // one object per line: below
            }
        }
        ObjectNode doc = MAPPER.createObjectNode();
        ArrayNode resourceSpans = doc.putArray("resourceSpans");
        for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
            addFromLine(line, resourceSpans);
        }
        if (resourceSpans.isEmpty()) {
            if (asOneDocument != null) {
                // Not lines of spans either: the file is one document that was rejected (e.g. an id not valid for
                // its format). Say so, with its position, rather than reading it as empty.
                throw asOneDocument;
            }
            return List.of();
        }
        try {
            return TraceDocuments.parse(name, MAPPER.writeValueAsBytes(doc)).spans();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The spans that the agent's {@code logging-otlp} exporter wrote into {@code logFiles}, one line per export (see the
     * class comment), as one OTLP/JSON document {@code {"resourceSpans":[...]}}, in file then line order.
     *
     * @param logFiles log files; missing ones are skipped
     * @throws UncheckedIOException when a file that exists cannot be read
     */
    public static ObjectNode otlpFromLogs(List<Path> logFiles) {
        ObjectNode doc = MAPPER.createObjectNode();
        ArrayNode resourceSpans = doc.putArray("resourceSpans");
        for (Path file : logFiles) {
            if (!Files.isRegularFile(file)) {
                continue;
            }
            try (Stream<String> lines = Files.lines(file, StandardCharsets.UTF_8)) {
                lines.forEach(line -> addFromLine(line, resourceSpans));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file, e);
            }
        }
        return doc;
    }

    /** Adds the ResourceSpans a line carries, if any. */
    static void addFromLine(String line, ArrayNode out) {
        int brace = line.indexOf('{');
        if (brace < 0 || !line.contains("Spans\"")) {
            return;
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(line.substring(brace));
        } catch (IOException e) {
            return;
        }
        if (node == null || !node.isObject()) {
            return;
        }
        if (node.has("resourceSpans")) {
            node.get("resourceSpans").forEach(out::add);
        } else if (node.has("scopeSpans")) {
            out.add(node);
        }
    }

    @Override
    public String describe() {
        return "directory " + directory;
    }
}
