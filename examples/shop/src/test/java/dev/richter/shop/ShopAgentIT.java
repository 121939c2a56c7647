package dev.richter.shop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * End to end with the real OpenTelemetry agent: {@code shop.sh start} on ports 28081-28083 (run dir
 * {@code target/run-it}), one marked and one unmarked order, then the exported spans are read back
 * with {@link SpanExport}. Needs {@code mvn package} first (failsafe runs it in {@code verify}).
 */
class ShopAgentIT {

  private static final Path SHOP_DIR = Path.of("").toAbsolutePath();
  private static final Path RUN_DIR = SHOP_DIR.resolve("target/run-it");
  private static final int ORDER = 28081;
  private static final int INVENTORY = 28082;
  private static final int PAYMENT = 28083;
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String MARKER_KEY = "richter-loadtest";

  /** One exported span, flattened. */
  record Span(String service, int kind, String name, String traceId, String spanId, String parentSpanId,
      Map<String, String> attributes) {
    static final int SERVER = 2;
    static final int CLIENT = 3;

    Optional<String> marker() {
      return Optional.ofNullable(attributes.get(MARKER_KEY));
    }
  }

  private int shop(String command, Map<String, String> extraEnv) throws Exception {
    ProcessBuilder pb = new ProcessBuilder("bash", SHOP_DIR.resolve("shop.sh").toString(), command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.INHERIT);
    Map<String, String> env = pb.environment();
    env.put("SHOP_ORDER_PORT", String.valueOf(ORDER));
    env.put("SHOP_INVENTORY_PORT", String.valueOf(INVENTORY));
    env.put("SHOP_PAYMENT_PORT", String.valueOf(PAYMENT));
    env.put("SHOP_RUN_DIR", RUN_DIR.toString());
    env.put("SHOP_NO_BUILD", "1");
    env.putIfAbsent("JAVA_HOME", System.getProperty("java.home"));
    env.putAll(extraEnv);
    return pb.start().waitFor();
  }

  @AfterEach
  void stopShop() throws Exception {
    shop("stop", Map.of());
  }

  private static JsonNode post(int port, String path, String body, String baggage) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString(body));
    if (baggage != null) {
      b.header("baggage", baggage);
    }
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(201, r.statusCode(), r.body());
    return ShopServer.JSON.readTree(r.body());
  }

  private static JsonNode get(int port, String path) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
    return ShopServer.JSON.readTree(r.body());
  }

  /** All spans exported so far by the three services. */
  private static List<Span> spans() throws IOException {
    JsonNode doc = SpanExport.collect(List.of(RUN_DIR.resolve("order.log"), RUN_DIR.resolve("inventory.log"),
        RUN_DIR.resolve("payment.log")));
    List<Span> out = new ArrayList<>();
    for (JsonNode rs : doc.path("resourceSpans")) {
      String service = "";
      for (JsonNode a : rs.at("/resource/attributes")) {
        if (a.path("key").asText().equals("service.name")) {
          service = a.at("/value/stringValue").asText();
        }
      }
      for (JsonNode ss : rs.path("scopeSpans")) {
        for (JsonNode s : ss.path("spans")) {
          Map<String, String> attrs = new HashMap<>();
          for (JsonNode a : s.path("attributes")) {
            JsonNode v = a.path("value");
            attrs.put(a.path("key").asText(), v.has("stringValue") ? v.path("stringValue").asText() : v.toString());
          }
          out.add(new Span(service, s.path("kind").asInt(), s.path("name").asText(), s.path("traceId").asText(),
              s.path("spanId").asText(), s.path("parentSpanId").asText(""), attrs));
        }
      }
    }
    return out;
  }

  /**
   * Polls the logs until {@code count} spans of POST requests (server and client, all services) are
   * exported, or 15 s pass; the batch processor exports every 500 ms, each service on its own.
   */
  private static List<Span> awaitPostSpans(int count) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (true) {
      List<Span> all = spans();
      long n = all.stream().filter(s -> s.name().startsWith("POST")).count();
      if (n >= count || System.nanoTime() > deadline) {
        return all;
      }
      Thread.sleep(200);
    }
  }

  /** The spans of one trace ordered from the root down, following parent ids; fails if not a chain. */
  private static List<Span> chain(List<Span> all, String traceId) {
    Map<String, Span> byParent = all.stream().filter(s -> s.traceId().equals(traceId))
        .collect(Collectors.toMap(Span::parentSpanId, s -> s));
    List<Span> out = new ArrayList<>();
    Span cur = byParent.get("");
    while (cur != null) {
      out.add(cur);
      cur = byParent.get(cur.spanId());
    }
    assertEquals(all.stream().filter(s -> s.traceId().equals(traceId)).count(), out.size(),
        "trace " + traceId + " is one parent-linked chain");
    return out;
  }

  private static List<String> shape(List<Span> chain) {
    return chain.stream().map(s -> s.service() + " " + (s.kind() == Span.SERVER ? "SERVER" : s.kind() == Span.CLIENT
        ? "CLIENT" : String.valueOf(s.kind()))).toList();
  }

  private static Span orderEntry(List<Span> all, boolean marked) {
    return all.stream()
        .filter(s -> s.service().equals("order") && s.kind() == Span.SERVER && s.name().equals("POST /orders"))
        .filter(s -> s.marker().isPresent() == marked)
        .findFirst().orElseThrow(() -> new AssertionError("no " + (marked ? "marked" : "unmarked") + " order span"));
  }

  @Test
  void markerTravelsTheWholeLinkAndMarkedWritesStayInShadow() throws Exception {
    assertEquals(0, shop("start", Map.of()), "shop.sh start");
    post(ORDER, "/orders", "{\"sku\":\"A1\",\"qty\":1}", "richter-loadtest=1");
    post(ORDER, "/orders", "{\"sku\":\"A1\",\"qty\":1}", null);

    assertEquals(1, get(ORDER, "/admin/stores").path("production").asInt());
    assertEquals(1, get(ORDER, "/admin/stores").path("shadow").asInt());
    assertEquals(1, get(INVENTORY, "/admin/stores").path("production").asInt());
    assertEquals(1, get(INVENTORY, "/admin/stores").path("shadow").asInt());
    assertEquals(1, get(PAYMENT, "/admin/charges").path("marked").asInt());

    List<Span> all = awaitPostSpans(10);
    List<String> expected = List.of("order SERVER", "order CLIENT", "inventory SERVER", "inventory CLIENT",
        "payment SERVER");
    List<Span> marked = chain(all, orderEntry(all, true).traceId());
    assertEquals(expected, shape(marked));
    marked.forEach(s -> assertEquals(Optional.of("1"), s.marker(), s.toString()));
    List<Span> unmarked = chain(all, orderEntry(all, false).traceId());
    assertEquals(expected, shape(unmarked));
    unmarked.forEach(s -> assertTrue(s.marker().isEmpty(), s.toString()));
  }

  @Test
  void breakAsyncMarkerLosesTheMarkerOnTheInventoryToPaymentHop() throws Exception {
    assertEquals(0, shop("start", Map.of("SHOP_BREAK_ASYNC_MARKER", "1")), "shop.sh start");
    post(ORDER, "/orders", "{\"sku\":\"A1\",\"qty\":1}", "richter-loadtest=1");
    assertEquals(1, get(INVENTORY, "/admin/stores").path("shadow").asInt());
    assertEquals(1, get(PAYMENT, "/admin/charges").path("charges").asInt());
    assertEquals(0, get(PAYMENT, "/admin/charges").path("marked").asInt());

    List<Span> all = awaitPostSpans(5);
    Span entry = orderEntry(all, true);
    List<Span> marked = chain(all, entry.traceId());
    assertEquals(List.of("order SERVER", "order CLIENT", "inventory SERVER"), shape(marked));
    marked.forEach(s -> assertEquals(Optional.of("1"), s.marker(), s.toString()));
    Span charge = all.stream().filter(s -> s.name().equals("POST /charge")).findFirst().orElseThrow();
    assertNotEquals(entry.traceId(), charge.traceId(), "the detached hop starts a new trace");
    assertEquals(List.of("inventory CLIENT", "payment SERVER"), shape(chain(all, charge.traceId())));
    chain(all, charge.traceId()).forEach(s -> assertTrue(s.marker().isEmpty(), s.toString()));
  }

  static {
    try {
      Files.createDirectories(RUN_DIR);
    } catch (IOException e) {
      throw new ExceptionInInitializerError(e);
    }
  }
}
