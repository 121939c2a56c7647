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
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * and a last line still being written, are skipped.
 *
 * <p><b>What cannot be read is listed, and the rest is read</b> ({@link TraceRead#unreadable()}). A whole document
 * that is rejected (e.g. for an id its format does not allow) is listed with its {@code file:line:column} and reason. A
 * log line whose export is JSON that carries spans but is rejected is listed as {@code file:line: reason}, with the
 * span starts its JSON shows ({@code startTimeUnixNano}): such a line is listed in every later read whose window those
 * starts overlap, or in every read of its file when it shows none, since what it held is unknown. The other files and
 * lines are read as usual.
 *
 * <p>Files last modified before the window starts are not read (a span that started in the window was
 * written after it started). Spans are kept when their start is in the window.
 *
 * <p><b>Only new bytes are read.</b> An instance keeps, per file of its directory, a cursor: the byte offset up to
 * which whole lines were read, the file's identity ({@code fileKey}, the inode on Linux) and the last
 * {@value #GUARD_BYTES} bytes before the offset. At the next call the file is read from the offset; a file whose
 * identity changed, that is shorter than the offset, or whose bytes before the offset differ (truncated, rotated,
 * rewritten) is read again from 0. A last line without its newline is not consumed: it is read again, complete, at
 * the next call. Windows may move either way: for every line that held spans the cursor keeps its position, length
 * and the earliest and latest span start, and a later call re-reads (by position) only the lines whose span starts
 * overlap its window. A whole document is re-read only when it changed or its span starts overlap the window.
 * Memory: 28 bytes per span-bearing line plus {@value #GUARD_BYTES} bytes per file (an agent export line holds one
 * or more spans of 300+ bytes each, so under a tenth of the logs' size); cursors of files that left the directory are
 * dropped. The state lives in the instance: {@link TraceSourceSpec#open()} hands out one instance per directory, so a
 * warm Lambda keeps it between invocations; a cold one starts from 0. Calls are serialized per instance.
 */
public final class DirectoryTraceSource implements TraceSource {
    /** Bytes before a file's offset compared at each call to tell a rewritten file from an appended one. */
    static final int GUARD_BYTES = 64;
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private final Path directory;
    private final Map<Path, LogCursor> cursors = new HashMap<>();
    /** Bytes read from files so far (new bytes, guards, lines re-read for a window); for tests and benches. */
    private long bytesRead;

    /** @param directory the directory; it may not exist yet (no spans then) */
    public DirectoryTraceSource(Path directory) {
        this.directory = directory;
    }

    @Override
    public synchronized TraceRead read(String teamId, long fromEpochMs, long toEpochMs) {
        if (!Files.isDirectory(directory)) {
            cursors.clear();
            return TraceRead.of(List.of());
        }
        List<Path> files;
        try (Stream<Path> list = Files.list(directory)) {
            files = list.filter(Files::isRegularFile).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + directory, e);
        }
        cursors.keySet().retainAll(new HashSet<>(files));
        Map<SpanRef, Span> out = new LinkedHashMap<>();
        List<String> unreadable = new ArrayList<>();
        long fromNanos = fromEpochMs * 1_000_000L;
        long toNanos = toEpochMs * 1_000_000L + 999_999L;
        for (Path file : files) {
            BasicFileAttributes attributes;
            try {
                attributes = Files.readAttributes(file, BasicFileAttributes.class);
                if (attributes.lastModifiedTime().toMillis() < fromEpochMs) {
                    continue;
                }
            } catch (IOException e) {
                continue; // rotated or removed while listing: nothing to read
            }
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                for (Span s : read(file, attributes, channel, fromNanos, toNanos, unreadable)) {
                    out.putIfAbsent(new SpanRef(s.traceId(), s.spanId()), s);
                }
            } catch (NoSuchFileException e) {
                cursors.remove(file); // removed since listing
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file, e);
            }
        }
        return new TraceRead(new ArrayList<>(out.values()), unreadable);
    }

    /** Bytes this instance read from files so far (see the class comment). */
    synchronized long bytesRead() {
        return bytesRead;
    }

    /**
     * The spans of {@code file} that started in the window, reading only what the cursor has not read; the parts of it
     * that could not be read and may have held spans of the window are added to {@code unreadable}.
     */
    private List<Span> read(Path file, BasicFileAttributes attributes, FileChannel channel, long fromNanos,
                            long toNanos, List<String> unreadable) throws IOException {
        String name = file.getFileName().toString();
        long size = channel.size();
        LogCursor cursor = cursors.get(file);
        if (cursor != null && !cursor.sameFile(attributes, size, channel, this)) {
            cursor = null;
        }
        List<Span> out = new ArrayList<>();
        if (cursor != null && cursor.document) {
            if (size == cursor.offset && attributes.lastModifiedTime().toMillis() == cursor.modifiedMs) {
                if (cursor.overlaps(0, fromNanos, toNanos)) {
                    keep(TraceDocuments.parse(name, bytes(channel, 0, (int) size)).spans(), fromNanos, toNanos, out);
                }
                return out;
            }
            cursor = null;
        }
        if (cursor != null) {
            cursor.unreadableLines.stream().filter(u -> u.overlaps(fromNanos, toNanos)).forEach(u -> unreadable.add(u.problem()));
            if (cursor.moreUnreadableLines > 0) {
                unreadable.add(name + ": " + cursor.moreUnreadableLines + " more unreadable lines");
            }
            for (int i = 0; i < cursor.lines; i++) {
                if (cursor.overlaps(i, fromNanos, toNanos)) {
                    byte[] line = bytes(channel, cursor.lineOffset[i], cursor.lineLength[i]);
                    keep(lineSpans(name, line, 0, line.length), fromNanos, toNanos, out);
                }
            }
        }
        long offset = cursor == null ? 0 : cursor.offset;
        if (size - offset > Integer.MAX_VALUE - 16) {
            throw new IOException(file + ": " + (size - offset) + " unread bytes, more than one read holds");
        }
        byte[] fresh = bytes(channel, offset, (int) (size - offset));
        LogCursor next = cursor == null ? new LogCursor(attributes.fileKey()) : cursor;
        Optional<WholeDocument> document = cursor == null ? wholeDocument(name, fresh) : Optional.empty();
        if (document.isPresent() && document.get().spans() != null) {
            List<Span> spans = document.get().spans();
            next.document = true;
            next.offset = size;
            next.modifiedMs = attributes.lastModifiedTime().toMillis();
            next.addLine(0, fresh.length, spans);
            next.guard(fresh, fresh.length);
            cursors.put(file, next);
            keep(spans, fromNanos, toNanos, out);
            return out;
        }
        LogCursor.Pending pending = new LogCursor.Pending();
        int start = 0;
        long lineNumber = next.linesConsumed;
        for (int i = 0; i < fresh.length; i++) {
            if (fresh[i] == '\n') {
                lineNumber++;
                try {
                    List<Span> spans = lineSpans(name, fresh, start, i);
                    if (!spans.isEmpty()) {
                        pending.add(offset + start, i - start, spans);
                        keep(spans, fromNanos, toNanos, out);
                    }
                } catch (TraceFormatException | IllegalArgumentException e) {
                    UnreadableLine bad = UnreadableLine.of(name, lineNumber, fresh, start, i, e);
                    pending.unreadable.add(bad);
                    if (bad.overlaps(fromNanos, toNanos)) {
                        unreadable.add(bad.problem());
                    }
                }
                start = i + 1;
            }
        }
        List<Span> tail;
        try {
            tail = start < fresh.length ? lineSpans(name, fresh, start, fresh.length) : List.of();
        } catch (TraceFormatException | IllegalArgumentException e) {
            tail = List.of(); // a last line still being written is read again, whole, at the next call
            UnreadableLine bad = UnreadableLine.of(name, lineNumber + 1, fresh, start, fresh.length, e);
            if (bad.overlaps(fromNanos, toNanos)) {
                unreadable.add(bad.problem());
            }
        }
        keep(tail, fromNanos, toNanos, out); // not consumed: read again at the next call
        if (document.isPresent() && pending.isEmpty() && tail.isEmpty() && pending.unreadable.isEmpty()) {
            // a rejected whole document, not a log: not consumed, the file is read again, whole, at the next call
            unreadable.add(document.get().rejected().getMessage());
            return out;
        }
        next.linesConsumed = lineNumber;
        next.commit(pending);
        next.offset = offset + start;
        next.guardFrom(fresh, start, cursor);
        cursors.put(file, next);
        return out;
    }

    private static void keep(List<Span> spans, long fromNanos, long toNanos, List<Span> out) {
        for (Span s : spans) {
            if (s.startEpochNanos() >= fromNanos && s.startEpochNanos() <= toNanos) {
                out.add(s);
            }
        }
    }

    private byte[] bytes(FileChannel channel, long position, int length) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(length);
        while (buffer.hasRemaining()) {
            int n = channel.read(buffer, position + buffer.position());
            if (n < 0) {
                break;
            }
        }
        bytesRead += buffer.position();
        return buffer.position() == length ? buffer.array() : Arrays.copyOf(buffer.array(), buffer.position());
    }

    /** One whole trace document read: its spans, or why it was rejected (exactly one of the two is non-null). */
    private record WholeDocument(List<Span> spans, RuntimeException rejected) {}

    /** {@code bytes} read as one whole trace document; empty when they do not start like one ({@code {} or {@code [}). */
    private static Optional<WholeDocument> wholeDocument(String name, byte[] bytes) {
        int first = firstNonSpace(bytes);
        if (first == bytes.length || bytes[first] != '{' && bytes[first] != '[') {
            return Optional.empty();
        }
        try {
            return Optional.of(new WholeDocument(TraceDocuments.parse(name, bytes).spans(), null));
        } catch (TraceFormatException | IllegalArgumentException rejected) {
            return Optional.of(new WholeDocument(null, rejected));
        }
    }

    private static int firstNonSpace(byte[] bytes) {
        int first = 0;
        while (first < bytes.length && Character.isWhitespace(bytes[first])) {
            first++;
        }
        return first;
    }

    /** The spans one line ({@code bytes[start, end)}) carries (see {@link #addFromLine}). */
    private static List<Span> lineSpans(String name, byte[] bytes, int start, int end) {
        ArrayNode resourceSpans = MAPPER.createArrayNode();
        addFromLine(new String(bytes, start, end - start, StandardCharsets.UTF_8), resourceSpans);
        if (resourceSpans.isEmpty()) {
            return List.of();
        }
        ObjectNode doc = MAPPER.createObjectNode();
        doc.set("resourceSpans", resourceSpans);
        try {
            return TraceDocuments.parse(name, MAPPER.writeValueAsBytes(doc)).spans();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A complete log line whose export could not be read: its {@code file:line: reason}, and the span starts its JSON
     * shows ({@code [Long.MIN_VALUE, Long.MAX_VALUE]} when it shows none, so that every window overlaps it).
     */
    record UnreadableLine(String problem, long minStartNanos, long maxStartNanos) {
        static UnreadableLine of(String file, long lineNumber, byte[] bytes, int start, int end, RuntimeException e) {
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            String line = new String(bytes, start, end - start, StandardCharsets.UTF_8);
            try {
                JsonNode node = MAPPER.readTree(line.substring(line.indexOf('{')));
                for (JsonNode v : node.findValues("startTimeUnixNano")) {
                    long nanos = Long.parseLong(v.asText());
                    min = Math.min(min, nanos);
                    max = Math.max(max, nanos);
                }
            } catch (IOException | RuntimeException unknown) {
                min = Long.MAX_VALUE; // no start shown: every window may hold what it had
            }
            if (min == Long.MAX_VALUE) {
                min = Long.MIN_VALUE;
                max = Long.MAX_VALUE;
            }
            String reason = e.getMessage() == null ? e.toString() : e.getMessage();
            String prefix = file + ":";
            if (reason.startsWith(prefix)) {
                reason = reason.substring(prefix.length()).replaceFirst("^\\d+:\\d+: ", "");
            }
            return new UnreadableLine(file + ":" + lineNumber + ": " + reason, min, max);
        }

        boolean overlaps(long fromNanos, long toNanos) {
            return minStartNanos <= toNanos && maxStartNanos >= fromNanos;
        }
    }

    /** What was read of one file (see the class comment). */
    private static final class LogCursor {
        final Object fileKey;
        boolean document;
        long offset;
        /** Newlines before {@link #offset}: the number of the last line read whole. */
        long linesConsumed;
        /**
         * The complete lines that could not be read, listed again in every read whose window they overlap; at most
         * {@link TraceRead#MAX_LISTED} per file, the others counted in {@link #moreUnreadableLines} and listed in every
         * read of the file.
         */
        final List<UnreadableLine> unreadableLines = new ArrayList<>();
        long moreUnreadableLines;
        long modifiedMs;
        byte[] guard = new byte[0];
        int lines;
        long[] lineOffset = new long[4];
        int[] lineLength = new int[4];
        long[] minStartNanos = new long[4];
        long[] maxStartNanos = new long[4];

        LogCursor(Object fileKey) {
            this.fileKey = fileKey;
        }

        /** Lines read in this call, committed to the cursor only once the whole file was read. */
        static final class Pending {
            final List<long[]> lines = new ArrayList<>();
            final List<UnreadableLine> unreadable = new ArrayList<>();

            void add(long offset, int length, List<Span> spans) {
                long min = Long.MAX_VALUE;
                long max = Long.MIN_VALUE;
                for (Span s : spans) {
                    min = Math.min(min, s.startEpochNanos());
                    max = Math.max(max, s.startEpochNanos());
                }
                lines.add(new long[] {offset, length, min, max});
            }

            boolean isEmpty() {
                return lines.isEmpty();
            }
        }

        void addLine(long offset, int length, List<Span> spans) {
            Pending p = new Pending();
            if (!spans.isEmpty()) {
                p.add(offset, length, spans);
            }
            commit(p);
        }

        void commit(Pending pending) {
            for (UnreadableLine u : pending.unreadable) {
                if (unreadableLines.size() < TraceRead.MAX_LISTED) {
                    unreadableLines.add(u);
                } else {
                    moreUnreadableLines++;
                }
            }
            for (long[] l : pending.lines) {
                if (lines == lineOffset.length) {
                    int n = lines * 2;
                    lineOffset = Arrays.copyOf(lineOffset, n);
                    lineLength = Arrays.copyOf(lineLength, n);
                    minStartNanos = Arrays.copyOf(minStartNanos, n);
                    maxStartNanos = Arrays.copyOf(maxStartNanos, n);
                }
                lineOffset[lines] = l[0];
                lineLength[lines] = (int) l[1];
                minStartNanos[lines] = l[2];
                maxStartNanos[lines] = l[3];
                lines++;
            }
        }

        boolean overlaps(int line, long fromNanos, long toNanos) {
            return line < lines && minStartNanos[line] <= toNanos && maxStartNanos[line] >= fromNanos;
        }

        /** Keeps the last {@link #GUARD_BYTES} bytes before {@code bytes[end]}. */
        void guard(byte[] bytes, int end) {
            guard = Arrays.copyOfRange(bytes, Math.max(0, end - GUARD_BYTES), end);
        }

        /** The guard before the new offset: from this call's bytes, topped up from the old guard when few were new. */
        void guardFrom(byte[] fresh, int end, LogCursor old) {
            if (end >= GUARD_BYTES || old == null) {
                guard(fresh, end);
                return;
            }
            byte[] joined = new byte[Math.min(GUARD_BYTES, old.guard.length + end)];
            int fromOld = joined.length - end;
            System.arraycopy(old.guard, old.guard.length - fromOld, joined, 0, fromOld);
            System.arraycopy(fresh, 0, joined, fromOld, end);
            guard = joined;
        }

        /** True when the file is still the one read: same key, not shorter, the same bytes before the offset. */
        boolean sameFile(BasicFileAttributes attributes, long size, FileChannel channel, DirectoryTraceSource source)
                throws IOException {
            if (fileKey != null && !fileKey.equals(attributes.fileKey()) || size < offset) {
                return false;
            }
            if (document) {
                return true; // size and modification time decide (read())
            }
            byte[] now = source.bytes(channel, offset - guard.length, guard.length);
            return Arrays.equals(now, guard);
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
