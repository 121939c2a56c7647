package dev.richter.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.richter.common.model.HealthReport;
import dev.richter.common.net.AllowedNetworks;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 41, places Richter must not reach: every probe checks its target's host against the deployment's networks at
 * the call, on what the host resolves to then; a refused target is not called (counted at the server: 0 requests) and
 * its report says why, as failing module evidence for a service and monitoring evidence for a team's source.
 */
class ProberNetworksTest {
    private HttpServer server;
    private final AtomicInteger requests = new AtomicInteger();
    /**
     * What the check sees {@code localhost} resolve to now (the HTTP client's own lookup still finds the loopback
     * server): a name can come to resolve elsewhere after its registration.
     */
    private volatile String shopAddress = "127.0.0.1";

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", ex -> {
            requests.incrementAndGet();
            byte[] body = "{\"status\":\"UP\"}".getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private InetAddress[] resolve(String host) throws UnknownHostException {
        if (host.equals("localhost")) {
            return new InetAddress[] {InetAddress.getByName(shopAddress)};
        }
        return InetAddress.getAllByName(host);
    }

    private List<HealthReport> round(AllowedNetworks networks, List<ProbeTarget> targets) {
        try (Prober prober = new Prober(new Probes(), 4, 250, System::currentTimeMillis, networks)) {
            return prober.run(new ProbeRound("r1", "t1", "formal", 0, targets)).reports();
        }
    }

    @Test
    void aServiceWhoseNameCameToResolveToTheMetadataAddressIsNotCalledAndFailsAsModuleEvidence() {
        int port = server.getAddress().getPort();
        var networks = new AllowedNetworks("", true, this::resolve);
        ProbeTarget health = new ProbeTarget.Http("order", "http://localhost:" + port + "/actuator/health", 1000);

        HealthReport before = round(networks, List.of(health)).getFirst();
        assertTrue(before.ok(), before.toString());
        assertEquals(1, requests.get(), "called while the name resolves to an allowed address");

        shopAddress = "169.254.169.254";
        HealthReport after = round(networks, List.of(health)).getFirst();
        assertFalse(after.ok());
        assertEquals(Prober.NETWORK_REFUSED, after.status());
        assertEquals(HealthReport.Evidence.MODULE, after.evidence(), "the service fails its probe: its run stops");
        assertTrue(after.detail().contains("169.254.169.254") && after.detail().contains("link-local"), after.detail());
        assertEquals(1, requests.get(), "nothing sent once the name resolves to a refused address");
    }

    @Test
    void onAwsLoopbackIsRefusedForEveryKindOfProbeAndATeamsSourceIsMonitoringEvidence() {
        int port = server.getAddress().getPort();
        var aws = new AllowedNetworks("", false, this::resolve);
        List<ProbeTarget> targets = List.of(
                new ProbeTarget.Http("order", "http://127.0.0.1:" + port + "/actuator/health", 1000),
                new ProbeTarget.Tcp("order", "127.0.0.1", port, 1000),
                new ProbeTarget.Grpc("order", "127.0.0.1", port, "", 1000),
                new ProbeTarget.Alerts("order", "http://[::1]:" + port, "am", Map.of(), "service", 1000));
        List<HealthReport> reports = round(aws, targets);
        for (HealthReport r : reports) {
            assertEquals(Prober.NETWORK_REFUSED, r.status(), r.toString());
            assertTrue(r.detail().contains("loopback"), r.detail());
        }
        assertEquals(HealthReport.Evidence.MONITORING, reports.get(3).evidence(), "the team's Alertmanager is not the module");
        assertEquals(0, requests.get(), "the loopback server got nothing");

        assertTrue(round(new AllowedNetworks("", true, this::resolve), targets.subList(0, 1)).getFirst().ok(),
                "the local stack allows loopback");
        assertEquals(1, requests.get());
    }
}
