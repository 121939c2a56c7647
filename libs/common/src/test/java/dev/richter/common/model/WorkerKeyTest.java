package dev.richter.common.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class WorkerKeyTest {
    @Test
    void namesNumberStepsAndLegsFromOneAndWorkersByIndex() {
        assertEquals("formal/step 3/leg 2/worker 0", new WorkerKey("formal", 2, 1, 0).name());
        assertEquals(new WorkerKey("pre-test", 0, 0, 4).name(), new WorkerTask("r", "t", "pre-test", 0, 10, 5, 4, 8, 0,
                1000, 10, 100, Marker.DEFAULT, List.of(), 0, 0, Long.MAX_VALUE, 6000).workerName());
    }

    @Test
    void ordersByStepAndLegAsNumbersNotAsText() {
        var keys = new TreeSet<>(List.of(new WorkerKey("formal", 9, 0, 0), new WorkerKey("formal", 1, 0, 10),
                new WorkerKey("formal", 1, 0, 2)));
        assertEquals(List.of("formal/step 2/leg 1/worker 2", "formal/step 2/leg 1/worker 10", "formal/step 10/leg 1/worker 0"),
                keys.stream().map(WorkerKey::name).toList());
    }
}
