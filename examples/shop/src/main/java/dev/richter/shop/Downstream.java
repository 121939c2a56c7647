package dev.richter.shop;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * JSON-over-HTTP calls to a downstream service with the JDK {@link HttpClient} (HTTP/1.1).
 *
 * <p>Trace context and baggage (hence the load-test marker) are NOT copied by this class: the
 * OpenTelemetry Java agent injects {@code traceparent} and {@code baggage} into every request sent
 * from a thread whose current context holds them — the request-handling thread.
 *
 * <p>In <em>detached</em> mode ({@code SHOP_BREAK_ASYNC_MARKER=1}) the call is handed to worker
 * threads started when this object is built, through a plain {@link BlockingQueue}. Neither the
 * threads nor the queue are instrumented by the agent, so the call runs with an empty context: it
 * starts a new trace and carries no baggage, i.e. the marker is lost on that hop. This reproduces the
 * classic "async hop without context propagation" bug that Richter's safety checks must catch.
 */
final class Downstream {

  /**
   * A downstream answer.
   *
   * @param status HTTP status
   * @param body the body parsed as JSON (a missing node if empty or not JSON)
   */
  record Answer(int status, JsonNode body) {
    boolean ok() {
      return status >= 200 && status < 300;
    }
  }

  private final HttpClient client;
  private final Duration timeout;
  private final BlockingQueue<Runnable> detachedQueue;

  /**
   * @param timeout per-request timeout (connect and response)
   * @param detachedThreads 0 for normal calls on the caller's thread; N > 0 for detached mode with
   *     N worker threads (see class doc)
   */
  Downstream(Duration timeout, int detachedThreads, String threadNamePrefix) {
    this.client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(timeout)
        .build();
    this.timeout = timeout;
    this.detachedQueue = detachedThreads > 0 ? new LinkedBlockingQueue<>() : null;
    for (int i = 1; i <= detachedThreads; i++) {
      Thread worker = new Thread(this::drainDetached, threadNamePrefix + "-detached-" + i);
      worker.setDaemon(true);
      worker.start();
    }
  }

  /** True when calls run detached (marker-losing). */
  boolean detached() {
    return detachedQueue != null;
  }

  /**
   * POSTs {@code body} as JSON and waits for the answer.
   *
   * @param url full URL, e.g. {@code http://127.0.0.1:18082/reserve}
   * @param body a value serialised with Jackson
   * @return the answer, whatever its status
   * @throws ShopServer.BadGatewayException if the call fails (connect error, timeout, bad I/O)
   */
  Answer postJson(String url, Object body) {
    if (detachedQueue == null) {
      return send(url, body);
    }
    CompletableFuture<Answer> result = new CompletableFuture<>();
    detachedQueue.add(() -> {
      try {
        result.complete(send(url, body));
      } catch (RuntimeException e) {
        result.completeExceptionally(e);
      }
    });
    try {
      return result.get(timeout.toMillis() * 2, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException re ? re : new ShopServer.BadGatewayException(e.toString());
    } catch (TimeoutException e) {
      throw new ShopServer.BadGatewayException("detached call to " + url + " timed out");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ShopServer.BadGatewayException("interrupted calling " + url);
    }
  }

  private Answer send(String url, Object body) {
    try {
      HttpRequest request = HttpRequest.newBuilder(URI.create(url))
          .timeout(timeout)
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofByteArray(ShopServer.JSON.writeValueAsBytes(body)))
          .build();
      HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
      JsonNode json;
      try {
        json = ShopServer.JSON.readTree(response.body());
      } catch (IOException e) {
        json = null;
      }
      return new Answer(response.statusCode(), json == null ? ShopServer.JSON.missingNode() : json);
    } catch (IOException e) {
      throw new ShopServer.BadGatewayException("POST " + url + " failed: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ShopServer.BadGatewayException("interrupted calling " + url);
    }
  }

  private void drainDetached() {
    while (true) {
      try {
        detachedQueue.take().run();
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        System.err.println("detached call failed: " + e);
      }
    }
  }
}
