package dev.richter.shop;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.Map;
import java.util.UUID;

/**
 * The {@code inventory} service, default port 18082.
 *
 * <p>{@code POST /reserve} {@code {"orderId":...,"sku":"A1","qty":1}} → writes a reservation (shadow
 * store if marked), then calls the external payment exit {@code POST /charge} → 200
 * {@code {"reservationId":...,"chargeId":...}}; 400 on a bad body, 502 if payment fails, 503 if the
 * pool or the shadow store is unavailable.
 *
 * <p>With {@code SHOP_BREAK_ASYNC_MARKER=1} the payment call runs detached from the request's
 * OpenTelemetry context (see {@link Downstream}): payment sees neither the trace nor the marker.
 *
 * <p>Env: {@code SHOP_INVENTORY_PORT} (18082), {@code SHOP_PAYMENT_URL} (http://127.0.0.1:18083),
 * {@code SHOP_UNIT_PRICE_CENTS} (1250), and {@link Settings}.
 */
public final class InventoryService implements AutoCloseable {

  /** A stored reservation; {@code createdAtMs} is epoch milliseconds. */
  record Reservation(String reservationId, String orderId, String sku, int qty, long createdAtMs) {}

  private final ShopServer server;
  private final ShadowedStore<Reservation> reservations;
  private final ConnectionPool pool;
  private final Downstream payment;
  private final String paymentUrl;
  private final long unitPriceCents;

  /**
   * Binds the service (call {@link #start()}).
   *
   * @param port TCP port, 0 for any free one
   * @param paymentUrl base URL of payment, without trailing slash
   * @param unitPriceCents price of one item, in cents (charged amount = qty × price)
   * @throws IOException if the port cannot be bound
   */
  InventoryService(int port, String paymentUrl, long unitPriceCents, Settings settings) throws IOException {
    this.paymentUrl = paymentUrl;
    this.unitPriceCents = unitPriceCents;
    this.pool = settings.newPool();
    this.reservations = new ShadowedStore<>(settings.shadowStoreUp());
    this.payment = new Downstream(settings.downstreamTimeout(),
        settings.breakAsyncMarker() ? settings.threads() : 0, "inventory");
    this.server = new ShopServer("inventory", settings.bindHost(), port, settings.threads(), pool, settings.marker());
    server.store(reservations);
    server.route("POST", "/reserve", true, this::reserve);
    if (payment.detached()) {
      System.out.println("inventory: SHOP_BREAK_ASYNC_MARKER=1, payment calls lose the trace context and marker");
    }
  }

  InventoryService start() {
    server.start();
    return this;
  }

  int port() {
    return server.port();
  }

  private ShopServer.Response reserve(ShopServer.Request req) throws Exception {
    JsonNode body = req.json();
    String sku = body.path("sku").asText("");
    int qty = body.path("qty").asInt(0);
    if (sku.isBlank() || qty < 1) {
      throw new ShopServer.BadRequestException("need {\"sku\": non-empty string, \"qty\": integer >= 1}");
    }
    String reservationId = "res-" + UUID.randomUUID();
    Reservation reservation = new Reservation(reservationId, body.path("orderId").asText(""), sku, qty,
        System.currentTimeMillis());
    pool.withConnection(() -> {
      reservations.put(reservationId, reservation, req.marked());
      return null;
    });
    Downstream.Answer charged = payment.postJson(paymentUrl + "/charge",
        Map.of("reservationId", reservationId, "amountCents", qty * unitPriceCents, "currency", "EUR"));
    if (!charged.ok()) {
      throw new ShopServer.BadGatewayException("payment answered " + charged.status() + ": " + charged.body());
    }
    return new ShopServer.Response(200, Map.of(
        "reservationId", reservationId, "chargeId", charged.body().path("chargeId").asText("")));
  }

  @Override
  public void close() {
    server.close();
  }

  /** Runs the service until the process is killed. */
  public static void main(String[] args) throws IOException {
    Settings settings = Settings.fromEnv();
    InventoryService service = new InventoryService(Env.integer("SHOP_INVENTORY_PORT", 18082),
        Env.str("SHOP_PAYMENT_URL", "http://127.0.0.1:18083"), Env.integer("SHOP_UNIT_PRICE_CENTS", 1250),
        settings).start();
    Runtime.getRuntime().addShutdownHook(new Thread(service::close));
  }
}
