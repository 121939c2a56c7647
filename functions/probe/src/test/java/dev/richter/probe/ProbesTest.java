package dev.richter.probe;

import static org.junit.jupiter.api.Assertions.*;

import com.sun.net.httpserver.HttpServer;
import dev.richter.common.Json;
import dev.richter.common.SnapStartHooks;
import dev.richter.common.model.HealthReport;
import dev.richter.common.model.HealthReport.Evidence;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Probes against real loopback servers: JDK HttpServer, a gRPC server with HealthStatusManager, TCP. */
class ProbesTest {
    static HttpServer http;
    static Server grpc;
    static HealthStatusManager health;
    /** A gRPC server without the health service. */
    static Server grpcNoHealth;
    static String base;
    static Prober prober;

    @BeforeAll
    static void start() throws Exception {
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        route("/up", 200, "{\"status\":\"UP\",\"components\":{\"db\":{\"status\":\"UP\"}}}");
        route("/down200", 200, Corpus.read("bugs/15-health-200-down.http").lines()
                .filter(l -> l.startsWith("{")).findFirst().orElseThrow());
        route("/down503", 503, "{\"status\":\"OUT_OF_SERVICE\"}");
        route("/plain", 200, "OK");
        route("/err", 500, "boom");
        route("/prom", 200, "# TYPE jvm_memory_used_bytes gauge\njvm_memory_used_bytes{area=\"heap\"} 95\n"
                + "jvm_memory_max_bytes{area=\"heap\"} 100\nhikaricp_connections_active 2\nhikaricp_connections_max 10\n");
        route("/badprom", 200, Corpus.read("bugs/12-prom-invalid-escape.prom"));
        route("/prom26", 200, Corpus.read("bugs/26-openmetrics-exemplar-no-labelset.txt"));
        route("/missing", 404, "Not Found");
        route("/secret", 401, "");
        route("/forbidden", 403, "");
        route("/moved", 302, "");
        route("/busy", 503, "Service Unavailable");
        route("/shedding", 429, "");
        route("/huge", 200, "#".repeat(Probes.MAX_BODY_BYTES + 1));
        http.createContext("/hang", ex -> {
            try {
                Thread.sleep(5000);
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        http.start();
        base = "http://127.0.0.1:" + http.getAddress().getPort();
        health = new HealthStatusManager();
        health.setStatus("order.Orders", ServingStatus.SERVING);
        health.setStatus("stock.Stock", ServingStatus.NOT_SERVING);
        grpc = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(health.getHealthService()).build().start();
        grpcNoHealth = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).build().start();
        Probes probes = new Probes();
        probes.warmUp();
        prober = new Prober(probes);
    }

    static void route(String path, int code, String body) {
        http.createContext(path, ex -> {
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(code, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
    }

    @AfterAll
    static void stop() {
        http.stop(0);
        grpc.shutdownNow();
        grpcNoHealth.shutdownNow();
        prober.close();
    }

    HealthReport one(ProbeTarget t) {
        return prober.run(new ProbeRound("r1", "t1", "formal", 0, List.of(t))).reports().getFirst();
    }

    @Test
    void httpUp() {
        var r = one(new ProbeTarget.Http("order", base + "/up", 1000));
        assertTrue(r.ok(), r.toString());
        assertEquals("UP", r.status());
    }

    @Test
    void http200WithDownBodyIsDownNamingTheComponent() {
        var r = one(new ProbeTarget.Http("order", base + "/down200", 1000));
        assertFalse(r.ok());
        assertEquals("DOWN", r.status());
        assertEquals(List.of("stockService"), r.failingComponents());
        assertTrue(r.detail().contains("stockService"), r.detail());
    }

    @Test
    void httpOutOfServiceAndPlainAndServerError() {
        assertEquals("OUT_OF_SERVICE", one(new ProbeTarget.Http("o", base + "/down503", 3000)).status());
        assertTrue(one(new ProbeTarget.Http("o", base + "/plain", 3000)).ok());
        var err = one(new ProbeTarget.Http("o", base + "/err", 3000));
        assertFalse(err.ok());
        assertEquals("HTTP_500", err.status());
    }

    @Test
    void httpHangTimesOutWithinItsDeadline() {
        long t0 = System.nanoTime();
        var r = one(new ProbeTarget.Http("o", base + "/hang", 300));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertFalse(r.ok());
        assertEquals("TIMEOUT", r.status());
        assertTrue(ms < 300 + Prober.DEFAULT_GRACE_MS + 200, "took " + ms + " ms");
    }

    @Test
    void tcpConnectAndRefused() throws Exception {
        assertTrue(one(new ProbeTarget.Tcp("o", "127.0.0.1", http.getAddress().getPort(), 500)).ok());
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        var r = one(new ProbeTarget.Tcp("o", "127.0.0.1", closed, 500));
        assertFalse(r.ok());
        assertEquals("REFUSED", r.status());
        assertTrue(r.detail().startsWith("connection refused"), r.detail());
    }

    @Test
    void grpcServingNotServingAndUnknownService() {
        int port = grpc.getPort();
        var serving = one(new ProbeTarget.Grpc("order", "127.0.0.1", port, "order.Orders", 1000));
        assertTrue(serving.ok(), serving.toString());
        assertEquals("SERVING", serving.status());
        assertTrue(one(new ProbeTarget.Grpc("order", "127.0.0.1", port, "", 1000)).ok());
        var notServing = one(new ProbeTarget.Grpc("stock", "127.0.0.1", port, "stock.Stock", 1000));
        assertFalse(notServing.ok());
        assertEquals("NOT_SERVING", notServing.status());
        var unknown = one(new ProbeTarget.Grpc("x", "127.0.0.1", port, "no.Such", 1000));
        assertFalse(unknown.ok());
        assertEquals("NOT_FOUND", unknown.status());
    }

    @Test
    void prometheusScrapeExtractsMetricsAndRejectsBadEscape() {
        var r = one(new ProbeTarget.Prometheus("order", base + "/prom", 1000, null));
        assertTrue(r.ok(), r.toString());
        assertEquals(0.95, r.metrics().get("heapUsedRatio"), 1e-9);
        assertEquals(0.2, r.metrics().get("connectionsInUseRatio"), 1e-9);
        var bad = one(new ProbeTarget.Prometheus("order", base + "/badprom", 1000, null));
        assertFalse(bad.ok());
        assertEquals("PARSE_ERROR", bad.status());
        assertTrue(bad.detail().startsWith("line 3:"), bad.detail());
    }

    static void assertMonitoring(HealthReport r, String status, String detailPart) {
        assertFalse(r.ok(), r.toString());
        assertEquals(status, r.status(), r.toString());
        assertEquals(Evidence.MONITORING, r.evidence(), r.toString());
        assertTrue(r.missingEvidence());
        assertTrue(r.detail().contains(detailPart), r.detail());
    }

    static void assertModule(HealthReport r, String status) {
        assertFalse(r.ok(), r.toString());
        assertEquals(status, r.status(), r.toString());
        assertEquals(Evidence.MODULE, r.evidence(), r.toString());
        assertFalse(r.missingEvidence());
    }

    static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void prometheus404And401And403And302AreMonitoringEvidenceNamingTheStatus() {
        assertMonitoring(one(new ProbeTarget.Prometheus("order", base + "/missing", 3000, null)), "HTTP_404", "HTTP 404");
        assertMonitoring(one(new ProbeTarget.Prometheus("order", base + "/secret", 3000, null)), "HTTP_401", "HTTP 401");
        assertMonitoring(one(new ProbeTarget.Prometheus("order", base + "/forbidden", 3000, null)), "HTTP_403", "HTTP 403");
        assertMonitoring(one(new ProbeTarget.Prometheus("order", base + "/moved", 3000, null)), "HTTP_302", "HTTP 302");
    }

    @Test
    void prometheusParseErrorIsMonitoringEvidenceNamingTheLine() {
        assertMonitoring(one(new ProbeTarget.Prometheus("order", base + "/badprom", 3000, null)), "PARSE_ERROR", "line 3:");
    }

    @Test
    void prometheus5xxAnd429TimeoutAndRefusedAreModuleEvidence() throws Exception {
        assertModule(one(new ProbeTarget.Prometheus("order", base + "/busy", 3000, null)), "HTTP_503");
        assertModule(one(new ProbeTarget.Prometheus("order", base + "/shedding", 3000, null)), "HTTP_429");
        assertModule(one(new ProbeTarget.Prometheus("order", base + "/hang", 300, null)), "TIMEOUT");
        assertModule(one(new ProbeTarget.Prometheus("order", "http://127.0.0.1:" + closedPort() + "/metrics", 3000, null)),
                "REFUSED");
    }

    @Test
    void bug26ScrapeIsASuccessWithTheDroppedExemplarAsAWarning() {
        var r = one(new ProbeTarget.Prometheus("order", base + "/prom26", 3000, null));
        assertTrue(r.ok(), r.toString());
        assertEquals("SCRAPED", r.status());
        assertEquals(Evidence.MODULE, r.evidence());
        assertEquals(List.of("line 3: exemplar dropped: an exemplar needs a label set ('{}' when empty)"), r.warnings());
    }

    @Test
    void aBadMetricSelectorOrUrlIsAnInvalidTarget() {
        var selector = new ResourceMetricNames("cpu{", null, null, null, null);
        assertMonitoring(one(new ProbeTarget.Prometheus("order", base + "/prom", 3000, selector)), "INVALID_TARGET",
                "metricNames: bad metric selector 'cpu{'");
        assertMonitoring(one(new ProbeTarget.Http("order", "ftp://127.0.0.1/health", 3000)), "INVALID_TARGET", "url 'ftp://");
    }

    @Test
    void anOversizedBodyIsMonitoringEvidence() {
        assertMonitoring(one(new ProbeTarget.Prometheus("order", base + "/huge", 5000, null)), "BODY_TOO_LARGE",
                "body larger than " + Probes.MAX_BODY_BYTES + " bytes");
    }

    @Test
    void httpDownTimeoutRefusedAnd5xxAreModuleEvidence() throws Exception {
        assertModule(one(new ProbeTarget.Http("order", base + "/down200", 3000)), "DOWN");
        assertModule(one(new ProbeTarget.Http("order", base + "/err", 3000)), "HTTP_500");
        assertModule(one(new ProbeTarget.Http("order", base + "/hang", 300)), "TIMEOUT");
        assertModule(one(new ProbeTarget.Http("order", "http://127.0.0.1:" + closedPort() + "/health", 3000)), "REFUSED");
        assertModule(one(new ProbeTarget.Tcp("order", "127.0.0.1", closedPort(), 3000)), "REFUSED");
    }

    @Test
    void httpHealth404IsMonitoringEvidence() {
        assertMonitoring(one(new ProbeTarget.Http("order", base + "/missing", 3000)), "HTTP_404", "HTTP 404");
    }

    @Test
    void grpcUnknownServiceAndMissingHealthServiceAreMonitoringEvidence() {
        assertMonitoring(one(new ProbeTarget.Grpc("x", "127.0.0.1", grpc.getPort(), "no.Such", 3000)), "NOT_FOUND",
                "unknown service 'no.Such'");
        assertMonitoring(one(new ProbeTarget.Grpc("x", "127.0.0.1", grpcNoHealth.getPort(), "", 3000)), "UNIMPLEMENTED",
                "no grpc.health.v1.Health service");
    }

    @Test
    void grpcNotServingAndRefusedAreModuleEvidence() throws Exception {
        assertModule(one(new ProbeTarget.Grpc("stock", "127.0.0.1", grpc.getPort(), "stock.Stock", 3000)), "NOT_SERVING");
        assertModule(one(new ProbeTarget.Grpc("stock", "127.0.0.1", closedPort(), "", 3000)), "REFUSED");
    }

    @Test
    void anUnresolvableHostIsMonitoringEvidence() {
        // called directly: the subject is the classification, not the round's deadline
        try (Probes probes = new Probes()) {
            assertMonitoring(probes.http(new ProbeTarget.Http("o", "http://no-such-host.invalid/health", 3000)),
                    "UNKNOWN_HOST", "does not resolve");
            assertMonitoring(probes.grpc(new ProbeTarget.Grpc("o", "no-such-host.invalid", 50051, "", 3000)),
                    "UNKNOWN_HOST", "does not resolve");
            assertMonitoring(probes.tcp(new ProbeTarget.Tcp("o", "no-such-host.invalid", 80, 3000)),
                    "UNKNOWN_HOST", "does not resolve");
        }
    }

    @Test
    void roundIsConcurrentAndBoundedByTheLargestDeadline() {
        var targets = List.<ProbeTarget>of(
                new ProbeTarget.Http("a", base + "/hang", 400), new ProbeTarget.Http("b", base + "/hang", 400),
                new ProbeTarget.Http("c", base + "/hang", 400), new ProbeTarget.Http("d", base + "/up", 400));
        long t0 = System.nanoTime();
        var result = prober.run(new ProbeRound("r1", "t1", "formal", 0, targets));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 400 + Prober.DEFAULT_GRACE_MS + 300, "round took " + ms + " ms (serial would be 1200+)");
        assertEquals(List.of(false, false, false, true), result.reports().stream().map(HealthReport::ok).toList());
    }

    @Test
    void bulkheadBoundsProbesPerEndpoint() {
        try (Prober small = new Prober(new Probes(), 2, 100, System::currentTimeMillis)) {
            var targets = List.<ProbeTarget>of(new ProbeTarget.Http("a", base + "/hang", 300),
                    new ProbeTarget.Http("a", base + "/hang", 300), new ProbeTarget.Http("a", base + "/hang", 300));
            var reports = small.run(new ProbeRound("r", "t", "formal", 0, targets)).reports();
            assertEquals(1, reports.stream().filter(r -> r.status().equals("BULKHEAD_FULL")).count(), reports.toString());
        }
    }

    @Test
    void handlerReadsTheSampleEventShape() throws Exception {
        String event = """
                {"runId":"run-1","teamId":"team-a","stage":"formal","stepIndex":1,"targets":[
                 {"module":"order","kind":"http","url":"%s/up","timeoutMs":1000},
                 {"module":"order","kind":"tcp","host":"127.0.0.1","port":%d,"timeoutMs":2000},
                 {"module":"order","kind":"prometheus","url":"%s/prom","timeoutMs":1000},
                 {"module":"x","kind":"grpc","host":"127.0.0.1","port":%d,"service":"","timeoutMs":2000}]}
                """.formatted(base, http.getAddress().getPort(), base, grpc.getPort());
        var out = new ByteArrayOutputStream();
        new ProbeHandler(prober).handleRequest(new ByteArrayInputStream(event.getBytes(StandardCharsets.UTF_8)), out, null);
        var result = Json.read(out.toString(StandardCharsets.UTF_8), ProbeRoundResult.class);
        assertEquals("run-1", result.runId());
        assertEquals(List.of("http", "tcp", "prometheus", "grpc"), result.reports().stream().map(HealthReport::kind).toList());
        assertTrue(result.reports().stream().allMatch(HealthReport::ok), result.reports().toString());
    }

    @Test
    void handlerWritesOneEmfLinePerRoundWithItsDurationAndFailedProbesByKind() throws Exception {
        String event = """
                {"runId":"run-9","teamId":"team-a","stage":"pre-test","stepIndex":0,"targets":[
                 {"module":"order","kind":"http","url":"%s/up","timeoutMs":1000},
                 {"module":"stock","kind":"http","url":"%s/down503","timeoutMs":1000},
                 {"module":"order","kind":"tcp","host":"127.0.0.1","port":%d,"timeoutMs":2000}]}
                """.formatted(base, base, http.getAddress().getPort());
        try (var capture = new dev.richter.common.metrics.MetricsCapture()) {
            long t0 = System.nanoTime();
            new ProbeHandler(prober).handleRequest(new ByteArrayInputStream(event.getBytes(StandardCharsets.UTF_8)),
                    new ByteArrayOutputStream(), null);
            double elapsedMs = (System.nanoTime() - t0) / 1e6;
            var lines = capture.lines();
            assertEquals(1, lines.size());
            var line = lines.get(0);
            var directive = line.path("_aws").path("CloudWatchMetrics").get(0);
            assertEquals("Richter", directive.path("Namespace").asText());
            assertEquals("[[\"Function\",\"Stage\"]]", directive.path("Dimensions").toString());
            assertEquals("probe", line.path("Function").asText());
            assertEquals("Milliseconds", dev.richter.common.metrics.MetricsCapture.unit(directive, "ProbeRoundDuration"));
            double duration = line.path("ProbeRoundDuration").asDouble();
            assertTrue(duration > 0 && duration <= elapsedMs, duration + " ms of a handler call of " + elapsedMs + " ms");
            for (String name : List.of("FailedProbes", "FailedProbesHttp", "FailedProbesTcp", "MissingEvidence")) {
                assertEquals("Count", dev.richter.common.metrics.MetricsCapture.unit(directive, name));
            }
            assertEquals(1, line.path("FailedProbes").asLong());
            assertEquals(1, line.path("FailedProbesHttp").asLong(), "the 503 OUT_OF_SERVICE answer");
            assertEquals(0, line.path("FailedProbesTcp").asLong());
            assertEquals(0, line.path("MissingEvidence").asLong());
            assertEquals("run-9", line.path("runId").asText());
            assertEquals("team-a", line.path("teamId").asText());
            assertEquals("pre-test", line.path("runStage").asText());
        }
    }

    // What a SnapStart restore renews: Probes.reopen, and the hook ProbeHandler registers for it.

    @Test
    void reopenReplacesItsOwnHttpClientAndDropsTheGrpcChannels() {
        Probes probes = new Probes();
        try {
            assertTrue(probes.http(new ProbeTarget.Http("order", base + "/up", 1000, "")).ok());
            assertTrue(probes.grpc(new ProbeTarget.Grpc("order", "127.0.0.1", grpc.getPort(), "", 1000, false, "")).ok());
            HttpClient before = probes.clientFor("");
            assertEquals(1, probes.openChannels());

            probes.reopen();

            HttpClient after = probes.clientFor("");
            assertNotSame(before, after);
            assertTrue(before.isTerminated() || awaitTerminated(before), "the snapshot's client is shut down");
            assertFalse(after.isTerminated());
            assertEquals(0, probes.openChannels());
            // and probing goes on over new connections
            assertTrue(probes.http(new ProbeTarget.Http("order", base + "/up", 1000, "")).ok());
            assertTrue(probes.grpc(new ProbeTarget.Grpc("order", "127.0.0.1", grpc.getPort(), "", 1000, false, "")).ok());
            assertEquals(1, probes.openChannels());
        } finally {
            probes.close();
            probes.clientFor("").shutdownNow();
        }
    }

    @Test
    void aClientGivenToTheConstructorIsTheCallersAndKept() {
        HttpClient given = Probes.httpClient(null);
        Probes probes = new Probes(given, System::currentTimeMillis);
        probes.reopen();
        assertSame(given, probes.clientFor(""));
        assertFalse(given.isTerminated());
        given.shutdownNow();
    }

    @Test
    void theLambdaConstructorRegistersTheReopenHook() {
        new ProbeHandler();
        SnapStartHooks.Hook hook = SnapStartHooks.registered().stream()
                .filter(h -> h.name().equals(ProbeHandler.REOPEN_HOOK)).findFirst().orElseThrow();
        hook.afterRestore(null);   // as Lambda's runtime does on a restore: must not throw
        assertEquals(1, SnapStartHooks.registered().stream().filter(h -> h.name().equals(ProbeHandler.REOPEN_HOOK)).count());
    }

    private static boolean awaitTerminated(HttpClient client) {
        try {
            return client.awaitTermination(java.time.Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
