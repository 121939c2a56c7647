package dev.richter.shop;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@code payment} service, default port 18083: the demo's external exit (outside the test
 * scope, so it has no shadow store — a marked call that reaches it is a real charge, which is why
 * Richter must mock this exit for marked traffic).
 *
 * <ul>
 *   <li>{@code POST /charge} {@code {"reservationId":...,"amountCents":1250}} → 200 {@code {"chargeId":...}};
 *       400 on a bad body, 503 if the pool is exhausted.
 *   <li>{@code GET /admin/charges} → {@code {"charges":N,"marked":M}}: charges made, and how many of them
 *       arrived with the marker in their baggage (proves whether the marker crossed the exit).
 * </ul>
 *
 * <p>{@code SHOP_REAL_PAYMENT=1} is a placeholder meaning "payment is called for real even for marked
 * traffic"; today every variant of the shop does that, the flag only labels the run.
 *
 * <p>Env: {@code SHOP_PAYMENT_PORT} (18083), and {@link Settings}.
 */
public final class PaymentService implements AutoCloseable {

  private final ShopServer server;
  private final ConnectionPool pool;
  private final AtomicLong charges = new AtomicLong();
  private final AtomicLong markedCharges = new AtomicLong();

  /**
   * Binds the service (call {@link #start()}).
   *
   * @param port TCP port, 0 for any free one
   * @throws IOException if the port cannot be bound
   */
  PaymentService(int port, Settings settings) throws IOException {
    this.pool = settings.newPool();
    this.server = new ShopServer("payment", settings.bindHost(), port, settings.threads(), pool, settings.marker());
    server.route("POST", "/charge", true, this::charge);
    server.route("GET", "/admin/charges", true, req -> new ShopServer.Response(200,
        Map.of("charges", charges.get(), "marked", markedCharges.get())));
    if (settings.realPayment()) {
      System.out.println("payment: SHOP_REAL_PAYMENT=1, marked traffic is charged for real (as always today)");
    }
  }

  PaymentService start() {
    server.start();
    return this;
  }

  int port() {
    return server.port();
  }

  private ShopServer.Response charge(ShopServer.Request req) throws Exception {
    JsonNode body = req.json();
    if (body.path("reservationId").asText("").isBlank() || body.path("amountCents").asLong(-1) < 0) {
      throw new ShopServer.BadRequestException("need {\"reservationId\": string, \"amountCents\": integer >= 0}");
    }
    String chargeId = pool.withConnection(() -> {
      charges.incrementAndGet();
      if (req.marked()) {
        markedCharges.incrementAndGet();
      }
      return "ch-" + UUID.randomUUID();
    });
    return new ShopServer.Response(200, Map.of("chargeId", chargeId));
  }

  @Override
  public void close() {
    server.close();
  }

  /** Runs the service until the process is killed. */
  public static void main(String[] args) throws IOException {
    PaymentService service = new PaymentService(Env.integer("SHOP_PAYMENT_PORT", 18083), Settings.fromEnv()).start();
    Runtime.getRuntime().addShutdownHook(new Thread(service::close));
  }
}
