import dev.richter.links.source.DirectoryTraceSource;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Writes {@code megabytes} of agent {@code logging-otlp} export lines (one span per line, the shape
 * {@code OtlpJsonLoggingSpanExporter} logs) into 4 files, reads them once, appends 1%, and times the second call of
 * the same source against a fresh source re-reading everything. Prints the ratio; best of 3 each.
 */
public class TraceSourceBench {
    private static long lineNo = 1;

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        long megabytes = Long.parseLong(args[1]);
        Files.createDirectories(dir);
        long nowMs = System.currentTimeMillis();
        long bytes = megabytes * 1_000_000L;
        for (int f = 0; f < 4; f++) {
            write(dir.resolve("svc-" + f + ".log"), bytes / 4, nowMs);
        }
        long from = nowMs - 60_000;
        long to = nowMs + 3_600_000;
        long fullMs = Long.MAX_VALUE;
        long incrementalMs = Long.MAX_VALUE;
        int spans = 0;
        for (int round = 0; round < 3; round++) {
            DirectoryTraceSource warm = new DirectoryTraceSource(dir);
            warm.read("t", from, to);
            for (int f = 0; f < 4; f++) {
                write(dir.resolve("svc-" + f + ".log"), bytes / 400, nowMs + 1_000 + round);
            }
            long t0 = System.nanoTime();
            // the later step's window: only what was appended starts in it
            int n = warm.read("t", nowMs + 1_000 + round, to).spans().size();
            incrementalMs = Math.min(incrementalMs, (System.nanoTime() - t0) / 1_000_000);
            long t1 = System.nanoTime();
            spans = new DirectoryTraceSource(dir).read("t", nowMs + 1_000 + round, to).spans().size();
            fullMs = Math.min(fullMs, (System.nanoTime() - t1) / 1_000_000);
            if (n != spans) {
                throw new IllegalStateException("incremental " + n + " spans, full re-read " + spans);
            }
        }
        System.out.printf("logs_mb=%d spans_in_window=%d%n", megabytes, spans);
        System.out.printf("full_ms=%d incremental_ms=%d full_vs_incremental=%.1f%n", fullMs, incrementalMs,
                fullMs / (double) Math.max(1, incrementalMs));
    }

    private static void write(Path file, long bytes, long startMs) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND)) {
            long written = 0;
            while (written < bytes) {
                long n = lineNo++;
                long startNanos = startMs * 1_000_000L + n;
                String line = "[otel.javaagent 2026-11-30 09:00:01:000 +0000] [BatchSpanProcessor_WorkerThread-1] INFO "
                        + "io.opentelemetry.exporter.logging.otlp.OtlpJsonLoggingSpanExporter - {\"resource\":{"
                        + "\"attributes\":[{\"key\":\"service.name\",\"value\":{\"stringValue\":\"inventory\"}}]},"
                        + "\"scopeSpans\":[{\"scope\":{\"name\":\"io.opentelemetry.jdbc\"},\"spans\":[{\"traceId\":\""
                        + String.format("%032x", n) + "\",\"spanId\":\"" + String.format("%016x", n + 1)
                        + "\",\"name\":\"SELECT shop.stock\",\"kind\":3,\"startTimeUnixNano\":\"" + startNanos
                        + "\",\"endTimeUnixNano\":\"" + (startNanos + 1_000_000) + "\",\"attributes\":["
                        + "{\"key\":\"db.system\",\"value\":{\"stringValue\":\"h2\"}},"
                        + "{\"key\":\"db.name\",\"value\":{\"stringValue\":\"shop\"}},"
                        + "{\"key\":\"db.statement\",\"value\":{\"stringValue\":\"SELECT qty FROM stock WHERE sku = ?\"}}"
                        + "]}]}]}\n";
                w.write(line);
                written += line.length();
            }
        }
    }
}
