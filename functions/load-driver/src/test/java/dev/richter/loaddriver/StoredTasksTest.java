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
}
