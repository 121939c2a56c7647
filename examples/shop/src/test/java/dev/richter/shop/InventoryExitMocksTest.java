package dev.richter.shop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.richter.sdk.ExitMocks;
import dev.richter.sdk.ExitMocksConfig;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** inventory with Richter exit mocks (what {@code SHOP_MOCKS_URL} wires): marked calls never reach payment. */
class InventoryExitMocksTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String MOCKS = """
      {"mocks":[{"exit":"payment POST /charge","status":200,"body":"{\\"chargeId\\":\\"mock-ch-1\\"}","latencyMs":30}]}""";

  private HttpServer config;
  private PaymentService payment;
  private InventoryService inventory;

  @BeforeEach
  void start() throws Exception {
    config = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    config.createContext("/mocks", ex -> {
      byte[] b = MOCKS.getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, b.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(b);
      }
    });
    config.start();
    Settings settings = Settings.defaults();
    payment = new PaymentService(0, settings).start();
    ExitMocks mocks = ExitMocks.start(ExitMocksConfig.of(
        URI.create("http://127.0.0.1:" + config.getAddress().getPort() + "/mocks")));
    inventory = new InventoryService(0, "http://127.0.0.1:" + payment.port(), 1250, settings, mocks).start();
  }

  @AfterEach
  void stop() {
    inventory.close();
    payment.close();
    config.stop(0);
  }

  private static JsonNode post(int port, String path, String body, String baggage) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString(body));
    if (baggage != null) {
      b.header("baggage", baggage);
    }
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    return ShopServer.JSON.readTree(r.body());
  }

  private JsonNode charges() throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + payment.port() + "/admin/charges")).build(), HttpResponse.BodyHandlers.ofString());
    return ShopServer.JSON.readTree(r.body());
  }

  @Test
  void markedReservationIsAnsweredByTheMockAndUnmarkedOneChargesForReal() throws Exception {
    String body = "{\"orderId\":\"o-1\",\"sku\":\"A1\",\"qty\":1}";
    JsonNode marked = post(inventory.port(), "/reserve", body, "richter-loadtest=1");
    assertEquals("mock-ch-1", marked.path("chargeId").asText());
    assertEquals(0, charges().path("charges").asInt(), "the marked call never reached payment");

    JsonNode real = post(inventory.port(), "/reserve", body, null);
    assertTrue(!real.path("chargeId").asText().equals("mock-ch-1") && !real.path("chargeId").asText().isEmpty(),
        real.toString());
    assertEquals(1, charges().path("charges").asInt());
  }
}
