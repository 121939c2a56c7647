package dev.richter.loaddriver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.Marker;
import dev.richter.common.model.WorkerTask;
import dev.richter.sdk.MarkerProof;
import java.util.List;
import org.junit.jupiter.api.Test;

class StoredTasksTest {
    private static WorkerTask task(long stepStartMs) {
        return new WorkerTask("run-7", "shop-team", "formal", 0, 100, 30, 0, 1, stepStartMs, 2_000, 100, 10,
                Marker.DEFAULT, List.of(), 0, 0, Long.MAX_VALUE);
    }

    @Test
    void aWorkersMarkerIsSignedForItsRunAndTeamAndExpiresAMinuteAfterItsStepCouldBeAnswered() {
        String key = MarkerProof.newKey();
        long start = 1_796_000_000_000L;
        WorkerTask signed = StoredTasks.signed(task(start), List.of(key, MarkerProof.newKey()), start - 5_000);
        String proof = signed.marker().proof();
        MarkerProof.Claims claims = MarkerProof.claims(proof);
        assertEquals("run-7", claims.run());
        assertEquals("shop-team", claims.team());
        assertEquals((start + 30_000 + 2_000) / 1000 + StoredTasks.PROOF_SLACK_S, claims.expiresS());
        assertEquals(MarkerProof.Check.VALID, MarkerProof.verify(proof, "shop-team", List.of(key), start / 1000),
                "signed with the newest key");
        assertEquals(Marker.DEFAULT.key(), signed.marker().key());
        assertEquals(task(start).scenarios(), signed.scenarios());
        // a step that starts now runs from the clock
        assertEquals((start + 40_000 + 32_000) / 1000 + StoredTasks.PROOF_SLACK_S,
                MarkerProof.claims(StoredTasks.signed(task(0), List.of(key), start + 40_000).marker().proof()).expiresS());
    }

    @Test
    void aTeamWithoutAKeySendsNothing() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> StoredTasks.signed(task(0), List.of(), 0));
        assertTrue(e.getMessage().contains("would take this load for production traffic"), e.getMessage());
    }

    @Test
    void aWorkerWhoseTargetResolvesToAMetadataAddressSendsNothing() throws Exception {
        java.net.InetAddress metadata = java.net.InetAddress.getByName("169.254.169.254");
        dev.richter.common.net.AllowedNetworks networks = new dev.richter.common.net.AllowedNetworks("", false,
                host -> host.equals("orders.internal.example.com") ? new java.net.InetAddress[] {metadata}
                        : new java.net.InetAddress[] {java.net.InetAddress.getByName("10.0.3.7")});
        WorkerTask ok = new WorkerTask("run-7", "shop-team", "formal", 0, 100, 30, 0, 1, 0, 2_000, 100, 10,
                Marker.DEFAULT, List.of(new dev.richter.common.model.Scenario("orders", "order",
                        "http://inventory.internal.example.com:8080", 1, List.of())), 0, 0, Long.MAX_VALUE);
        assertEquals(ok, StoredTasks.checked(ok, networks));
        WorkerTask rebound = new WorkerTask("run-7", "shop-team", "formal", 0, 100, 30, 0, 1, 0, 2_000, 100, 10,
                Marker.DEFAULT, List.of(new dev.richter.common.model.Scenario("orders", "order",
                        "http://orders.internal.example.com:8080", 1, List.of())), 0, 0, Long.MAX_VALUE);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> StoredTasks.checked(rebound, networks));
        assertEquals("scenario 'orders' targets http://orders.internal.example.com:8080, which Richter may not call:"
                + " 169.254.169.254 (orders.internal.example.com) is link-local, multicast or unspecified (cloud metadata"
                + " endpoints live there): Richter never calls it; the worker sends nothing", e.getMessage());
    }
}
