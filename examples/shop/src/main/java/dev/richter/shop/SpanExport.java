package dev.richter.shop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Collects the spans the OpenTelemetry agent wrote with {@code otel.traces.exporter=logging-otlp}
 * into one OTLP/JSON document.
 *
 * <p>The exporter writes each export as one log line, e.g. {@code [otel.javaagent ...] INFO
 * io.opentelemetry.exporter.logging.otlp.OtlpJsonLoggingSpanExporter - {"resource":...,"scopeSpans":[...]}},
 * whose JSON part is one OTLP {@code ResourceSpans}. This class finds the JSON part of every such
 * line (also accepting a whole {@code {"resourceSpans":[...]}} per line, the exporter's wrapper
 * mode), and writes {@code {"resourceSpans":[...]}} — the OTLP/JSON {@code ExportTraceServiceRequest}
 * shape. Other lines, and lines that do not parse (e.g. a line still being written), are skipped.
 *
 * <p>Usage: {@code SpanExport <outfile> <logfile>...}; prints a one-line summary to stderr.
 */
public final class SpanExport {

  private static final String EXPORTER_TAG = "OtlpJsonLoggingSpanExporter";

  private SpanExport() {}

  /**
   * Merges the ResourceSpans found in the given log files.
   *
   * @param logFiles agent log files; missing files are skipped
   * @return {@code {"resourceSpans":[...]}} in file order, then line order
   * @throws IOException if a file cannot be read
   */
  public static ObjectNode collect(List<Path> logFiles) throws IOException {
    ObjectNode doc = ShopServer.JSON.createObjectNode();
    ArrayNode all = doc.putArray("resourceSpans");
    for (Path file : logFiles) {
      if (!Files.isRegularFile(file)) {
        continue;
      }
      try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        String line;
        while ((line = reader.readLine()) != null) {
          addFromLine(line, all);
        }
      }
    }
    return doc;
  }

  /** Adds the ResourceSpans carried by one log line, if any, to {@code out}. */
  static void addFromLine(String line, ArrayNode out) {
    int tag = line.indexOf(EXPORTER_TAG);
    int brace = line.indexOf('{', tag < 0 ? 0 : tag);
    if (brace < 0 || (tag < 0 && !line.contains("\"scopeSpans\""))) {
      return;
    }
    JsonNode node;
    try {
      node = ShopServer.JSON.readTree(line.substring(brace));
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

  /** Number of spans in a {@code {"resourceSpans":[...]}} document. */
  static int spanCount(JsonNode doc) {
    int n = 0;
    for (JsonNode rs : doc.path("resourceSpans")) {
      for (JsonNode ss : rs.path("scopeSpans")) {
        n += ss.path("spans").size();
      }
    }
    return n;
  }

  public static void main(String[] args) throws IOException {
    if (args.length < 1) {
      System.err.println("usage: SpanExport <outfile> <logfile>...");
      System.exit(2);
    }
    List<Path> logs = Arrays.stream(args).skip(1).map(Path::of).toList();
    ObjectNode doc = collect(logs);
    Path out = Path.of(args[0]);
    try (OutputStream os = Files.newOutputStream(out)) {
      ShopServer.JSON.writeValue(os, doc);
    }
    System.err.printf("wrote %s: %d resourceSpans, %d spans from %d log files%n",
        out, doc.get("resourceSpans").size(), spanCount(doc), logs.size());
  }
}
