package dev.richter.shop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpanExportTest {

  private static final String RESOURCE_SPANS =
      "{\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":{\"stringValue\":\"order\"}}]},"
          + "\"scopeSpans\":[{\"scope\":{\"name\":\"io.opentelemetry.java-http-server\"},\"spans\":["
          + "{\"traceId\":\"a1\",\"spanId\":\"b1\",\"name\":\"POST /orders\",\"kind\":2},"
          + "{\"traceId\":\"a1\",\"spanId\":\"b2\",\"parentSpanId\":\"b1\",\"name\":\"POST\",\"kind\":3}]}]}";

  /** The line shape written by the 2.22.0 agent with otel.traces.exporter=logging-otlp. */
  private static final String AGENT_LINE = "[otel.javaagent 2026-11-30 08:23:04:785 +0000] "
      + "[BatchSpanProcessor_WorkerThread-1] INFO io.opentelemetry.exporter.logging.otlp."
      + "OtlpJsonLoggingSpanExporter - " + RESOURCE_SPANS;

  @Test
  void mergesResourceSpansFromAgentLinesAndSkipsEverythingElse(@TempDir Path dir) throws Exception {
    Path order = dir.resolve("order.log");
    Files.write(order, List.of(
        "OpenJDK 64-Bit Server VM warning: Sharing is only supported for boot loader classes",
        "[otel.javaagent 2026-11-30 08:22:52:925 +0000] [main] INFO VersionLogger - version: 2.22.0 {x}",
        "order listening on /127.0.0.1:18081",
        AGENT_LINE,
        AGENT_LINE.substring(0, AGENT_LINE.length() - 10)));   // a line still being written
    Path inventory = dir.resolve("inventory.log");
    Files.write(inventory, List.of("{\"resourceSpans\":[" + RESOURCE_SPANS + "," + RESOURCE_SPANS + "]}"));

    ObjectNode doc = SpanExport.collect(List.of(order, inventory, dir.resolve("missing.log")));

    assertEquals(3, doc.get("resourceSpans").size());
    assertEquals(6, SpanExport.spanCount(doc));
    assertEquals("POST /orders", doc.at("/resourceSpans/0/scopeSpans/0/spans/0/name").asText());
  }

  @Test
  void ignoresJsonThatIsNotSpans() {
    ArrayNode out = ShopServer.JSON.createArrayNode();
    SpanExport.addFromLine("{\"status\":\"UP\"}", out);
    SpanExport.addFromLine("OtlpJsonLoggingSpanExporter - not json", out);
    assertEquals(0, out.size());
  }
}
