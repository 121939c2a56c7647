package dev.richter.probe;

import dev.richter.common.tls.TlsTrust;

import dev.richter.common.model.HealthReport;
import dev.richter.common.model.HealthReport.Evidence;
import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

/**
 * The four active probes. Each call observes one target once, within the target's deadline, and never
 * throws: every failure becomes a report with {@code ok=false}, a status, a detail naming the cause, and
 * the kind of evidence it is ({@link Evidence}): <em>module</em> evidence is what the module itself
 * answered; <em>monitoring</em> evidence means the observation could not be made because the probe's own
 * path (target configuration, metrics endpoint, trust set-up) is broken, which says nothing about the
 * module and never votes that it is damaged (DESIGN.md §4; the fault decider shows it as missing evidence).
 *
 * <table>
 *   <caption>Statuses and their evidence</caption>
 *   <tr><th>status</th><th>ok</th><th>evidence</th><th>when</th></tr>
 *   <tr><td>{@code UP}, {@code CONNECTED}, {@code SERVING}, {@code SCRAPED}</td><td>true</td><td>MODULE</td>
 *       <td>the module answered and is fine ({@code SCRAPED} may carry warnings: dropped optional parts)</td></tr>
 *   <tr><td>{@code DOWN}, {@code OUT_OF_SERVICE} (Actuator body), {@code NOT_SERVING}, {@code UNKNOWN} (gRPC)</td>
 *       <td>false</td><td>MODULE</td><td>the module says it is unhealthy</td></tr>
 *   <tr><td>{@code HTTP_5xx}, {@code HTTP_408}, {@code HTTP_429}</td><td>false</td><td>MODULE</td>
 *       <td>server error, request timeout or shedding: from a health or a metrics endpoint alike, the service is in trouble</td></tr>
 *   <tr><td>{@code HTTP_3xx}, {@code HTTP_4xx} (others)</td><td>false</td><td>MONITORING</td>
 *       <td>a redirect (not followed), wrong path (404), auth (401/403) or method: the probe is misconfigured</td></tr>
 *   <tr><td>{@code TIMEOUT}, {@code REFUSED}, {@code UNAVAILABLE}, {@code ERROR}</td><td>false</td><td>MODULE</td>
 *       <td>no answer in time, connection refused or reset: the service is unreachable, scrape or health alike</td></tr>
 *   <tr><td>other gRPC codes ({@code RESOURCE_EXHAUSTED}, {@code INTERNAL}, ...)</td><td>false</td><td>MODULE</td>
 *       <td>the server failed the call</td></tr>
 *   <tr><td>{@code NOT_FOUND}, {@code SERVICE_UNKNOWN}</td><td>false</td><td>MONITORING</td>
 *       <td>the health service does not know the configured service name (a typo, or the name is not registered)</td></tr>
 *   <tr><td>{@code UNIMPLEMENTED}</td><td>false</td><td>MONITORING</td>
 *       <td>the server has no {@code grpc.health.v1.Health} service: nothing to ask</td></tr>
 *   <tr><td>{@code UNAUTHENTICATED}, {@code PERMISSION_DENIED}, {@code INVALID_ARGUMENT}</td><td>false</td>
 *       <td>MONITORING</td><td>the server refused the probe's request as such (gRPC's 401/403/400)</td></tr>
 *   <tr><td>{@code PARSE_ERROR}</td><td>false</td><td>MONITORING</td>
 *       <td>a 2xx scrape that is not valid exposition text; the detail names the line</td></tr>
 *   <tr><td>{@code TLS_ERROR}</td><td>false</td><td>MONITORING</td>
 *       <td>this client rejected the server's certificate (untrusted CA, expired, hostname mismatch)</td></tr>
 *   <tr><td>{@code TLS_HANDSHAKE_FAILED}</td><td>false</td><td>MODULE</td>
 *       <td>the TLS handshake broke for another reason (peer closed or reset it)</td></tr>
 *   <tr><td>{@code UNKNOWN_HOST}, {@code INVALID_TARGET}, {@code BODY_TOO_LARGE}, {@code PROBE_ERROR}</td>
 *       <td>false</td><td>MONITORING</td><td>the host name does not resolve; the target is invalid (URL, {@code caPem},
 *       metric selector); the body exceeds {@link #MAX_BODY_BYTES}; the probe itself failed unexpectedly</td></tr>
 * </table>
 *
 * <p>Why a TLS certificate rejection is monitoring evidence: the server completed its side of the
 * handshake and presented a certificate, so the process is up and answering; what failed is that this
 * probe's trust configuration (system store or {@code caPem}) or its host name does not match that
 * certificate. That is fixed in the target, not in the module, and it does not come and go with load.
 * (An expired certificate also breaks real clients, but it is not damage done by the load test; the detail
 * carries the JDK's reason.) A handshake that breaks without a certificate verdict (connection closed or reset
 * mid-handshake, typical of an overloaded server) stays module evidence, as any dropped connection does.
 *
 * <p>A plaintext probe of a TLS port (or the reverse with a server that is not TLS) cannot be told from a
 * broken connection and shows as {@code ERROR} / {@code UNAVAILABLE} module evidence; it fails from the
 * first pre-test round on, so the run's gate catches it.
 *
 * <p>Why an unresolvable host is monitoring evidence: a name that does not resolve says nothing about the
 * module's process; it is the target (or DNS) that is wrong, usually from the first round on.
 *
 * <p>The system-trust HTTP client and the gRPC channels are built once per container and reused across
 * rounds; an HTTP client per distinct {@code caPem} and a channel per (host, port, TLS, {@code caPem}) are
 * built on first use and kept for the container's life (a run names a handful).
 */
public final class Probes implements AutoCloseable {
    /** Largest body read from a health or metrics endpoint, bytes; larger bodies are a failure. */
    public static final int MAX_BODY_BYTES = 4 * 1024 * 1024;
    private static final String SYSTEM_TRUST = "";
    /** Statuses {@link #failure} derives from a connection-level cause; a gRPC UNAVAILABLE with such a cause takes it. */
    private static final Set<String> CONNECTION_STATUSES =
            Set.of("REFUSED", "TIMEOUT", "UNKNOWN_HOST", "TLS_ERROR", "TLS_HANDSHAKE_FAILED");

    private final Map<String, HttpClient> httpByCaPem = new ConcurrentHashMap<>();
    private final Map<ChannelKey, ManagedChannel> channels = new ConcurrentHashMap<>();
    private final LongSupplier clockMs;
    /** Builds the client for targets without a {@code caPem}: a new one per {@link #reopen} when it is this object's. */
    private final Supplier<HttpClient> systemTrustClient;
    /** The CloudWatch client of a region ("" for the function's own), built on first use and kept. */
    private final java.util.function.Function<String, software.amazon.awssdk.services.cloudwatch.CloudWatchClient> cloudWatch;
    private final Map<String, software.amazon.awssdk.services.cloudwatch.CloudWatchClient> cloudWatchByRegion = new ConcurrentHashMap<>();

    /** One gRPC channel per endpoint and trust configuration. */
    private record ChannelKey(String host, int port, boolean tls, String caPem) {}

    /** Probes with a shared HTTP/1.1 client (system trust store) and the wall clock. */
    public Probes() {
        this(() -> httpClient(null), System::currentTimeMillis);
    }

    /**
     * Probes with the given client and clock (epoch ms).
     *
     * @param http    the client for targets without a {@code caPem}; targets with one get a client of the
     *                default settings ({@link #httpClient}) trusting exactly their CAs
     * @param clockMs epoch-millisecond clock for {@code observedAtMs}
     */
    public Probes(HttpClient http, LongSupplier clockMs) {
        this(() -> http, clockMs);
    }

    private Probes(Supplier<HttpClient> systemTrustClient, LongSupplier clockMs) {
        this.systemTrustClient = systemTrustClient;
        this.httpByCaPem.put(SYSTEM_TRUST, systemTrustClient.get());
        this.clockMs = clockMs;
        this.cloudWatch = region -> cloudWatchByRegion.computeIfAbsent(region, Probes::cloudWatchClient);
    }

    /**
     * Probes with the given client, clock and CloudWatch client per region (tests).
     *
     * @param cloudWatch the client of a region ({@code ""}: the function's own)
     */
    public Probes(HttpClient http, LongSupplier clockMs,
                  java.util.function.Function<String, software.amazon.awssdk.services.cloudwatch.CloudWatchClient> cloudWatch) {
        this.systemTrustClient = () -> http;
        this.httpByCaPem.put(SYSTEM_TRUST, http);
        this.clockMs = clockMs;
        this.cloudWatch = cloudWatch;
    }

    /**
     * A CloudWatch client of {@code region} (the function's own, {@code AWS_REGION}, when empty), on the URL-connection
     * HTTP client as every client of Richter's; {@code AWS_ENDPOINT_URL_CLOUDWATCH} points it elsewhere (the SDK reads it).
     */
    static software.amazon.awssdk.services.cloudwatch.CloudWatchClient cloudWatchClient(String region) {
        return software.amazon.awssdk.services.cloudwatch.CloudWatchClient.builder()
                .region(region.isEmpty() ? dev.richter.common.AwsClients.region() : software.amazon.awssdk.regions.Region.of(region))
                .httpClientBuilder(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.builder())
                .build();
    }

    /**
     * Drops every connection this object holds and starts anew: shuts the gRPC channels and the per-{@code caPem} HTTP
     * clients down (the next probe of each builds a new one), and replaces the system-trust HTTP client with a new one
     * when this object built it ({@link #Probes()}; a client given to the constructor is the caller's and kept). For a
     * SnapStart restore (ProbeHandler registers it): the channels, pooled connections and selector of a snapshot were
     * opened in the environment that took it, and a probe must see the network of the one that runs it.
     */
    public void reopen() {
        channels.values().forEach(ManagedChannel::shutdownNow);
        channels.clear();
        HttpClient previous = httpByCaPem.get(SYSTEM_TRUST);
        HttpClient next = systemTrustClient.get();
        httpByCaPem.forEach((caPem, client) -> {
            if (!caPem.equals(SYSTEM_TRUST)) client.shutdownNow();
        });
        httpByCaPem.keySet().removeIf(caPem -> !caPem.equals(SYSTEM_TRUST));
        httpByCaPem.put(SYSTEM_TRUST, next);
        if (next != previous) previous.shutdownNow();
    }

    /** The HTTP client a target with this {@code caPem} ({@code ""}: none) is probed with now. */
    HttpClient clientFor(String caPem) {
        return client(caPem);
    }

    /** The gRPC channels open now. */
    int openChannels() {
        return channels.size();
    }

    /**
     * The HTTP client settings of the probes: HTTP/1.1, no redirects followed, 5 s connect timeout (each
     * request is bounded by its target's deadline anyway), hostname verification on (the JDK default).
     *
     * @param ssl the TLS context, or {@code null} for the JVM default (system trust store)
     */
    public static HttpClient httpClient(SSLContext ssl) {
        HttpClient.Builder b = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(5));
        if (ssl != null) b.sslContext(ssl);
        return b.build();
    }

    /**
     * Runs the HTTP and gRPC client stacks (plaintext and TLS) once against a closed loopback port (port 9,
     * discard) so that class loading, Netty's event loop and TLS context start happen at container init, not
     * inside the first round's deadlines (a cold first gRPC probe was seen to take ~700 ms). Never throws.
     */
    public void warmUp() {
        try {
            http(new ProbeTarget.Http("warm-up", "http://127.0.0.1:9/", 200));
            http(new ProbeTarget.Http("warm-up", "https://127.0.0.1:9/", 200));
            grpc(new ProbeTarget.Grpc("warm-up", "127.0.0.1", 9, "", 200));
            grpc(new ProbeTarget.Grpc("warm-up", "127.0.0.1", 9, "", 200, true, ""));
        } catch (RuntimeException ignored) {
            // best effort
        } finally {
            channels.entrySet().removeIf(e -> {
                boolean warmUpChannel = e.getKey().host().equals("127.0.0.1") && e.getKey().port() == 9;
                if (warmUpChannel) e.getValue().shutdownNow();
                return warmUpChannel;
            });
        }
    }

    /** Dispatches on the closed set of target kinds. */
    public HealthReport probe(ProbeTarget target) {
        return switch (target) {
            case ProbeTarget.Http h -> http(h);
            case ProbeTarget.Tcp t -> tcp(t);
            case ProbeTarget.Grpc g -> grpc(g);
            case ProbeTarget.Prometheus p -> prometheus(p);
            case ProbeTarget.PromQuery q -> promQuery(q);
            case ProbeTarget.Alerts a -> alerts(a);
            case ProbeTarget.CloudWatchQuery c -> cloudWatchMetric(c);
        };
    }

    /** A CloudWatch business metric: {@link #cloudWatchMetrics} of it alone. */
    public HealthReport cloudWatchMetric(ProbeTarget.CloudWatchQuery t) {
        return cloudWatchMetrics(List.of(t)).getFirst();
    }

    /**
     * CloudWatch business metrics in one {@code GetMetricData} call ({@link CloudWatchMetricQuery}; the batch is one
     * of {@link CloudWatchMetricQuery#batches}: one region, period and timeout, at most
     * {@value CloudWatchMetricQuery#MAX_QUERIES}), one report per query in the batch's order, each reported as a
     * {@code promql} one is ({@code business:<name>} and its expectation). Every failure is monitoring evidence: an
     * SDK error of the call (AccessDenied, throttling, a timeout) fails every query of the batch; a result that does
     * not read (no datapoint, marked Forbidden or InternalError, not finite) fails its own query only.
     */
    public List<HealthReport> cloudWatchMetrics(List<ProbeTarget.CloudWatchQuery> batch) {
        long startNs = System.nanoTime();
        long at = clockMs.getAsLong();
        ProbeTarget.CloudWatchQuery first = batch.getFirst();
        Map<String, software.amazon.awssdk.services.cloudwatch.model.MetricDataResult> results;
        try {
            results = CloudWatchMetricQuery.resultsById(cloudWatch.apply(first.region()).getMetricData(
                    CloudWatchMetricQuery.request(batch, at).toBuilder().overrideConfiguration(c -> c
                            .apiCallTimeout(Duration.ofMillis(first.timeoutMs()))).build()));
        } catch (software.amazon.awssdk.core.exception.ApiCallTimeoutException e) {
            return failedCall(batch, "TIMEOUT", "no answer within " + first.timeoutMs() + " ms", elapsedMs(startNs), at);
        } catch (software.amazon.awssdk.core.exception.SdkException e) {
            String code = e instanceof software.amazon.awssdk.awscore.exception.AwsServiceException a && a.awsErrorDetails() != null
                    ? a.awsErrorDetails().errorCode() : e.getClass().getSimpleName();
            return failedCall(batch, "SDK_ERROR", code + ": " + e.getMessage(), elapsedMs(startNs), at);
        }
        long ms = elapsedMs(startNs);
        List<HealthReport> reports = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            ProbeTarget.CloudWatchQuery t = batch.get(i);
            try {
                double v = CloudWatchMetricQuery.value(results, CloudWatchMetricQuery.id(i));
                reports.add(new HealthReport(t.module(), t.kind(), true, "READ", List.of(), ms, "",
                        businessMetrics(t.name(), v, t.expect()), at));
            } catch (EvidenceAnswerException e) {
                reports.add(sourceFailure(t, "BAD_ANSWER", described(t) + ": " + e.getMessage(), ms, at));
            }
        }
        return reports;
    }

    /** Every query of a batch whose call failed: monitoring evidence, {@code status} and {@code detail} each. */
    private static List<HealthReport> failedCall(List<ProbeTarget.CloudWatchQuery> batch, String status, String detail,
                                                 long ms, long at) {
        return batch.stream().map(t -> sourceFailure(t, status, described(t) + ": " + detail, ms, at)).toList();
    }

    /** E.g. {@code business metric 'orders' (CloudWatch Shop/OrdersCreated)}. */
    private static String described(ProbeTarget.CloudWatchQuery t) {
        return "business metric '" + t.name() + "' (CloudWatch " + t.namespace() + "/" + t.metricName() + ")";
    }

    /** {@code business:<name>} = value and the expectation's keys. */
    private static Map<String, Double> businessMetrics(String name, double v,
                                                       dev.richter.common.model.EvidenceSources.MetricExpectation e) {
        Map<String, Double> m = new java.util.LinkedHashMap<>();
        String k = BUSINESS_PREFIX + name;
        m.put(k, v);
        if (e.min() != null) m.put(k + ":min", e.min());
        if (e.max() != null) m.put(k + ":max", e.max());
        if (e.baselineMinRatio() != null) m.put(k + ":baselineMinRatio", e.baselineMinRatio());
        if (e.baselineMaxRatio() != null) m.put(k + ":baselineMaxRatio", e.baselineMaxRatio());
        if (e.loadProportional()) m.put(k + ":loadProportional", 1.0);
        return m;
    }

    /** Metric key prefix of a business metric's value in a {@code promql} report: {@code business:<name>}. */
    public static final String BUSINESS_PREFIX = "business:";
    /** Metric key prefix of a firing alert in an {@code alertmanager} report: {@code alert:<alertname>} = its start, epoch ms. */
    public static final String ALERT_PREFIX = "alert:";

    /**
     * A business metric's instant query. Its report carries {@code business:<name>} (the value) and the expectation
     * as {@code business:<name>:min}, {@code :max}, {@code :baselineMinRatio}, {@code :baselineMaxRatio},
     * {@code :loadProportional} (1), each when given: the decider judges it. Every failure (no answer, HTTP error,
     * a body that does not read, NaN) is monitoring evidence: a source that cannot be read says nothing of the module.
     */
    public HealthReport promQuery(ProbeTarget.PromQuery t) {
        long startNs = System.nanoTime();
        long at = clockMs.getAsLong();
        String what = "business metric '" + t.name() + "' (" + t.url() + ")";
        try {
            String url = join(t.url(), "/api/v1/query") + "?query=" + java.net.URLEncoder.encode(t.promql(), StandardCharsets.UTF_8);
            Answer r = get(url, "", t.timeoutMs(), "application/json");
            long ms = elapsedMs(startNs);
            if (r.statusCode() < 200 || r.statusCode() >= 300) {
                String why = r.statusCode() == 400 || r.statusCode() == 422 || r.statusCode() == 503 ? errorOf(r.body()) : "";
                return sourceFailure(t, "HTTP_" + r.statusCode(), what + ": answered HTTP " + r.statusCode()
                        + httpStatusHint(r.statusCode()) + (why.isEmpty() ? "" : ": " + why), ms, at);
            }
            double v = PromQueryAnswer.value(r.body());
            return new HealthReport(t.module(), t.kind(), true, "READ", List.of(), ms, "", businessMetrics(t.name(), v, t.expect()), at);
        } catch (EvidenceAnswerException e) {
            return sourceFailure(t, "BAD_ANSWER", what + ": " + e.getMessage(), elapsedMs(startNs), at);
        } catch (Exception e) {
            return asMissing(failure(t, e, startNs, at), what);
        }
    }

    /**
     * The module's active alerts: ok when none fires; otherwise {@code FIRING}, module evidence, with the alert names
     * as {@code failingComponents} and {@code alert:<alertname>} = the epoch ms it started. Every failure to read the
     * Alertmanager is monitoring evidence.
     */
    public HealthReport alerts(ProbeTarget.Alerts t) {
        long startNs = System.nanoTime();
        long at = clockMs.getAsLong();
        String what = "alertmanager '" + t.source() + "' (" + t.url() + ")";
        try {
            StringBuilder q = new StringBuilder("?active=true&silenced=false&inhibited=false");
            Map<String, String> matchers = new java.util.TreeMap<>(t.matchers());
            matchers.put(t.moduleLabel(), t.module());
            matchers.forEach((k, v) -> q.append("&filter=").append(java.net.URLEncoder.encode(
                    k + "=\"" + v.replace("\\", "\\\\").replace("\"", "\\\"") + "\"", StandardCharsets.UTF_8)));
            Answer r = get(join(t.url(), "/api/v2/alerts") + q, "", t.timeoutMs(), "application/json");
            long ms = elapsedMs(startNs);
            if (r.statusCode() < 200 || r.statusCode() >= 300) {
                return sourceFailure(t, "HTTP_" + r.statusCode(), what + ": answered HTTP " + r.statusCode()
                        + httpStatusHint(r.statusCode()), ms, at);
            }
            AlertmanagerAlerts.AlertList answer = AlertmanagerAlerts.read(r.body());
            List<AlertmanagerAlerts.Alert> firing = answer.alerts().stream()
                    .filter(a -> a.firingAt(at) && t.module().equals(a.labels().get(t.moduleLabel()))
                            && matchers.entrySet().stream().allMatch(e -> e.getValue().equals(a.labels().get(e.getKey()))))
                    .toList();
            String unread = answer.unreadable().isEmpty() ? "" : "; " + answer.unreadable().size() + " alert"
                    + (answer.unreadable().size() == 1 ? "" : "s") + " not read: " + String.join("; ", answer.unreadable());
            if (firing.isEmpty() && !unread.isEmpty()) {
                // an alert not read may be the module's firing one: no alert of it is not shown
                return sourceFailure(t, "BAD_ANSWER", what + ": no readable alert of the module fires" + unread, ms, at);
            }
            if (firing.isEmpty()) {
                return new HealthReport(t.module(), t.kind(), true, "NONE_FIRING", List.of(), ms, "", Map.of(), at);
            }
            Map<String, Double> m = new java.util.TreeMap<>();
            for (var a : firing) m.merge(ALERT_PREFIX + a.name(), (double) a.startsAtMs(), Math::min);
            List<String> names = firing.stream().map(AlertmanagerAlerts.Alert::name).distinct().sorted().toList();
            return new HealthReport(t.module(), t.kind(), false, "FIRING", names, ms,
                    "alert" + (names.size() == 1 ? " " : "s ") + String.join(", ", names) + " firing in " + what + unread,
                    m, at);
        } catch (EvidenceAnswerException e) {
            return sourceFailure(t, "BAD_ANSWER", what + ": " + e.getMessage(), elapsedMs(startNs), at);
        } catch (Exception e) {
            return asMissing(failure(t, e, startNs, at), what);
        }
    }

    private static HealthReport sourceFailure(ProbeTarget t, String status, String detail, long ms, long at) {
        return new HealthReport(t.module(), t.kind(), false, status, List.of(), ms, detail, Map.of(), at,
                Evidence.MONITORING, List.of());
    }

    /** A failed read of an evidence source as missing evidence, whatever the cause (a source is not the module). */
    private static HealthReport asMissing(HealthReport r, String what) {
        return new HealthReport(r.module(), r.kind(), false, r.status(), List.of(), r.latencyMs(), what + ": " + r.detail(),
                Map.of(), r.observedAtMs(), Evidence.MONITORING, List.of());
    }

    /** The {@code error} of a Prometheus API error body, or empty. */
    private static String errorOf(String body) {
        try {
            var n = dev.richter.common.Json.MAPPER.readTree(body);
            return n == null ? "" : (n.path("errorType").asText("") + ": " + n.path("error").asText("")).replaceFirst("^: $", "");
        } catch (Exception e) {
            return "";
        }
    }

    private static String join(String base, String path) {
        return base.endsWith("/") ? base.substring(0, base.length() - 1) + path : base + path;
    }

    /**
     * HTTP GET of a health endpoint: the Actuator body, when there is one, decides (module evidence: it is the
     * module's own answer); otherwise 2xx is {@code UP} and any other code is {@code HTTP_<code>}, module or
     * monitoring evidence by {@link #evidenceOfHttpStatus}.
     */
    public HealthReport http(ProbeTarget.Http t) {
        long startNs = System.nanoTime();
        long at = clockMs.getAsLong();
        try {
            Answer r = get(t.url(), t.caPem(), t.timeoutMs(), "application/json");
            long ms = elapsedMs(startNs);
            var body = ActuatorHealth.parse(r.body());
            if (body.isPresent()) {
                var b = body.get();
                boolean ok = b.healthy() && r.statusCode() < 500;
                String detail = ok ? "" : "status " + b.status() + " (HTTP " + r.statusCode() + ")"
                        + (b.failingComponents().isEmpty() ? "" : "; failing " + String.join(", ", b.failingComponents()));
                return new HealthReport(t.module(), t.kind(), ok, b.status(), b.failingComponents(), ms, detail, Map.of(), at);
            }
            int code = r.statusCode();
            if (code >= 200 && code < 300) {
                return new HealthReport(t.module(), t.kind(), true, "UP", List.of(), ms, "", Map.of(), at);
            }
            return new HealthReport(t.module(), t.kind(), false, "HTTP_" + code, List.of(), ms,
                    "health endpoint answered HTTP " + code + httpStatusHint(code), Map.of(), at,
                    evidenceOfHttpStatus(code), List.of());
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

    /**
     * {@code grpc.health.v1.Health/Check} with a deadline of {@code timeoutMs}, over plaintext or TLS (see
     * {@link ProbeTarget.Grpc}). The answer's {@code ServingStatus} is module evidence, except
     * {@code SERVICE_UNKNOWN} (defined for {@code Watch}: the service name is unknown). Status codes follow the
     * gRPC Health Checking Protocol (grpc/grpc doc/health-checking.md): {@code NOT_FOUND} for an unknown
     * service name and {@code UNIMPLEMENTED} for a server without the health service are monitoring evidence;
     * see the class comment for the rest.
     */
    public HealthReport grpc(ProbeTarget.Grpc t) {
        long startNs = System.nanoTime();
        long at = clockMs.getAsLong();
        try {
            ManagedChannel ch = channel(t);
            HealthCheckResponse r = HealthGrpc.newBlockingStub(ch)
                    .withDeadlineAfter(t.timeoutMs(), TimeUnit.MILLISECONDS)
                    .check(HealthCheckRequest.newBuilder().setService(t.service()).build());
            boolean ok = r.getStatus() == HealthCheckResponse.ServingStatus.SERVING;
            String status = r.getStatus().name();
            if (r.getStatus() == HealthCheckResponse.ServingStatus.SERVICE_UNKNOWN) {
                return new HealthReport(t.module(), t.kind(), false, status, List.of(), elapsedMs(startNs),
                        "unknown service '" + t.service() + "' (SERVICE_UNKNOWN)", Map.of(), at, Evidence.MONITORING, List.of());
            }
            return new HealthReport(t.module(), t.kind(), ok, status, List.of(), elapsedMs(startNs),
                    ok ? "" : "service '" + t.service() + "' is " + status, Map.of(), at);
        } catch (StatusRuntimeException e) {
            return grpcFailure(t, e, startNs, at);
        } catch (RuntimeException e) {
            return failure(t, e, startNs, at);
        }
    }

    private ManagedChannel channel(ProbeTarget.Grpc t) {
        return channels.computeIfAbsent(new ChannelKey(t.host(), t.port(), t.tls(), t.caPem()), k -> {
            ChannelCredentials creds = k.tls()
                    ? TlsChannelCredentials.newBuilder().trustManager(TlsTrust.trustManager(k.caPem())).build()
                    : InsecureChannelCredentials.create();
            return NettyChannelBuilder.forAddress(k.host(), k.port(), creds).build();
        });
    }

    private HealthReport grpcFailure(ProbeTarget.Grpc t, StatusRuntimeException e, long startNs, long at) {
        Status.Code code = e.getStatus().getCode();
        if (code == Status.Code.UNAVAILABLE && e.getCause() != null) {
            // connection-level causes (refused, DNS, TLS) are classified as for the other probes
            HealthReport byCause = failure(t, e.getCause(), startNs, at);
            if (CONNECTION_STATUSES.contains(byCause.status())) return byCause;
        }
        String svc = "'" + t.service() + "'";
        Evidence evidence = switch (code) {
            case NOT_FOUND, UNIMPLEMENTED, UNAUTHENTICATED, PERMISSION_DENIED, INVALID_ARGUMENT -> Evidence.MONITORING;
            default -> Evidence.MODULE;
        };
        String status = code == Status.Code.DEADLINE_EXCEEDED ? "TIMEOUT" : code.name();
        String detail = switch (code) {
            case NOT_FOUND -> "unknown service " + svc + " (NOT_FOUND: the health service does not know this name)";
            case UNIMPLEMENTED -> "the server has no grpc.health.v1.Health service (UNIMPLEMENTED)";
            default -> e.getStatus().toString();
        };
        return new HealthReport(t.module(), t.kind(), false, status, List.of(), elapsedMs(startNs), detail, Map.of(), at,
                evidence, List.of());
    }

    /**
     * Scrape, parse ({@link PrometheusTextParser#parse(String, String)}, in the format the answer's
     * {@code Content-Type} declares), extract resource metrics and the module's resilience policies'
     * ({@link ResilienceMetrics}).
     *
     * <p>A 2xx scrape that parses is {@code SCRAPED}, ok, <em>module</em> evidence, and carries in
     * {@code warnings} every optional part the parser dropped (e.g. a malformed exemplar, with its line): the
     * samples are all there, so the observation is complete and must count like any other success; the
     * warnings tell the decider and the report that the exporter is slightly off. A 2xx scrape that does not
     * parse is {@code PARSE_ERROR}, monitoring evidence, with the line in the detail. Other HTTP codes follow
     * {@link #evidenceOfHttpStatus}: a 5xx, a timeout or a refused connection is the service in trouble
     * (module); a 404 or 401/403 is a misconfigured metrics path (monitoring).
     */
    public HealthReport prometheus(ProbeTarget.Prometheus t) {
        long startNs = System.nanoTime();
        long at = clockMs.getAsLong();
        try {
            Answer r = get(t.url(), t.caPem(), t.timeoutMs(),
                    "application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.4");
            long ms = elapsedMs(startNs);
            int code = r.statusCode();
            if (code < 200 || code >= 300) {
                return new HealthReport(t.module(), t.kind(), false, "HTTP_" + code, List.of(), ms,
                        "scrape answered HTTP " + code + httpStatusHint(code), Map.of(), at, evidenceOfHttpStatus(code), List.of());
            }
            PrometheusScrape scrape;
            try {
                scrape = PrometheusTextParser.parse(r.body(), r.contentType());
            } catch (PrometheusParseException e) {
                return new HealthReport(t.module(), t.kind(), false, "PARSE_ERROR", List.of(), ms,
                        e.getMessage(), Map.of(), at, Evidence.MONITORING, List.of());
            }
            Map<String, Double> metrics;
            try {
                metrics = new java.util.LinkedHashMap<>(t.metricNames().extract(scrape.samples()));
                metrics.putAll(ResilienceMetrics.extract(scrape.samples()));
            } catch (IllegalArgumentException e) {
                return invalidTarget(t, "metricNames: " + e.getMessage(), startNs, at);
            }
            return new HealthReport(t.module(), t.kind(), true, "SCRAPED", List.of(), ms, "", metrics, at,
                    Evidence.MODULE, scrape.warnings());
        } catch (Exception e) {
            return failure(t, e, startNs, at);
        }
    }

    /**
     * Which evidence a non-2xx answer of a health or metrics endpoint is: {@code MODULE} for 5xx (server
     * error), 408 (request timeout) and 429 (too many requests: the service sheds load); {@code MONITORING} for
     * every other code (3xx: a redirect the probe does not follow, e.g. to a login page; 4xx: wrong path, auth
     * or method), which says how the probe is set up, not how the module is. RFC 9110 §15.
     */
    public static Evidence evidenceOfHttpStatus(int statusCode) {
        return statusCode >= 500 || statusCode == 408 || statusCode == 429 ? Evidence.MODULE : Evidence.MONITORING;
    }

    private static String httpStatusHint(int code) {
        return switch (code) {
            case 404 -> " (not found: check the path)";
            case 401, 403 -> " (the endpoint needs credentials the probe does not send)";
            default -> code >= 300 && code < 400 ? " (redirects are not followed: give the final URL)" : "";
        };
    }

    /** A status code and a body read as UTF-8 (Prometheus text, OpenMetrics and JSON are UTF-8). */
    /** An HTTP answer: status, body (UTF-8), and its {@code Content-Type} (empty when it sent none). */
    private record Answer(int statusCode, String body, String contentType) {}

    /**
     * GET with the target's deadline and trust; reads at most {@link #MAX_BODY_BYTES} of the body.
     *
     * @throws IllegalArgumentException naming the field, for a bad {@code url} or {@code caPem}
     */
    private Answer get(String url, String caPem, long timeoutMs, String accept) throws IOException, InterruptedException {
        HttpRequest req;
        try {
            URI uri = URI.create(url);
            req = HttpRequest.newBuilder(uri).timeout(Duration.ofMillis(timeoutMs))
                    .header("Accept", accept).header("User-Agent", "richter-probe").GET().build();
            if (!caPem.isBlank() && !"https".equalsIgnoreCase(uri.getScheme())) {
                throw new IllegalArgumentException(TlsTrust.CA_PEM_FIELD + " is set but the url is not https://");
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("url '" + url + "': " + e.getMessage(), e);
        }
        HttpResponse<InputStream> r = client(caPem).send(req, HttpResponse.BodyHandlers.ofInputStream());
        byte[] body;
        try (InputStream in = r.body()) {
            body = in.readNBytes(MAX_BODY_BYTES + 1);
        }
        if (body.length > MAX_BODY_BYTES) {
            throw new BodyTooLargeException();
        }
        return new Answer(r.statusCode(), new String(body, StandardCharsets.UTF_8), r.headers().firstValue("Content-Type").orElse(""));
    }

    private HttpClient client(String caPem) {
        return httpByCaPem.computeIfAbsent(caPem, pem -> httpClient(TlsTrust.sslContext(pem)));
    }

    /** A body the probes will not read: more than {@link #MAX_BODY_BYTES}. */
    private static final class BodyTooLargeException extends IOException {
        BodyTooLargeException() {
            super("body larger than " + MAX_BODY_BYTES + " bytes");
        }
    }

    private static HealthReport invalidTarget(ProbeTarget t, String reason, long startNs, long atMs) {
        return new HealthReport(t.module(), t.kind(), false, "INVALID_TARGET", List.of(), elapsedMs(startNs),
                "invalid target: " + reason, Map.of(), atMs, Evidence.MONITORING, List.of());
    }

    /**
     * Maps an exception to a failed report (statuses and evidence as in the class comment); restores the
     * interrupt flag. Looks through the cause chain, so a gRPC or HttpClient wrapper is classified by its cause.
     */
    static HealthReport failure(ProbeTarget t, Throwable e, long startNs, long atMs) {
        if (e instanceof InterruptedException) Thread.currentThread().interrupt();
        if (e instanceof IllegalArgumentException iae) {
            return invalidTarget(t, iae.getMessage(), startNs, atMs);
        }
        String status;
        String what;
        Evidence evidence = Evidence.MODULE;
        if (cause(e, CertificateException.class).isPresent()) {
            status = "TLS_ERROR";
            what = "TLS: the server's certificate was rejected, trusting " + trustOf(t) + " (check "
                    + TlsTrust.CA_PEM_FIELD + " and the host name)";
            evidence = Evidence.MONITORING;
        } else if (cause(e, SSLException.class).isPresent()) {
            status = "TLS_HANDSHAKE_FAILED";
            what = "TLS handshake failed";
        } else if (cause(e, UnknownHostException.class).isPresent()
                || cause(e, UnresolvedAddressException.class).isPresent()) {
            status = "UNKNOWN_HOST";
            what = "host name does not resolve";
            evidence = Evidence.MONITORING;
        } else if (e instanceof BodyTooLargeException) {
            status = "BODY_TOO_LARGE";
            what = "body not read";
            evidence = Evidence.MONITORING;
        } else if (e instanceof HttpTimeoutException || e instanceof SocketTimeoutException
                || e instanceof InterruptedException) {
            status = "TIMEOUT";
            what = "timed out";
        } else if (cause(e, ConnectException.class).isPresent()) {
            status = "REFUSED";
            // the JDK HttpClient's ConnectException often has no message: say what the status means
            what = "connection refused";
        } else if (e instanceof IOException || e instanceof StatusRuntimeException) {
            status = "ERROR";
            what = "failed";
        } else {
            status = "PROBE_ERROR";
            what = "the probe itself failed";
            evidence = Evidence.MONITORING;
        }
        Throwable shown = status.startsWith("TLS") ? deepest(e) : e;
        String msg = what + " (" + shown.getClass().getSimpleName() + (shown.getMessage() == null ? "" : ": " + shown.getMessage()) + ")";
        return new HealthReport(t.module(), t.kind(), false, status, List.of(), elapsedMs(startNs), msg, Map.of(), atMs,
                evidence, List.of());
    }

    /** Which trust anchors a TLS target used, for a detail. */
    private static String trustOf(ProbeTarget t) {
        String caPem = switch (t) {
            case ProbeTarget.Http h -> h.caPem();
            case ProbeTarget.Prometheus p -> p.caPem();
            case ProbeTarget.Grpc g -> g.caPem();
            case ProbeTarget.Tcp x -> "";
            case ProbeTarget.PromQuery x -> "";
            case ProbeTarget.Alerts x -> "";
            case ProbeTarget.CloudWatchQuery x -> "";
        };
        return caPem.isBlank() ? "the system trust store (no " + TlsTrust.CA_PEM_FIELD + ")"
                : "only the CA certificates in " + TlsTrust.CA_PEM_FIELD;
    }

    /** The first throwable of {@code type} in the cause chain of {@code e} (itself included). */
    private static <T extends Throwable> Optional<T> cause(Throwable e, Class<T> type) {
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (type.isInstance(c)) return Optional.of(type.cast(c));
        }
        return Optional.empty();
    }

    /** The root of the cause chain: for TLS it names the reason (e.g. "No subject alternative names matching ..."). */
    private static Throwable deepest(Throwable e) {
        Throwable c = e;
        for (int i = 0; i < 16 && c.getCause() != null && c.getCause() != c; i++) c = c.getCause();
        return c;
    }

    private static long elapsedMs(long startNs) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
    }

    /** Shuts the gRPC channels down and closes the per-{@code caPem} HTTP clients (not the one given to the constructor). */
    @Override
    public void close() {
        cloudWatchByRegion.values().forEach(software.amazon.awssdk.services.cloudwatch.CloudWatchClient::close);
        channels.values().forEach(ManagedChannel::shutdownNow);
        channels.clear();
        httpByCaPem.forEach((caPem, client) -> {
            if (!caPem.equals(SYSTEM_TRUST)) client.shutdownNow();
        });
        httpByCaPem.keySet().removeIf(caPem -> !caPem.equals(SYSTEM_TRUST));
    }
}
