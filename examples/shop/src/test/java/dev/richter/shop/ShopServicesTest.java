package dev.richter.shop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The three services in-process on free ports, without the OpenTelemetry agent. Without the agent
 * nothing propagates baggage downstream, so marking is checked per service, by calling each directly.
 */
class ShopServicesTest {

  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String MARK = "richter-loadtest=1";

  private PaymentService payment;
  private InventoryService inventory;
  private OrderService order;

  record Reply(int status, JsonNode json, String text) {}

  @BeforeEach
  void start() throws Exception {
    startWith(Settings.defaults());
  }

  private void startWith(Settings settings) throws Exception {
    payment = new PaymentService(0, settings).start();
    inventory = new InventoryService(0, "http://127.0.0.1:" + payment.port(), 1250, settings).start();
    order = new OrderService(0, "http://127.0.0.1:" + inventory.port(), settings).start();
  }

  @AfterEach
  void stop() {
    order.close();
    inventory.close();
    payment.close();
  }

  private static Reply call(String method, int port, String path, String body, String baggage) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (baggage != null) {
      b.header("baggage", baggage);
    }
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    JsonNode json;
    try {
      json = ShopServer.JSON.readTree(r.body());
    } catch (Exception e) {
      json = ShopServer.JSON.missingNode();
    }
    return new Reply(r.statusCode(), json, r.body());
  }

  private static JsonNode stores(int port) throws Exception {
    return call("GET", port, "/admin/stores", null, null).json();
  }

  @Test
  void unmarkedOrderFlowsThroughAllThreeServicesIntoProduction() throws Exception {
    Reply created = call("POST", order.port(), "/orders", "{\"sku\":\"A1\",\"qty\":2}", null);
    assertEquals(201, created.status(), created.text());
    String orderId = created.json().path("orderId").asText();
    assertTrue(orderId.startsWith("ord-"));

    Reply got = call("GET", order.port(), "/orders/" + orderId, null, null);
    assertEquals(200, got.status());
    assertEquals("A1", got.json().path("sku").asText());
    assertEquals(2, got.json().path("qty").asInt());
    assertEquals(404, call("GET", order.port(), "/orders/" + orderId, null, MARK).status(),
        "marked reads see only the shadow store");

    assertEquals(1, stores(order.port()).path("production").asInt());
    assertEquals(0, stores(order.port()).path("shadow").asInt());
    assertEquals(1, stores(inventory.port()).path("production").asInt());
    JsonNode charges = call("GET", payment.port(), "/admin/charges", null, null).json();
    assertEquals(1, charges.path("charges").asInt());
    assertEquals(0, charges.path("marked").asInt());
  }

  @Test
  void markedWritesGoOnlyToTheShadowStore() throws Exception {
    assertEquals(201, call("POST", order.port(), "/orders", "{\"sku\":\"A1\",\"qty\":1}", "a=b, " + MARK).status());
    assertEquals(200, call("POST", inventory.port(), "/reserve", "{\"sku\":\"A1\",\"qty\":1}", MARK + ";p").status());
    assertEquals(200, call("POST", payment.port(), "/charge", "{\"reservationId\":\"r\",\"amountCents\":5}", MARK).status());

    assertEquals(0, stores(order.port()).path("production").asInt());
    assertEquals(1, stores(order.port()).path("shadow").asInt());
    // inventory: 1 marked direct call -> shadow; the order's call carried no baggage (no agent) -> production
    assertEquals(1, stores(inventory.port()).path("shadow").asInt());
    assertEquals(1, stores(inventory.port()).path("production").asInt());
    assertEquals(1, call("GET", payment.port(), "/admin/charges", null, null).json().path("marked").asInt());
  }

  @Test
  void badInputsGetClientErrors() throws Exception {
    assertEquals(400, call("POST", order.port(), "/orders", "not json", null).status());
    assertEquals(400, call("POST", order.port(), "/orders", "{\"sku\":\"A1\",\"qty\":0}", null).status());
    assertEquals(400, call("POST", order.port(), "/orders", "{\"sku\":\"\",\"qty\":1}", null).status());
    assertEquals(405, call("DELETE", order.port(), "/orders", null, null).status());
    assertEquals(404, call("GET", order.port(), "/nothing", null, null).status());
    assertEquals(404, call("GET", order.port(), "/orders/", null, null).status());
    assertEquals(0, stores(order.port()).path("production").asInt());
  }

  @Test
  void healthAndPrometheusLookLikeSpringBootActuator() throws Exception {
    for (int port : new int[] {order.port(), inventory.port(), payment.port()}) {
      Reply health = call("GET", port, "/actuator/health", null, null);
      assertEquals(200, health.status());
      assertEquals("UP", health.json().path("status").asText());
      assertEquals("UP", health.json().at("/components/diskSpace/status").asText());
      assertTrue(health.json().at("/components/diskSpace/details/free").asLong() > 0);
      String metrics = call("GET", port, "/actuator/prometheus", null, null).text();
      for (String name : new String[] {"jvm_memory_used_bytes{area=\"heap\"} ", "jvm_memory_max_bytes{area=\"heap\"} ",
          "http_server_requests_active ", "shop_pool_connections_active ", "shop_pool_connections_max 4"}) {
        assertTrue(metrics.contains("\n" + name), name + " missing in:\n" + metrics);
      }
    }
    assertEquals("UP", call("GET", order.port(), "/actuator/health", null, null)
        .json().at("/components/shadowStore/status").asText());
    assertTrue(call("GET", payment.port(), "/actuator/health", null, null)
        .json().at("/components/shadowStore").isMissingNode(), "payment is an exit: no shadow store");
  }

  @Test
  void shadowStoreDownRefusesMarkedWritesAndNeverFallsBackToProduction() throws Exception {
    stop();
    Settings d = Settings.defaults();
    startWith(new Settings(d.bindHost(), d.threads(), d.poolSize(), d.poolTimeoutMs(), d.storeLatencyMs(),
        d.downstreamTimeout(), false, false, false, d.marker()));

    Reply health = call("GET", inventory.port(), "/actuator/health", null, null);
    assertEquals(503, health.status());
    assertEquals("DOWN", health.json().path("status").asText());
    assertEquals(503, call("POST", inventory.port(), "/reserve", "{\"sku\":\"A1\",\"qty\":1}", MARK).status());
    assertEquals(200, call("POST", inventory.port(), "/reserve", "{\"sku\":\"A1\",\"qty\":1}", null).status());
    assertEquals(1, stores(inventory.port()).path("production").asInt());
    assertEquals(0, stores(inventory.port()).path("shadow").asInt());
  }
}
