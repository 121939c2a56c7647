package dev.richter.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.richter.common.model.EvidenceSources.MetricExpectation;
import dev.richter.common.model.HealthReport;
import dev.richter.common.model.HealthReport.Evidence;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code promql} and {@code alertmanager} probes against a loopback server answering what the real servers answer
 * (resources/evidence): a read value, a firing alert, and every bad answer as missing evidence.
 */
class EvidenceProbesTest {
    HttpServer server;
    String base;
    final AtomicReference<String> body = new AtomicReference<>("");
    final AtomicReference<Integer> status = new AtomicReference<>(200);
    final AtomicReference<Long> delayMs = new AtomicReference<>(0L);
    final AtomicReference<String> lastQuery = new AtomicReference<>("");
    /** A fixed clock before the captured alerts' endsAt, so they are firing. */
    final long nowMs = Instant.parse("2026-12-02T15:08:10Z").toEpochMilli();
    final Probes probes = new Probes(Probes.httpClient(null), () -> nowMs);

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", ex -> {
            lastQuery.set(ex.getRequestURI().getPath() + "?" + URLDecoder.decode(String.valueOf(ex.getRequestURI().getRawQuery()), StandardCharsets.UTF_8));
            try {
                Thread.sleep(delayMs.get());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            byte[] b = body.get().getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(status.get(), b.length == 0 ? -1 : b.length);
            if (b.length > 0) ex.getResponseBody().write(b);
            ex.close();
        });
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        server.stop(0);
        probes.close();
    }

    ProbeTarget.PromQuery query(String url) {
        return query(url, 5000);
    }

    ProbeTarget.PromQuery query(String url, long timeoutMs) {
        return new ProbeTarget.PromQuery("order", url, "orders-per-second", "sum(rate(orders_placed_total[15s]))", timeoutMs,
                new MetricExpectation(null, null, 0.5, null, true));
    }

    @Test
    void aReadValueCarriesItsExpectationForTheDecider() {
        body.set(EvidenceAnswersTest.answer("q-vector.json"));
        HealthReport r = probes.probe(query(base));
        assertTrue(r.ok(), r.detail());
        assertEquals("promql", r.kind());
        assertEquals("READ", r.status());
        assertEquals(Map.of("business:orders-per-second", 1.0, "business:orders-per-second:baselineMinRatio", 0.5,
                "business:orders-per-second:loadProportional", 1.0), r.metrics());
        assertEquals("/api/v1/query?query=sum(rate(orders_placed_total[15s]))", lastQuery.get());
    }

    @Test
    void everyBadAnswerIsMissingEvidenceNamingTheMetric() {
        record Case(int status, String body, String statusSeen, String detail) {}
        for (Case c : List.of(
                new Case(400, EvidenceAnswersTest.answer("q-bad.json"), "HTTP_400",
                        "business metric 'orders-per-second' (" + base + "): answered HTTP 400: bad_data: invalid parameter \"query\": 1:5: parse error: unclosed left parenthesis"),
                new Case(503, "", "HTTP_503", "business metric 'orders-per-second' (" + base + "): answered HTTP 503"),
                new Case(500, "oops", "HTTP_500", "business metric 'orders-per-second' (" + base + "): answered HTTP 500"),
                new Case(404, "", "HTTP_404", "business metric 'orders-per-second' (" + base + "): answered HTTP 404 (not found: check the path)"),
                new Case(200, "{not json", "BAD_ANSWER", null),
                new Case(200, EvidenceAnswersTest.answer("q-vector-nan.json"), "BAD_ANSWER",
                        "business metric 'orders-per-second' (" + base + "): $.data.result[0].value: value is NaN, not a finite number"))) {
            status.set(c.status());
            body.set(c.body());
            HealthReport r = probes.probe(query(base));
            assertFalse(r.ok(), c.toString());
            assertEquals(Evidence.MONITORING, r.evidence(), c.toString());
            assertTrue(r.missingEvidence());
            assertEquals(c.statusSeen(), r.status(), c.toString());
            if (c.detail() != null) assertEquals(c.detail(), r.detail());
            else assertTrue(r.detail().contains("answer is not JSON"), r.detail());
        }
    }

    @Test
    void aTimeoutOrARefusedConnectionIsMissingEvidenceNeverModuleEvidence() throws IOException {
        delayMs.set(3000L);
        body.set(EvidenceAnswersTest.answer("q-vector.json"));
        HealthReport slow = probes.probe(query(base, 300));
        assertEquals("TIMEOUT", slow.status());
        assertEquals(Evidence.MONITORING, slow.evidence());
        assertTrue(slow.detail().startsWith("business metric 'orders-per-second' (" + base + "): timed out"), slow.detail());

        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        HealthReport refused = probes.probe(new ProbeTarget.Alerts("order", "http://127.0.0.1:" + closed, "oncall",
                Map.of(), "service", 5000));
        assertEquals("REFUSED", refused.status());
        assertEquals(Evidence.MONITORING, refused.evidence());
    }

    @Test
    void aFullBulkheadBeforeAnEvidenceSourceIsMissingEvidenceNotModuleEvidence() {
        delayMs.set(300L);
        body.set(EvidenceAnswersTest.answer("q-vector.json"));
        try (Prober prober = new Prober(new Probes(Probes.httpClient(null), () -> nowMs), 1, 250, () -> nowMs)) {
            var round = prober.run(new ProbeRound("run", "t1", "formal", 0, List.of(query(base), query(base),
                    new ProbeTarget.Http("order", base + "/health", 1000), new ProbeTarget.Http("order", base + "/health", 1000))));
            Map<String, List<HealthReport.Evidence>> full = new java.util.TreeMap<>();
            for (HealthReport r : round.reports()) {
                if (r.status().equals("BULKHEAD_FULL")) full.computeIfAbsent(r.kind(), k -> new java.util.ArrayList<>()).add(r.evidence());
            }
            assertTrue(full.containsKey("promql"), "one endpoint, one permit: a second query finds the bulkhead full: " + round);
            full.getOrDefault("promql", List.of()).forEach(e -> assertEquals(Evidence.MONITORING, e));
            full.getOrDefault("http", List.of()).forEach(e -> assertEquals(Evidence.MODULE, e, "a module's own probe stays module evidence"));
        }
    }

    @Test
    void aFiringAlertOfTheModuleIsModuleEvidenceWithItsNameAndStart() {
        body.set(EvidenceAnswersTest.answer("am-all.json"));
        HealthReport r = probes.probe(new ProbeTarget.Alerts("order", base, "oncall", Map.of("team", "shop"), "service", 5000));
        assertEquals("/api/v2/alerts?active=true&silenced=false&inhibited=false&filter=service=\"order\"&filter=team=\"shop\"",
                lastQuery.get());
        assertFalse(r.ok());
        assertEquals(Evidence.MODULE, r.evidence());
        assertEquals("FIRING", r.status());
        assertEquals(List.of("AlwaysFiring"), r.failingComponents(), "Manual has no team=shop label: not this source's");
        assertEquals(Map.of("alert:AlwaysFiring", (double) Instant.parse("2026-12-02T15:07:58.119Z").toEpochMilli()), r.metrics());
        assertEquals("alert AlwaysFiring firing in alertmanager 'oncall' (" + base + ")", r.detail());
    }

    @Test
    void noAlertOrOnlyResolvedOnesIsOk() {
        body.set("[]");
        HealthReport none = probes.probe(new ProbeTarget.Alerts("order", base, "oncall", Map.of(), "service", 5000));
        assertTrue(none.ok());
        assertEquals("NONE_FIRING", none.status());
        // the same alert after its endsAt: resolved
        Probes later = new Probes(Probes.httpClient(null), () -> Instant.parse("2026-12-02T15:09:00Z").toEpochMilli());
        body.set(EvidenceAnswersTest.answer("am-alerts.json"));
        assertTrue(later.probe(new ProbeTarget.Alerts("order", base, "oncall", Map.of(), "service", 5000)).ok());
        later.close();
    }

    @Test
    void aBadAlertmanagerAnswerIsMissingEvidence() {
        status.set(400);
        body.set(EvidenceAnswersTest.answer("am-bad-filter.json"));
        HealthReport r = probes.probe(new ProbeTarget.Alerts("order", base, "oncall", Map.of(), "service", 5000));
        assertEquals("HTTP_400", r.status());
        assertEquals(Evidence.MONITORING, r.evidence());
        status.set(200);
        body.set("{\"alerts\":[]}");
        HealthReport odd = probes.probe(new ProbeTarget.Alerts("order", base, "oncall", Map.of(), "service", 5000));
        assertEquals("BAD_ANSWER", odd.status());
        assertEquals("alertmanager 'oncall' (" + base + "): answer is not a list of alerts", odd.detail());
        assertEquals(Evidence.MONITORING, odd.evidence());
    }

    @Test
    void anAlertThatCannotBeReadCostsNoFiringAlertOfTheModuleAndIsMissingEvidenceWhenNoneFires() {
        String firing = EvidenceAnswersTest.answer("am-all.json");
        body.set("[{\"labels\":{\"alertname\":\"Odd\",\"service\":\"order\"}}," + firing.substring(1));
        HealthReport r = probes.probe(new ProbeTarget.Alerts("order", base, "oncall", Map.of("team", "shop"), "service", 5000));
        assertEquals("FIRING", r.status(), r.toString());
        assertEquals(Evidence.MODULE, r.evidence());
        assertEquals(List.of("AlwaysFiring"), r.failingComponents());
        assertEquals("alert AlwaysFiring firing in alertmanager 'oncall' (" + base + "); 1 alert not read: $[0].status.state"
                + " is missing", r.detail());

        body.set("[{\"labels\":{\"alertname\":\"Odd\",\"service\":\"order\"}}]");
        HealthReport unknown = probes.probe(new ProbeTarget.Alerts("order", base, "oncall", Map.of(), "service", 5000));
        assertEquals("BAD_ANSWER", unknown.status(), "the alert not read may be the module's firing one: " + unknown);
        assertEquals(Evidence.MONITORING, unknown.evidence());
        assertEquals("alertmanager 'oncall' (" + base + "): no readable alert of the module fires; 1 alert not read:"
                + " $[0].status.state is missing", unknown.detail());
    }
}
