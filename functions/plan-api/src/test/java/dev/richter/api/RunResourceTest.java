package dev.richter.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /runs/{runId}}'s parts: {@link RunResource#stageRank} lists a run's steps in run order, each stage apart;
 * the running step says when it started and how long it has run; an aborted run says how fast its load stopped.
 */
class RunResourceTest {
    @Test
    void theWarmUpIsItsOwnStepAfterThePreTestNotMergedWithTheFirstFormalStep() {
        List<String> stages = List.of("formal", "pre-test", "warm-up");
        assertEquals(List.of("pre-test", "warm-up", "formal"),
                stages.stream().sorted(Comparator.comparingInt(RunResource::stageRank)).toList());
        // the status groups results by rank and index: the pre-test's step 0, the warm-up's step 0 and formal step 0 are different keys
        assertEquals(0, RunResource.stageRank("pre-test"));
        assertEquals(1, RunResource.stageRank("warm-up"));
        assertEquals(2, RunResource.stageRank("formal"));
        assertEquals(3, RunResource.stageRank("confirm"), "apart from formal step 1, whose index it shares");
    }

    private static final dev.richter.common.model.Counters COUNTS = new dev.richter.common.model.Counters(100, 100, 100,
            java.util.Map.of(), 0, 0, 0, 0, 100);

    private static dev.richter.common.model.WorkerResult worker(int index, long endedAtMs, boolean aborted, long lastSentAtMs) {
        return new dev.richter.common.model.WorkerResult("run-1", "formal", 3, index, 2, 80, 10_000, endedAtMs, COUNTS,
                null, null, aborted, 0, 0, 0, List.of(), lastSentAtMs);
    }

    @Test
    void anAbortedRunSaysWhenTheFlagWasSetAndHowFastTheLoadStoppedAndDrained() {
        var run = new dev.richter.common.model.Run("run-1", "p", "t1", "RUNNING", null, "formal", 3, 1, true,
                "requested by alice: enough", "");
        var item = java.util.Map.of("abortRequestedAtMs",
                software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromN("20000"));
        var both = RunResource.abort(run, item, List.of(worker(0, 20_900, true, 20_350), worker(1, 22_410, true, 20_120)));
        assertEquals(java.util.Map.of("reason", "requested by alice: enough", "requestedAtMs", 20_000L, "latencyMs", 350L,
                "drainMs", 2_410L), both, "flag to the last send of any worker; flag to the last aborted worker's end");
        assertEquals(java.util.Map.of("reason", "requested by alice: enough", "requestedAtMs", 20_000L),
                RunResource.abort(run, item, List.of()), "the workers have not reported yet");
        assertEquals(java.util.Map.of("reason", "requested by alice: enough"),
                RunResource.abort(run, java.util.Map.of(), List.of()), "the flag's time not written yet");
    }

    @Test
    void theRunningStepSaysWhenItStartedAndHowLongItHasRun() {
        var run = new dev.richter.common.model.Run("run-1", "p", "t1", "RUNNING", null, "formal", 3, 1, false, null, "");
        var item = java.util.Map.of("stepEndsAtMs", software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromN("160000"),
                "stepQps", software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromN("80"));
        var current = RunResource.current(run, item, 60, 112_500);
        assertEquals(100_000L, current.get("startsAtMs"), "its end less its 60 s");
        assertEquals(12.5, (Double) current.get("elapsedS"), 1e-9);
        assertEquals(0.0, (Double) RunResource.current(run, item, 60, 90_000).get("elapsedS"), 1e-9, "not started yet");
    }

    @Test
    void aStepsElapsedSecondsRunFromItsFirstWorkerStartToItsLastWorkersEnd() {
        var f = dev.richter.report.StepFigures.merge(10, List.of(worker(0, 20_250, false, 20_000), worker(1, 20_500, false, 20_000)));
        assertEquals(10.5, (Double) RunResource.stepSummary(f).get("elapsedS"), 1e-9);
    }
}
