package dev.richter.probe;

import dev.richter.common.tls.TlsTrust;

import static org.junit.jupiter.api.Assertions.*;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.richter.common.Json;
import dev.richter.common.model.HealthReport;
import dev.richter.common.model.HealthReport.Evidence;
import io.grpc.Server;
import io.grpc.TlsServerCredentials;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * HTTPS and gRPC-over-TLS probes against loopback servers whose certificates come from a CA made at test
 * time ({@link TestPki}): trusted through {@code caPem}, untrusted (no CA, wrong CA), hostname mismatch, and
 * a {@code caPem} that is not valid.
 */
class TlsProbesTest {
    /** Deadline of the probes here: generous, since the subject is the TLS outcome, not the timing. */
    static final long DEADLINE_MS = 5000;

    static TestPki.Ca ca;
    static TestPki.Ca otherCa;
    static HttpsServer https;
    static HttpsServer httpsWrongName;
    static Server grpc;
    static Server grpcWrongName;
    static String base;
    static String baseWrongName;
    static Probes probes;

    @BeforeAll
    static void start() throws Exception {
        ca = TestPki.newCa("Richter Test CA");
        otherCa = TestPki.newCa("Some Other CA");
        TestPki.Server server = ca.issueServer("localhost", "127.0.0.1");
        TestPki.Server wrongName = ca.issueServer("other.example");

        https = httpsServer(server);
        httpsWrongName = httpsServer(wrongName);
        base = "https://127.0.0.1:" + https.getAddress().getPort();
        baseWrongName = "https://127.0.0.1:" + httpsWrongName.getAddress().getPort();

        grpc = grpcServer(server);
        grpcWrongName = grpcServer(wrongName);
        probes = new Probes();
    }

    static HttpsServer httpsServer(TestPki.Server cert) throws Exception {
        HttpsServer s = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        s.setHttpsConfigurator(new HttpsConfigurator(cert.serverContext()));
        s.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        route(s, "/actuator/health", "{\"status\":\"UP\"}");
        route(s, "/actuator/prometheus", "jvm_memory_used_bytes{area=\"heap\"} 30\njvm_memory_max_bytes{area=\"heap\"} 100\n");
        s.start();
        return s;
    }

    static void route(HttpsServer s, String path, String body) {
        s.createContext(path, ex -> {
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
    }

    static Server grpcServer(TestPki.Server cert) throws Exception {
        HealthStatusManager health = new HealthStatusManager();
        health.setStatus("order.Orders", ServingStatus.SERVING);
        return NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0),
                        TlsServerCredentials.newBuilder().keyManager(cert.keyManagers()).build())
                .addService(health.getHealthService()).build().start();
    }

    @AfterAll
    static void stop() {
        https.stop(0);
        httpsWrongName.stop(0);
        grpc.shutdownNow();
        grpcWrongName.shutdownNow();
        probes.close();
    }

    static void assertTlsRejected(HealthReport r) {
        assertFalse(r.ok(), r.toString());
        assertEquals("TLS_ERROR", r.status(), r.toString());
        assertEquals(Evidence.MONITORING, r.evidence());
        assertTrue(r.missingEvidence());
        assertTrue(r.detail().startsWith("TLS: the server's certificate was rejected, trusting "), r.detail());
    }

    @Test
    void httpsHealthTrustedThroughCaPemIsUp() {
        var r = probes.http(new ProbeTarget.Http("order", base + "/actuator/health", DEADLINE_MS, ca.pem()));
        assertTrue(r.ok(), r.toString());
        assertEquals("UP", r.status());
        assertEquals(Evidence.MODULE, r.evidence());
    }

    @Test
    void httpsPrometheusTrustedThroughCaPemIsScraped() {
        var r = probes.prometheus(new ProbeTarget.Prometheus("order", base + "/actuator/prometheus", DEADLINE_MS, null, ca.pem()));
        assertTrue(r.ok(), r.toString());
        assertEquals(0.3, r.metrics().get(ResourceMetricNames.HEAP_USED_RATIO), 1e-9);
    }

    @Test
    void httpsWithoutCaPemUsesTheSystemStoreAndRejectsTheTestCa() {
        var r = probes.http(new ProbeTarget.Http("order", base + "/actuator/health", DEADLINE_MS));
        assertTlsRejected(r);
        assertTrue(r.detail().contains("trusting the system trust store (no caPem)"), r.detail());
        assertTrue(r.detail().contains("certification path"), r.detail());
    }

    @Test
    void httpsWithTheWrongCaIsRejected() {
        var r = probes.http(new ProbeTarget.Http("order", base + "/actuator/health", DEADLINE_MS, otherCa.pem()));
        assertTlsRejected(r);
        assertTrue(r.detail().contains("trusting only the CA certificates in caPem"), r.detail());
        assertTlsRejected(probes.prometheus(
                new ProbeTarget.Prometheus("order", base + "/actuator/prometheus", DEADLINE_MS, null, otherCa.pem())));
    }

    @Test
    void httpsCaBundleWithTheRightCaAmongOthersIsTrusted() {
        String bundle = otherCa.pem() + "subject=CN = Richter Test CA\n" + ca.pem();
        assertTrue(probes.http(new ProbeTarget.Http("order", base + "/actuator/health", DEADLINE_MS, bundle)).ok());
    }

    @Test
    void httpsHostnameMismatchIsRejected() {
        var r = probes.http(new ProbeTarget.Http("order", baseWrongName + "/actuator/health", DEADLINE_MS, ca.pem()));
        assertTlsRejected(r);
        assertTrue(r.detail().contains("127.0.0.1"), r.detail());
    }

    @Test
    void grpcTlsTrustedThroughCaPemIsServing() {
        var r = probes.grpc(new ProbeTarget.Grpc("order", "127.0.0.1", grpc.getPort(), "order.Orders", DEADLINE_MS, true, ca.pem()));
        assertTrue(r.ok(), r.toString());
        assertEquals("SERVING", r.status());
        assertEquals(Evidence.MODULE, r.evidence());
    }

    @Test
    void grpcCaPemImpliesTls() {
        var t = new ProbeTarget.Grpc("order", "127.0.0.1", grpc.getPort(), "", DEADLINE_MS, false, ca.pem());
        assertTrue(t.tls());
        assertTrue(probes.grpc(t).ok());
    }

    @Test
    void grpcTlsWithoutCaPemIsRejected() {
        assertTlsRejected(probes.grpc(new ProbeTarget.Grpc("order", "127.0.0.1", grpc.getPort(), "", DEADLINE_MS, true, "")));
    }

    @Test
    void grpcTlsWithTheWrongCaIsRejected() {
        assertTlsRejected(probes.grpc(new ProbeTarget.Grpc("order", "127.0.0.1", grpc.getPort(), "", DEADLINE_MS, true, otherCa.pem())));
    }

    @Test
    void grpcTlsHostnameMismatchIsRejected() {
        assertTlsRejected(probes.grpc(
                new ProbeTarget.Grpc("order", "127.0.0.1", grpcWrongName.getPort(), "", DEADLINE_MS, true, ca.pem())));
    }

    @Test
    void aCaPemThatDoesNotParseFailsTheTargetNamingTheField() {
        String corrupt = "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n";
        for (String bad : List.of("not a certificate", corrupt)) {
            for (HealthReport r : List.of(
                    probes.http(new ProbeTarget.Http("order", base + "/actuator/health", DEADLINE_MS, bad)),
                    probes.prometheus(new ProbeTarget.Prometheus("order", base + "/actuator/prometheus", DEADLINE_MS, null, bad)),
                    probes.grpc(new ProbeTarget.Grpc("order", "127.0.0.1", grpc.getPort(), "", DEADLINE_MS, true, bad)))) {
                assertFalse(r.ok(), r.toString());
                assertEquals("INVALID_TARGET", r.status(), r.toString());
                assertEquals(Evidence.MONITORING, r.evidence());
                assertTrue(r.detail().startsWith("invalid target: caPem: "), r.detail());
            }
        }
    }

    @Test
    void caPemErrorsSayWhatIsWrong() {
        var none = assertThrows(IllegalArgumentException.class, () -> TlsTrust.parseCaPem("hello"));
        assertTrue(none.getMessage().startsWith("caPem: no PEM certificate found"), none.getMessage());
        var corrupt = assertThrows(IllegalArgumentException.class, () -> TlsTrust.parseCaPem(
                ca.pem() + "-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n"));
        assertTrue(corrupt.getMessage().startsWith("caPem: certificate 2 of 2 does not parse as X.509"), corrupt.getMessage());
        var unterminated = assertThrows(IllegalArgumentException.class,
                () -> TlsTrust.parseCaPem(ca.pem() + "-----BEGIN CERTIFICATE-----\nMIIB\n"));
        assertTrue(unterminated.getMessage().contains("certificate 2 of 2 has no matching -----END CERTIFICATE-----"),
                unterminated.getMessage());
        String key = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n";
        var withKey = assertThrows(IllegalArgumentException.class, () -> TlsTrust.parseCaPem(ca.pem() + key));
        assertEquals("caPem: holds a private key; it must hold only CA certificates", withKey.getMessage());
        var doubleEscaped = assertThrows(IllegalArgumentException.class,
                () -> TlsTrust.parseCaPem(ca.pem().replace("\n", "\\n")));
        assertTrue(doubleEscaped.getMessage().contains("literal '\\n'"), doubleEscaped.getMessage());
        assertEquals(2, TlsTrust.parseCaPem(ca.pem() + otherCa.pem()).size());
    }

    @Test
    void aCaPemWithAPlainHttpUrlIsAnInvalidTarget() {
        var r = probes.http(new ProbeTarget.Http("order", "http://127.0.0.1:9/actuator/health", DEADLINE_MS, ca.pem()));
        assertEquals("INVALID_TARGET", r.status(), r.toString());
        assertEquals(Evidence.MONITORING, r.evidence());
        assertTrue(r.detail().contains("caPem is set but the url is not https://"), r.detail());
    }

    @Test
    void targetJsonCarriesTlsAndCaPem() {
        String event = """
                {"runId":"run-1","teamId":"team-a","stage":"formal","stepIndex":0,"targets":[
                 {"module":"order","kind":"http","url":"%s/actuator/health","timeoutMs":%d,"caPem":%s},
                 {"module":"order","kind":"prometheus","url":"%s/actuator/prometheus","timeoutMs":%d,"caPem":%s},
                 {"module":"order","kind":"grpc","host":"127.0.0.1","port":%d,"service":"order.Orders","timeoutMs":%d,
                  "tls":true,"caPem":%s},
                 {"module":"order","kind":"grpc","host":"127.0.0.1","port":1,"timeoutMs":%d}]}
                """.formatted(base, DEADLINE_MS, Json.write(ca.pem()), base, DEADLINE_MS, Json.write(ca.pem()),
                grpc.getPort(), DEADLINE_MS, Json.write(ca.pem()), DEADLINE_MS);
        ProbeRound round = Json.read(event, ProbeRound.class);
        var grpcTarget = (ProbeTarget.Grpc) round.targets().get(2);
        assertTrue(grpcTarget.tls());
        assertEquals(ca.pem(), grpcTarget.caPem());
        var plain = (ProbeTarget.Grpc) round.targets().get(3);
        assertFalse(plain.tls());
        assertEquals("", plain.caPem());
        try (Prober prober = new Prober(new Probes())) {
            var reports = prober.run(new ProbeRound("run-1", "team-a", "formal", 0, round.targets().subList(0, 3))).reports();
            assertTrue(reports.stream().allMatch(HealthReport::ok), reports.toString());
        }
    }
}
