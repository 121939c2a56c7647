package dev.richter.loaddriver;

import dev.richter.common.model.OverloadResponses;
import dev.richter.common.model.WorkerResult;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Where a worker's measurements go. {@link DynamoResultSink} writes them to the run-metrics
 * table; tests and the benchmark keep them in memory.
 */
public interface ResultSink {
    /**
     * Stores finished per-second windows; called about once a second during the step and once at its end. Writing a
     * window again stores the same item (its key is its worker and second), so a retry never counts twice. A failure
     * does not stop the step: the caller keeps the windows not stored and offers them again at the next call, and those
     * still not stored at the end are named in the worker's result ({@code unstoredWindowSeconds}).
     *
     * @throws WindowsNotStoredException naming the windows not stored when only some were
     * @throws RuntimeException          when none may have been stored
     */
    void putWindows(List<Window> windows);

    /** Some windows of a {@link #putWindows} call were not stored (after the sink's own retries). */
    final class WindowsNotStoredException extends RuntimeException {
        private final List<Window> unstored;

        /** @param unstored the windows not stored; {@code cause} the last failure, or null */
        public WindowsNotStoredException(List<Window> unstored, Throwable cause) {
            super(unstored.size() + " windows not stored" + (cause == null ? "" : ": " + cause), cause);
            this.unstored = List.copyOf(unstored);
        }

        /** The windows not stored. */
        public List<Window> unstored() {
            return unstored;
        }
    }

    /**
     * Stores the worker's result with both histograms encoded; called once at the end of the step.
     * A failure propagates to the handler.
     */
    void putResult(WorkerResult result);

    /**
     * Stores the worker's 429/503 responses of its leg (shedding evidence for the report); called once at the end of
     * the step, before {@link #putResult}, and only when the worker received at least one. A failure propagates to
     * the handler.
     */
    void putOverload(OverloadResponses overload);

    /**
     * The worker stopped sending on purpose at {@code epochMs} (its abort flag set, or unread too long): its requests due
     * from then on are not to be sent. Called at most once per step, at that moment, so before the windows of its second
     * are stored. By default nothing.
     */
    default void sendsStopped(long epochMs) {}

    /** A sink that keeps everything in memory (thread-safe). */
    final class InMemory implements ResultSink {
        private final List<Window> windows = new CopyOnWriteArrayList<>();
        private final List<WorkerResult> results = new CopyOnWriteArrayList<>();
        private final List<OverloadResponses> overload = new CopyOnWriteArrayList<>();

        @Override
        public void putWindows(List<Window> ws) {
            windows.addAll(ws);
        }

        @Override
        public void putResult(WorkerResult result) {
            results.add(result);
        }

        @Override
        public void putOverload(OverloadResponses o) {
            overload.add(o);
        }

        /** 429/503 records stored so far. */
        public List<OverloadResponses> overload() {
            return List.copyOf(overload);
        }

        /** Windows stored so far, in order of arrival. */
        public List<Window> windows() {
            return List.copyOf(windows);
        }

        /** Results stored so far. */
        public List<WorkerResult> results() {
            return List.copyOf(results);
        }
    }
}
