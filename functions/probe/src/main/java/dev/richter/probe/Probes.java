package dev.richter.probe;

import dev.richter.common.model.HealthReport;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The four active probes. Each call observes one target once, within the target's deadline, and
 * never throws: every failure becomes a report with {@code ok=false} and a status such as
 * {@code TIMEOUT}, {@code REFUSED}, {@code DOWN}, {@code NOT_SERVING}, {@code NOT_FOUND},
 * {@code HTTP_503} or {@code PARSE_ERROR}.
 *
 * <p>The HTTP client and gRPC channels are built once per container and reused across rounds.
 */
public final class Probes implements AutoCloseable {
    /** Largest body read from a health or metrics endpoint, bytes; larger bodies are a failure. */
    public static final int MAX_BODY_BYTES = 4 * 1024 * 1024;
    private final HttpClient http;
    private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();
    private final LongSupplier clockMs;

    /** Probes with a shared HTTP/1.1 client and the wall clock. */
    public Probes() {
        this(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(5)).build(),
                System::currentTimeMillis);
    }

    /** Probes with the given client and clock (epoch ms). */
    public Probes(HttpClient http, LongSupplier clockMs) {
        this.http = http;
        this.clockMs = clockMs;
    }

    /**
     * Runs the HTTP and gRPC client stacks once against a closed loopback port (port 9, discard) so that
     * class loading and Netty's event loop start happen at container init, not inside the first round's
     * deadlines (a cold first gRPC probe was seen to take ~700 ms). Never throws.
     */
    public void warmUp() {
        try {
            http(new ProbeTarget.Http("warm-up", "http://127.0.0.1:9/", 200));
            grpc(new ProbeTarget.Grpc("warm-up", "127.0.0.1", 9, "", 200));
        } catch (RuntimeException ignored) {
            // best effort
        } finally {
            ManagedChannel ch = channels.remove("127.0.0.1:9");
            if (ch != null) ch.shutdownNow();
        }
    }

    /** Dispatches on the closed set of target kinds. */
    public HealthReport probe(ProbeTarget target) {
        return switch (target) {
            case ProbeTarget.Http h -> http(h);
            case ProbeTarget.Tcp t -> tcp(t);
            case ProbeTarget.Grpc g -> grpc(g);
            case ProbeTarget.Prometheus p -> prometheus(p);
        };
    }

    /** HTTP GET of a health endpoint: the Actuator body, when there is one, decides; otherwise 2xx is UP. */
    public HealthReport http(ProbeTarget.Http t) {
        long startNs = System.nanoTime();
        long at = clockMs.getAsLong();
        try {
            HttpResponse<String> r = get(t.url(), t.timeoutMs(), "application/json");
            long ms = elapsedMs(startNs);
            var body = ActuatorHealth.parse(r.body());
            if (body.isPresent()) {
                var b = body.get();
                boolean ok = b.healthy() && r.statusCode() < 500;
                String detail = ok ? "" : "status " + b.status() + " (HTTP " + r.statusCode() + ")"
                        + (b.failingComponents().isEmpty() ? "" : "; failing " + String.join(", ", b.failingComponents()));
                return new HealthReport(t.module(), t.kind(), ok, b.status(), b.failingComponents(), ms, detail, Map.of(), at);
            }
            boolean ok = r.statusCode() >= 200 && r.statusCode() < 300;
            return new HealthReport(t.module(), t.kind(), ok, ok ? "UP" : "HTTP_" + r.statusCode(), List.of(), ms,
                    ok ? "" : "HTTP " + r.statusCode(), Map.of(), at);
        } catch (Exception e) {
            return failure(t, e, startNs, at);
        }
    }

    /** TCP connect; closes the socket at once. */
    public HealthReport tcp(ProbeTarget.Tcp t) {
        long startNs = System.nanoTime();
        long at = clockMs.getAsLong();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(t.host(), t.port()), (int) t.timeoutMs());
            return new HealthReport(t.module(), t.kind(), true, "CONNECTED", List.of(), elapsedMs(startNs), "", Map.of(), at);
        } catch (Exception e) {
            return failure(t, e, startNs, at);
        }
    }

    /** {@code grpc.health.v1.Health/Check} with a deadline of {@code timeoutMs}. */
    public HealthReport grpc(ProbeTarget.Grpc t) {
        long startNs = System.nanoTime();
        long at = clockMs.getAsLong();
        try {
            ManagedChannel ch = channels.computeIfAbsent(t.endpointKey(),
                    k -> NettyChannelBuilder.forAddress(t.host(), t.port()).usePlaintext().build());
            HealthCheckResponse r = HealthGrpc.newBlockingStub(ch)
                    .withDeadlineAfter(t.timeoutMs(), TimeUnit.MILLISECONDS)
                    .check(HealthCheckRequest.newBuilder().setService(t.service()).build());
            boolean ok = r.getStatus() == HealthCheckResponse.ServingStatus.SERVING;
            String status = r.getStatus().name();
            return new HealthReport(t.module(), t.kind(), ok, status, List.of(), elapsedMs(startNs),
                    ok ? "" : "service '" + t.service() + "' is " + status, Map.of(), at);
        } catch (StatusRuntimeException e) {
            Status.Code code = e.getStatus().getCode();
            String status = switch (code) {
                case DEADLINE_EXCEEDED -> "TIMEOUT";
                case NOT_FOUND -> "NOT_FOUND";
                case UNIMPLEMENTED -> "UNIMPLEMENTED";
                default -> code.name();
            };
            String detail = code == Status.Code.NOT_FOUND ? "unknown service '" + t.service() + "'" : e.getStatus().toString();
            return new HealthReport(t.module(), t.kind(), false, status, List.of(), elapsedMs(startNs), detail, Map.of(), at);
        } catch (RuntimeException e) {
            return failure(t, e, startNs, at);
        }
    }

    /** Scrape, parse strictly, extract resource metrics; a scrape that does not parse is a failure with its line. */
    public HealthReport prometheus(ProbeTarget.Prometheus t) {
        long startNs = System.nanoTime();
        long at = clockMs.getAsLong();
        try {
            HttpResponse<String> r = get(t.url(), t.timeoutMs(),
                    "application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.4");
            long ms = elapsedMs(startNs);
            if (r.statusCode() < 200 || r.statusCode() >= 300) {
                return new HealthReport(t.module(), t.kind(), false, "HTTP_" + r.statusCode(), List.of(), ms,
                        "scrape answered HTTP " + r.statusCode(), Map.of(), at);
            }
            try {
                Map<String, Double> metrics = t.metricNames().extract(PrometheusTextParser.parse(r.body()));
                return new HealthReport(t.module(), t.kind(), true, "SCRAPED", List.of(), ms, "", metrics, at);
            } catch (PrometheusParseException e) {
                return new HealthReport(t.module(), t.kind(), false, "PARSE_ERROR", List.of(), ms, e.getMessage(), Map.of(), at);
            }
        } catch (Exception e) {
            return failure(t, e, startNs, at);
        }
    }

    private HttpResponse<String> get(String url, long timeoutMs, String accept) throws IOException, InterruptedException {
        HttpRequest req = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofMillis(timeoutMs))
                .header("Accept", accept).header("User-Agent", "richter-probe").GET().build();
        HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
        if (r.body() != null && r.body().length() > MAX_BODY_BYTES) {
            throw new IOException("body larger than " + MAX_BODY_BYTES + " bytes");
        }
        return r;
    }

    /** Maps an exception to a failed report; restores the interrupt flag. */
    static HealthReport failure(ProbeTarget t, Throwable e, long startNs, long atMs) {
        if (e instanceof InterruptedException) Thread.currentThread().interrupt();
        String status = switch (e) {
            case HttpConnectTimeoutException x -> "TIMEOUT";
            case HttpTimeoutException x -> "TIMEOUT";
            case SocketTimeoutException x -> "TIMEOUT";
            case InterruptedException x -> "TIMEOUT";
            case ConnectException x -> "REFUSED";
            default -> "ERROR";
        };
        // the JDK HttpClient's ConnectException often has no message: say what the status means
        String what = switch (status) {
            case "REFUSED" -> "connection refused";
            case "TIMEOUT" -> "timed out";
            default -> "failed";
        };
        String msg = what + " (" + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")";
        return new HealthReport(t.module(), t.kind(), false, status, List.of(), elapsedMs(startNs), msg, Map.of(), atMs);
    }

    private static long elapsedMs(long startNs) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
    }

    @Override
    public void close() {
        channels.values().forEach(ManagedChannel::shutdownNow);
        channels.clear();
    }
}
