package dev.richter.shop;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.sdk.ExitMocks;
import dev.richter.sdk.ExitMocksConfig;
import dev.richter.sdk.Marked;
import dev.richter.sdk.MockResponse;
import io.opentelemetry.api.trace.Span;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
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
 * <p>With {@code SHOP_MOCKS_URL} set, a marked request's payment call first consults Richter's
 * {@link ExitMocks} (exit id {@value #PAYMENT_EXIT}, configuration fetched from that URL): when a mock is
 * configured, payment is not called; the mock's status and body (JSON, {@code chargeId}) answer after its
 * simulated latency, and the inventory SERVER span gets {@code richter.mock=true} and
 * {@code richter.mock.exit=payment POST /charge}. Unmarked requests always call payment.
 *
 * <p>Env: {@code SHOP_INVENTORY_PORT} (18082), {@code SHOP_PAYMENT_URL} (http://127.0.0.1:18083),
 * {@code SHOP_UNIT_PRICE_CENTS} (1250), {@code SHOP_MOCKS_URL} (unset: no mocks),
 * {@code SHOP_MOCKS_REFRESH_MS} (30000), {@code SHOP_MOCKS_TOKEN} (a JWT of the team, sent as
 * {@code Authorization: Bearer <token>} with each fetch; unset: none), and {@link Settings}.
 */
public final class InventoryService implements AutoCloseable {

  /** Richter exit id of the payment call (interface node of payment's SERVER span). */
  static final String PAYMENT_EXIT = "payment POST /charge";

  /** A stored reservation; {@code createdAtMs} is epoch milliseconds. */
  record Reservation(String reservationId, String orderId, String sku, int qty, long createdAtMs) {}

  private final ShopServer server;
  private final ShadowedStore<Reservation> reservations;
  private final ConnectionPool pool;
  private final Downstream payment;
  private final String paymentUrl;
  private final long unitPriceCents;
  /** Exit mocks for marked traffic; null when {@code SHOP_MOCKS_URL} is unset. */
  private final ExitMocks mocks;

  /**
   * Binds the service (call {@link #start()}).
   *
   * @param port TCP port, 0 for any free one
   * @param paymentUrl base URL of payment, without trailing slash
   * @param unitPriceCents price of one item, in cents (charged amount = qty × price)
   * @throws IOException if the port cannot be bound
   */
  InventoryService(int port, String paymentUrl, long unitPriceCents, Settings settings) throws IOException {
    this(port, paymentUrl, unitPriceCents, settings, null);
  }

  /**
   * As above, with exit mocks for marked traffic.
   *
   * @param mocks Richter exit mocks consulted before the payment call, or null for none
   */
  InventoryService(int port, String paymentUrl, long unitPriceCents, Settings settings, ExitMocks mocks)
      throws IOException {
    this.mocks = mocks;
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
    Optional<MockResponse> mock = mocks == null
        ? Optional.empty() : mocks.forExit(PAYMENT_EXIT, Marked.of(req.marked()));
    Downstream.Answer charged;
    if (mock.isPresent()) {
      Span.current().setAttribute(ExitMocks.MOCK_ATTRIBUTE, ExitMocks.MOCK_ATTRIBUTE_VALUE);
      Span.current().setAttribute(ExitMocks.MOCK_EXIT_ATTRIBUTE, PAYMENT_EXIT);
      JsonNode mocked = ShopServer.JSON.missingNode();
      try {
        mocked = ShopServer.JSON.readTree(mock.get().body());
      } catch (IOException notJson) {
        // keep the missing node: chargeId is then ""
      }
      charged = new Downstream.Answer(mock.get().status(), mocked == null ? ShopServer.JSON.missingNode() : mocked);
    } else {
      charged = payment.postJson(paymentUrl + "/charge",
          Map.of("reservationId", reservationId, "amountCents", qty * unitPriceCents, "currency", "EUR"));
    }
    if (!charged.ok()) {
      throw new ShopServer.BadGatewayException("payment answered " + charged.status() + ": " + charged.body());
    }
    return new ShopServer.Response(200, Map.of(
        "reservationId", reservationId, "chargeId", charged.body().path("chargeId").asText("")));
  }

  @Override
  public void close() {
    server.close();
    if (mocks != null) {
      mocks.close();
    }
  }

  /** Runs the service until the process is killed. */
  public static void main(String[] args) throws IOException {
    Settings settings = Settings.fromEnv();
    String mocksUrl = Env.str("SHOP_MOCKS_URL", "");
    ExitMocks mocks = null;
    if (!mocksUrl.isBlank()) {
      mocks = ExitMocks.start(ExitMocksConfig.of(URI.create(mocksUrl))
          .withRefreshInterval(Duration.ofMillis(Env.integer("SHOP_MOCKS_REFRESH_MS", 30_000)))
          .withMarker(settings.marker().key(), settings.marker().value())
          .withAuthorization(Env.str("SHOP_MOCKS_TOKEN", "").isBlank() ? "" : "Bearer " + Env.str("SHOP_MOCKS_TOKEN", "")));
      System.out.println("inventory: exit mocks from " + mocksUrl + ": " + mocks.state());
    }
    InventoryService service = new InventoryService(Env.integer("SHOP_INVENTORY_PORT", 18082),
        Env.str("SHOP_PAYMENT_URL", "http://127.0.0.1:18083"), Env.integer("SHOP_UNIT_PRICE_CENTS", 1250),
        settings, mocks).start();
    Runtime.getRuntime().addShutdownHook(new Thread(service::close));
  }
}
