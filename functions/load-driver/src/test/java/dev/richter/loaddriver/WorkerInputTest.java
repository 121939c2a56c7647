package dev.richter.loaddriver;

import dev.richter.common.JsonStreamHandler;
import dev.richter.common.model.WorkerRef;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;


/** A worker's event decodes once into a reference or a full task, told apart by its {@code scenarios}. */
class WorkerInputTest {
    @Test
    void aReferenceEventDecodesToItsReference() throws IOException {
        var input = assertInstanceOf(WorkerInput.ByReference.class, decode("worker-ref.json"));
        assertEquals(new WorkerRef("run-2026-11-30-0001", "team-shop", "formal", 2, 1, 17), input.ref());
        assertEquals("run-2026-11-30-0001", input.runId());
        assertEquals("team-shop", input.teamId());
        assertEquals("formal", input.stage());
        assertEquals(2, input.stepInStage());
    }

    @Test
    void anEventWithScenariosDecodesToTheFullTask() throws IOException {
        var input = assertInstanceOf(WorkerInput.FullTask.class, decode("worker.json"));
        assertEquals(input.task().runId(), input.runId());
        assertEquals(input.task().stage(), input.stage());
        assertEquals(input.task().stepIndex(), input.stepInStage());
        assertEquals(2, input.task().scenarios().size());
    }

    private static WorkerInput decode(String event) throws IOException {
        return JsonStreamHandler.decode(new ByteArrayInputStream(Files.readAllBytes(Path.of("../../events/load-driver", event))),
                WorkerInput.class);
    }
}
