package dev.richter.shop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * One shop service process: a JDK {@link HttpServer} on a fixed thread pool serving the service's
 * own routes plus the common endpoints every service has:
 *
 * <ul>
 *   <li>{@code GET /actuator/health} — Spring Boot Actuator health JSON (200 UP / 503 DOWN);
 *   <li>{@code GET /actuator/prometheus} — Prometheus text format 0.0.4;
 *   <li>{@code GET /admin/stores} — {@code {"production":N,"shadow":M}} (services with a store).
 * </ul>
 *
 * Every request is classified as marked or not from its {@code baggage} header ({@link Marker});
 * handlers get that flag in {@link Request#marked()}.
 */
final class ShopServer implements AutoCloseable {

  /** Shared JSON mapper (thread-safe once configured). */
  static final ObjectMapper JSON = new ObjectMapper();

  /** Free-disk threshold below which diskSpace is DOWN, in bytes (Spring Boot's default, 10 MiB). */
  static final long DISK_THRESHOLD_BYTES = 10L * 1024 * 1024;

  /**
   * One parsed request.
   *
   * @param method HTTP method, upper case
   * @param path request path without query, e.g. {@code /orders/ord-1}
   * @param headers request headers (case-insensitive)
   * @param body the request body bytes (empty if none)
   * @param marked whether the request carries the load-test marker in its baggage
   */
  record Request(String method, String path, Headers headers, byte[] body, boolean marked) {

    /** The body parsed as JSON. @throws BadRequestException if it is not a JSON object */
    JsonNode json() {
      try {
        JsonNode node = JSON.readTree(body);
        if (node == null || !node.isObject()) {
          throw new BadRequestException("body must be a JSON object");
        }
        return node;
      } catch (IOException e) {
        throw new BadRequestException("body is not valid JSON");
      }
    }
  }

  /**
   * One response.
   *
   * @param status HTTP status code
   * @param body a value serialised as JSON, or a {@link String} sent as text/plain
   */
  record Response(int status, Object body) {}

  /** A route handler. */
  @FunctionalInterface
  interface Handler {
    Response handle(Request request) throws Exception;
  }

  /** Thrown by handlers for a client error; mapped to 400 {@code {"error":...}}. */
  static final class BadRequestException extends RuntimeException {
    BadRequestException(String message) {
      super(message);
    }
  }

  /** Thrown when a downstream call fails; mapped to 502 {@code {"error":...}}. */
  static final class BadGatewayException extends RuntimeException {
    BadGatewayException(String message) {
      super(message);
    }
  }

  private record Route(String method, String pathPrefix, boolean exact, Handler handler) {
    boolean matches(String path) {
      return exact ? path.equals(pathPrefix) : path.equals(pathPrefix) || path.startsWith(pathPrefix + "/");
    }
  }

  private final String serviceName;
  private final Marker marker;
  private final HttpServer server;
  private final ThreadPoolExecutor executor;
  private final ConnectionPool pool;
  private final List<Route> routes = new ArrayList<>();
  private final AtomicInteger activeRequests = new AtomicInteger();
  private final AtomicLong markedRequests = new AtomicLong();
  private final AtomicLong unmarkedRequests = new AtomicLong();
  private final long startNanos = System.nanoTime();
  private volatile Supplier<ShadowedStore<?>> store = () -> null;

  /**
   * Binds the server (not yet started).
   *
   * @param serviceName e.g. {@code order}; used in logs
   * @param bindHost address to bind, e.g. {@code 127.0.0.1}
   * @param port TCP port; 0 picks a free one (see {@link #port()})
   * @param threads request-handling threads (the HttpServer executor size)
   * @param pool the service's simulated datastore pool (for the pool metrics)
   * @param marker the load-test marker to recognise
   * @throws IOException if the port cannot be bound
   */
  ShopServer(String serviceName, String bindHost, int port, int threads, ConnectionPool pool, Marker marker)
      throws IOException {
    this.serviceName = serviceName;
    this.marker = marker;
    this.pool = pool;
    this.server = HttpServer.create(new InetSocketAddress(bindHost, port), 512);
    AtomicInteger threadNo = new AtomicInteger();
    this.executor = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
        r -> {
          Thread t = new Thread(r, serviceName + "-http-" + threadNo.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    server.setExecutor(executor);
    route("GET", "/actuator/health", true, req -> health());
    route("GET", "/actuator/prometheus", true, req -> new Response(200, prometheus()));
  }

  /** Registers the store shown by {@code /admin/stores} and the shadowStore health component. */
  void store(ShadowedStore<?> shadowedStore) {
    this.store = () -> shadowedStore;
    route("GET", "/admin/stores", true, req -> new Response(200, Map.of(
        "production", shadowedStore.productionCount(), "shadow", shadowedStore.shadowCount())));
  }

  /**
   * Registers a route. One HttpServer context per path prefix, so the agent's server spans name
   * the route by its context path (e.g. {@code POST /orders}).
   *
   * @param exact true: only {@code path} matches; false: {@code path} and {@code path/...} match
   */
  void route(String method, String path, boolean exact, Handler handler) {
    boolean newContext = routes.stream().noneMatch(r -> r.pathPrefix().equals(path));
    routes.add(new Route(method, path, exact, handler));
    if (newContext) {
      server.createContext(path, this::dispatch);
    }
  }

  /** Starts serving. */
  void start() {
    server.start();
    System.out.printf("%s listening on %s (threads=%d, pool=%d)%n",
        serviceName, server.getAddress(), executor.getMaximumPoolSize(), pool.max());
  }

  /** The bound port. */
  int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  private void dispatch(HttpExchange exchange) throws IOException {
    activeRequests.incrementAndGet();
    try (exchange) {
      String method = exchange.getRequestMethod().toUpperCase();
      String path = exchange.getRequestURI().getPath();
      boolean marked = marker.isMarked(exchange.getRequestHeaders().get("baggage"));
      (marked ? markedRequests : unmarkedRequests).incrementAndGet();
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readAllBytes();
      }
      Response response = handle(new Request(method, path, exchange.getRequestHeaders(), body, marked));
      send(exchange, response);
    } finally {
      activeRequests.decrementAndGet();
    }
  }

  private Response handle(Request request) {
    List<Route> onPath = routes.stream().filter(r -> r.matches(request.path())).toList();
    if (onPath.isEmpty()) {
      return error(404, "no route for " + request.path());
    }
    Route route = onPath.stream().filter(r -> r.method().equals(request.method())).findFirst().orElse(null);
    if (route == null) {
      return error(405, request.method() + " not allowed on " + request.path());
    }
    try {
      return route.handler().handle(request);
    } catch (BadRequestException e) {
      return error(400, e.getMessage());
    } catch (BadGatewayException e) {
      return error(502, e.getMessage());
    } catch (ConnectionPool.PoolExhaustedException | ShadowedStore.ShadowUnavailableException e) {
      return error(503, e.getMessage());
    } catch (Exception e) {
      System.err.printf("%s: %s %s failed: %s%n", serviceName, request.method(), request.path(), e);
      return error(500, e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }

  static Response error(int status, String message) {
    return new Response(status, Map.of("error", message == null ? "" : message));
  }

  private static void send(HttpExchange exchange, Response response) throws IOException {
    byte[] bytes;
    String contentType;
    if (response.body() instanceof String text) {
      bytes = text.getBytes(StandardCharsets.UTF_8);
      contentType = "text/plain; version=0.0.4; charset=utf-8";
    } else {
      bytes = JSON.writeValueAsBytes(response.body());
      contentType = "application/json";
    }
    exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.sendResponseHeaders(response.status(), bytes.length == 0 ? -1 : bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /** Spring Boot Actuator health: components sorted by name, overall DOWN if any is DOWN (then 503). */
  private Response health() {
    ObjectNode components = JSON.createObjectNode();
    File dir = new File(".").getAbsoluteFile();
    long free = dir.getUsableSpace();
    ObjectNode disk = components.putObject("diskSpace");
    disk.put("status", free >= DISK_THRESHOLD_BYTES ? "UP" : "DOWN");
    ObjectNode details = disk.putObject("details");
    details.put("total", dir.getTotalSpace());
    details.put("free", free);
    details.put("threshold", DISK_THRESHOLD_BYTES);
    details.put("path", dir.getPath());
    details.put("exists", dir.exists());
    ShadowedStore<?> s = store.get();
    if (s != null) {
      ObjectNode shadow = components.putObject("shadowStore");
      shadow.put("status", s.shadowAvailable() ? "UP" : "DOWN");
      ObjectNode shadowDetails = shadow.putObject("details");
      shadowDetails.put("production", s.productionCount());
      shadowDetails.put("shadow", s.shadowCount());
    }
    boolean down = false;
    for (JsonNode c : components) {
      down |= "DOWN".equals(c.path("status").asText());
    }
    ObjectNode root = JSON.createObjectNode();
    root.put("status", down ? "DOWN" : "UP");
    root.set("components", components);
    return new Response(down ? 503 : 200, root);
  }

  /** Prometheus text exposition (format 0.0.4) of this process's metrics. */
  private String prometheus() {
    var heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    var nonHeap = ManagementFactory.getMemoryMXBean().getNonHeapMemoryUsage();
    PrometheusText p = new PrometheusText();
    p.family("jvm_memory_used_bytes", "gauge", "The amount of used memory, in bytes");
    p.sample("jvm_memory_used_bytes", "area=\"heap\"", heap.getUsed());
    p.sample("jvm_memory_used_bytes", "area=\"nonheap\"", nonHeap.getUsed());
    p.family("jvm_memory_max_bytes", "gauge", "The maximum amount of memory that can be used, in bytes (-1 if undefined)");
    p.sample("jvm_memory_max_bytes", "area=\"heap\"", heap.getMax());
    p.sample("jvm_memory_max_bytes", "area=\"nonheap\"", nonHeap.getMax());
    p.family("http_server_requests_active", "gauge", "HTTP requests being served right now");
    p.sample("http_server_requests_active", "", activeRequests.get());
    p.family("http_server_requests_total", "counter", "HTTP requests received, by load-test marking");
    p.sample("http_server_requests_total", "marked=\"true\"", markedRequests.get());
    p.sample("http_server_requests_total", "marked=\"false\"", unmarkedRequests.get());
    p.family("shop_pool_connections_active", "gauge", "Datastore pool connections in use");
    p.sample("shop_pool_connections_active", "", pool.active());
    p.family("shop_pool_connections_max", "gauge", "Datastore pool size");
    p.sample("shop_pool_connections_max", "", pool.max());
    p.family("shop_http_threads_active", "gauge", "Request-handling threads busy");
    p.sample("shop_http_threads_active", "", executor.getActiveCount());
    p.family("shop_http_threads_max", "gauge", "Request-handling thread pool size");
    p.sample("shop_http_threads_max", "", executor.getMaximumPoolSize());
    p.family("process_uptime_seconds", "gauge", "Time since the service started, in seconds");
    p.sample("process_uptime_seconds", "", (System.nanoTime() - startNanos) / 1e9);
    return p.toString();
  }

  /** Minimal builder of Prometheus text exposition lines. */
  static final class PrometheusText {
    private final StringBuilder out = new StringBuilder();

    void family(String name, String type, String help) {
      out.append("# HELP ").append(name).append(' ').append(help).append('\n');
      out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    void sample(String name, String labels, double value) {
      out.append(name);
      if (!labels.isEmpty()) {
        out.append('{').append(labels).append('}');
      }
      out.append(' ');
      if (value == Math.rint(value) && Math.abs(value) < 1e15) {
        out.append((long) value);
      } else {
        out.append(value);
      }
      out.append('\n');
    }

    @Override
    public String toString() {
      return out.toString();
    }
  }
}
