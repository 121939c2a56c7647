package dev.richter.loaddriver;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import dev.richter.common.RunScoped;
import dev.richter.common.model.WorkerRef;
import dev.richter.common.model.WorkerTask;
import java.io.IOException;

/**
 * A load-driver worker's event, in one of two shapes told apart by the {@code scenarios} field: a
 * {@link WorkerRef} {@code {runId, teamId, stage, stepIndex, legIndex, workerIndex}} (what the state
 * machines' worker Maps send; {@code events/load-driver/worker-ref.json}), or a full {@link WorkerTask} with its
 * {@code scenarios} (for callers that build one themselves; {@code events/load-driver/worker.json}). Other fields are
 * ignored.
 */
@JsonDeserialize(using = WorkerInput.Decoder.class)
public sealed interface WorkerInput extends RunScoped {
    /** The worker this event names: its run, team, stage, step, leg and index. */
    WorkerRef worker();

    @Override
    default String runId() {
        return worker().runId();
    }

    @Override
    default String teamId() {
        return worker().teamId();
    }

    @Override
    default String stage() {
        return worker().stage();
    }

    @Override
    default Integer stepInStage() {
        return worker().stepIndex();
    }

    /** A reference to a started step's worker; the worker reads its task from the stores ({@link StoredTasks}). */
    record ByReference(WorkerRef ref) implements WorkerInput {
        @Override
        public WorkerRef worker() {
            return ref;
        }
    }

    /** A task given whole. */
    record FullTask(WorkerTask task) implements WorkerInput {
        @Override
        public WorkerRef worker() {
            return new WorkerRef(task.runId(), task.teamId(), task.stage(), task.stepIndex(),
                    task.legIndex(), task.workerIndex());
        }
    }

    /** Reads the event once as a tree and binds it to the shape its {@code scenarios} field names. */
    final class Decoder extends StdDeserializer<WorkerInput> {
        Decoder() {
            super(WorkerInput.class);
        }

        @Override
        public WorkerInput deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            JsonNode event = ctxt.readTree(p);
            return event.has("scenarios") ? new FullTask(ctxt.readTreeAsValue(event, WorkerTask.class))
                    : new ByReference(ctxt.readTreeAsValue(event, WorkerRef.class));
        }
    }
}
