package dev.richter.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.it.ChildJvm.Span;
import dev.richter.sdk.MarkerProof;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A marker only Richter can mint, in a real child JVM ({@link ChildJvm}, the services' Java) running {@link
 * IsolationTestApp} under the extension with a document that names the team's marker key. Each attempt is counted
 * where it would do harm: at the mocked exit, a loopback server standing for the payment provider. A request whose
 * marker has no proof, a malformed one, an expired one, another team's, or one signed with another key runs as
 * production traffic: its charge reaches the real exit, and its server span says why ({@code richter.marker.forged}).
 * The same request with the proof Richter signs is answered by the mock.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SignedMarkerIT {
    private static final String KEY = MarkerProof.newKey();
    private static final String MOCKED = "status=201 body={\"id\":\"ch_mock\"}";

    private CountingServer payment;
    private ChildJvm app;

    @BeforeAll
    void startChild(@TempDir Path dir) throws Exception {
        payment = new CountingServer(200, "real-charge");
        Path doc = dir.resolve("isolation.json");
        Files.writeString(doc, """
                {"scope": [],
                 "mocks": [{"exit": "127.0.0.1:%d POST /charge", "status": 201, "body": "{\\"id\\":\\"ch_mock\\"}"}],
                 "marker": {"team": "shop-team", "keys": ["%s"]}}
                """.formatted(payment.port(), KEY));
        app = new ChildJvm(ChildJvm.serviceJava(), List.of("-Drichter.isolation.file=" + doc,
                "-Drichter.isolation.refresh-s=1"), IsolationTestApp.class, List.of());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        // refused (503) until the document loads; a signed marker, so the wait itself forges nothing
        String signed = "richter-loadtest=1,richter-proof="
                + MarkerProof.mint(KEY, "shop-team", "run-0", System.currentTimeMillis() / 1000 + 600);
        while (app.get("/calls", signed).statusCode() == 503) {
            assertTrue(System.nanoTime() < deadline, "configuration not loaded:\n" + app.output());
            Thread.sleep(200);
        }
    }

    @AfterAll
    void stopAll() {
        ChildJvm.closeAll(app, payment);
    }

    @Test
    void onlyAMarkerWithRichtersProofIsIsolatedAndEveryForgeryIsChargedForRealAndRecorded() throws Exception {
        long now = System.currentTimeMillis() / 1000;
        Map<String, String> forgeries = new LinkedHashMap<>();
        forgeries.put("richter-loadtest=1", "missing");
        forgeries.put("richter-loadtest=1,richter-proof=r1.guess", "malformed");
        forgeries.put("richter-loadtest=1,richter-proof=" + MarkerProof.mint(KEY, "shop-team", "run-1", now - 3_600),
                "expired: run run-1 of team shop-team");
        forgeries.put("richter-loadtest=1,richter-proof=" + MarkerProof.mint(KEY, "other-team", "run-2", now + 600),
                "other team: run run-2 of team other-team");
        forgeries.put("richter-loadtest=1,richter-proof="
                + MarkerProof.mint(MarkerProof.newKey(), "shop-team", "run-3", now + 600), "bad signature: run run-3 of team shop-team");
        String signed = "richter-loadtest=1,richter-proof=" + MarkerProof.mint(KEY, "shop-team", "run-4", now + 600);

        int before = payment.count();
        for (String baggage : forgeries.keySet()) {
            assertEquals("status=200 body=real-charge", app.call(payment.url("/charge"), "POST", false, baggage),
                    "runs as production traffic: " + baggage);
        }
        assertEquals(before + forgeries.size(), payment.count(), "each forged request charged for real");
        for (int i = 0; i < 3; i++) {
            assertEquals(MOCKED, app.call(payment.url("/charge"), "POST", i == 2, signed));
        }
        assertEquals(before + forgeries.size(), payment.count(), "a signed marked charge reached the payment provider");

        List<Span> spans = app.stopAndReadSpans();
        List<String> forgedReasons = spans.stream().filter(s -> s.kind() == Span.SERVER)
                .map(s -> s.attributes().get("richter.marker.forged")).filter(r -> r != null).toList();
        assertEquals(List.copyOf(forgeries.values()), forgedReasons, "one forged server span per attempt, in order");
        List<Span> charges = spans.stream().filter(s -> s.kind() == Span.CLIENT
                && s.attributes().getOrDefault("url.full", "").endsWith("/charge")).toList();
        assertEquals(forgeries.size() + 3, charges.size(), String.valueOf(charges));
        assertEquals(3, charges.stream().filter(s -> "true".equals(s.attributes().get("richter.mock"))).count());
        assertEquals(3, charges.stream().filter(s -> "true".equals(s.attributes().get("richter.isolation.active")))
                .count(), "the proof of isolation is on the signed calls only: " + charges);
        assertTrue(app.output().contains("an inbound request's marker did not verify (missing); it runs as production"
                + " traffic (forged markers so far: 1)"), app.output());
    }
}
