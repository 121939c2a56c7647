package dev.richter.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link RunResource#stageRank}: a run's status lists its steps in run order, each stage apart. */
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
    }
}
