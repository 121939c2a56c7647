package dev.richter.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.CaughtError;
import dev.richter.common.model.Run;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class RunReleaseTest {
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-02T03:04:05Z"), ZoneOffset.UTC);
    private final MemoryTables db = new MemoryTables();
    private final RunLeases leases = new RunLeases(db.dynamoDb, "leases", CLOCK);
    private final RunRelease release = new RunRelease(db.repositories);

    /** A run of team t1 in {@code status} holding leases on order, inventory and the address of order. */
    private void run(String runId, String status) {
        leases.acquire("t1", runId, "p1", List.of("inventory", "order", "target:127.0.0.1:18081"),
                CLOCK.instant().getEpochSecond() + 3600);
        db.repositories.createRun(new Run(runId, "p1", "t1", "STARTING", "", "", 0, 0, false, "", ""));
        db.repositories.updateRun(runId, Map.of("status", status, "leasedServices", "inventory,order,target:127.0.0.1:18081"));
    }

    @Test
    void releasesTheLeasesARunStillHolds() {
        run("run-1", "COMPLETED");
        assertEquals(List.of("inventory", "order", "target:127.0.0.1:18081"), release.release("run-1", null));
        assertEquals(Map.of(), db.items("leases"));
        assertEquals("COMPLETED", db.items("runs").get("run-1").get("status").s());
        assertEquals(List.of(), release.release("run-1", null), "idempotent: nothing left to release");
        assertEquals(List.of(), release.release("run-unknown", null));
    }

    @Test
    void aRunWhoseReportFailedEndsFailedWithItsAbortFlagSet() {
        run("run-2", "RUNNING");
        String cause = "{\"errorType\":\"java.lang.IllegalStateException\",\"errorMessage\":\"" + "x".repeat(250) + "\"}";
        assertEquals(List.of("inventory", "order", "target:127.0.0.1:18081"), release.release("run-2", new CaughtError("States.TaskFailed", cause)));
        Map<String, AttributeValue> run = db.items("runs").get("run-2");
        String reason = "report failed: States.TaskFailed (" + "x".repeat(200) + "…)";
        assertEquals("FAILED", run.get("status").s());
        assertEquals("ERROR", run.get("outcome").s());
        assertEquals(reason, run.get("failureReason").s());
        assertTrue(run.get("abortRequested").bool());
        assertEquals(reason, run.get("abortReason").s());
        assertEquals(Map.of(), db.items("leases"));
    }

    @Test
    void aCompletedRunStaysCompletedWhenALaterReportFails() {
        run("run-3", "COMPLETED");
        release.release("run-3", new CaughtError("States.Timeout", null));
        assertEquals("COMPLETED", db.items("runs").get("run-3").get("status").s());
        assertFalse(db.items("runs").get("run-3").get("abortRequested").bool());
        assertFalse(db.items("runs").get("run-3").containsKey("failureReason"));
    }

    @Test
    void aBlankRunIdIsRefused() {
        assertEquals("input needs a runId", assertThrows(IllegalArgumentException.class,
                () -> release.release(" ", null)).getMessage());
    }
}
