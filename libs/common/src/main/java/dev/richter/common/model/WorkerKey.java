package dev.richter.common.model;

import java.util.Comparator;

/**
 * Which worker of a run: its stage, step, leg and index, as the run-metrics table keys its windows
 * ({@link WindowKey}) and as a {@link WorkerResult} names it. Ordered by stage, step, leg, then worker.
 *
 * @param stage       {@link Stages#PRE_TEST} or {@link Stages#FORMAL}
 * @param stepIndex   step within the stage, from 0
 * @param legIndex    leg within the step, from 0
 * @param workerIndex worker within the leg, from 0
 */
public record WorkerKey(String stage, int stepIndex, int legIndex, int workerIndex) implements Comparable<WorkerKey> {
    private static final Comparator<WorkerKey> ORDER = Comparator.comparing(WorkerKey::stage)
            .thenComparingInt(WorkerKey::stepIndex).thenComparingInt(WorkerKey::legIndex)
            .thenComparingInt(WorkerKey::workerIndex);

    /** {@code <stage>/step <i+1>/leg <l+1>/worker <k>}: steps and legs numbered from 1 for people, workers by index. */
    public String name() {
        return stage + "/step " + (stepIndex + 1) + "/leg " + (legIndex + 1) + "/worker " + workerIndex;
    }

    @Override
    public int compareTo(WorkerKey other) {
        return ORDER.compare(this, other);
    }

    @Override
    public String toString() {
        return name();
    }
}
