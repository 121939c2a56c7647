package dev.richter.shop;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.Map;
import java.util.UUID;

/**
 * The {@code order} service (entry of the demo link), default port 18081.
 *
 * <ul>
 *   <li>{@code POST /orders} {@code {"sku":"A1","qty":1}} → calls inventory {@code POST /reserve}, stores
 *       the order (shadow store if marked) → 201 {@code {"orderId":...,"reservationId":...,"status":"CREATED"}};
 *       400 on a bad body, 502 if inventory fails, 503 if the pool or the shadow store is unavailable.
 *   <li>{@code GET /orders/{id}} → 200 the order, 404 if absent (marked requests only see shadow orders).
 * </ul>
 *
 * Env: {@code SHOP_ORDER_PORT} (18081), {@code SHOP_INVENTORY_URL} (http://127.0.0.1:18082), and {@link Settings}.
 */
public final class OrderService implements AutoCloseable {

  /** A stored order; {@code createdAtMs} is epoch milliseconds. */
  record Order(String orderId, String sku, int qty, String reservationId, String status, long createdAtMs) {}

  private final ShopServer server;
  private final ShadowedStore<Order> orders;
  private final ConnectionPool pool;
  private final Downstream downstream;
  private final String inventoryUrl;

  /**
   * Binds the service (call {@link #start()}).
   *
   * @param port TCP port, 0 for any free one
   * @param inventoryUrl base URL of inventory, without trailing slash
   * @throws IOException if the port cannot be bound
   */
  OrderService(int port, String inventoryUrl, Settings settings) throws IOException {
    this.inventoryUrl = inventoryUrl;
    this.pool = settings.newPool();
    this.orders = new ShadowedStore<>(settings.shadowStoreUp());
    this.downstream = new Downstream(settings.downstreamTimeout(), 0, "order");
    this.server = new ShopServer("order", settings.bindHost(), port, settings.threads(), pool, settings.marker());
    server.store(orders);
    server.route("POST", "/orders", true, this::create);
    server.route("GET", "/orders", false, this::get);
  }

  OrderService start() {
    server.start();
    return this;
  }

  int port() {
    return server.port();
  }

  private ShopServer.Response create(ShopServer.Request req) throws Exception {
    JsonNode body = req.json();
    String sku = body.path("sku").asText("");
    int qty = body.path("qty").asInt(0);
    if (sku.isBlank() || !body.path("qty").isIntegralNumber() || qty < 1 || qty > 1000) {
      throw new ShopServer.BadRequestException("need {\"sku\": non-empty string, \"qty\": integer 1..1000}");
    }
    String orderId = "ord-" + UUID.randomUUID();
    Downstream.Answer reserved = downstream.postJson(inventoryUrl + "/reserve",
        Map.of("orderId", orderId, "sku", sku, "qty", qty));
    if (!reserved.ok()) {
      throw new ShopServer.BadGatewayException("inventory answered " + reserved.status() + ": " + reserved.body());
    }
    Order order = new Order(orderId, sku, qty, reserved.body().path("reservationId").asText(""), "CREATED",
        System.currentTimeMillis());
    pool.withConnection(() -> {
      orders.put(orderId, order, req.marked());
      return null;
    });
    return new ShopServer.Response(201, Map.of(
        "orderId", orderId, "reservationId", order.reservationId(), "status", order.status()));
  }

  private ShopServer.Response get(ShopServer.Request req) throws Exception {
    String id = req.path().substring("/orders".length());
    if (id.length() <= 1 || id.indexOf('/', 1) >= 0) {
      return ShopServer.error(404, "no route for " + req.path());
    }
    String orderId = id.substring(1);
    return pool.withConnection(() -> orders.get(orderId, req.marked()))
        .map(o -> new ShopServer.Response(200, o))
        .orElseGet(() -> ShopServer.error(404, "no order " + orderId));
  }

  @Override
  public void close() {
    server.close();
  }

  /** Runs the service until the process is killed. */
  public static void main(String[] args) throws IOException {
    Settings settings = Settings.fromEnv();
    OrderService service = new OrderService(Env.integer("SHOP_ORDER_PORT", 18081),
        Env.str("SHOP_INVENTORY_URL", "http://127.0.0.1:18082"), settings).start();
    Runtime.getRuntime().addShutdownHook(new Thread(service::close));
  }
}
