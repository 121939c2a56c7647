package dev.richter.common.model;

/**
 * Sort keys of the load driver's per-second windows in the run-metrics table (pk {@code runId}):
 * {@code window#<stage>#<stepIndex %03d>#<epochSecond>#<workerIndex %04d>#<legIndex %04d>}. One place for the format
 * that the load driver writes and the fault decider and plan-api read.
 */
public final class WindowKey {
    private WindowKey() {}

    /** The sort key of one worker's window of one second (first leg). */
    public static String sortKey(String stage, int stepIndex, long epochSecond, int workerIndex) {
        return sortKey(stage, stepIndex, epochSecond, workerIndex, 0);
    }

    /**
     * The sort key of one worker's window of one second in a leg: {@code ...#<workerIndex %04d>#<legIndex %04d>}. Two
     * legs' workers can both observe outcomes in the second where one leg hands over to the next; the leg keeps their
     * windows apart, and readers sum every window of a second.
     */
    public static String sortKey(String stage, int stepIndex, long epochSecond, int workerIndex, int legIndex) {
        return String.format("%s%d#%04d#%04d", stepPrefix(stage, stepIndex), epochSecond, workerIndex, legIndex);
    }

    /** The prefix of every window of one step: {@code window#<stage>#<stepIndex %03d>#}. */
    public static String stepPrefix(String stage, int stepIndex) {
        return String.format("window#%s#%03d#", stage, stepIndex);
    }

    /** The epoch second of a window sort key. */
    public static long epochSecond(String sortKey) {
        return Long.parseLong(sortKey.split("#")[3]);
    }

    /**
     * The worker whose window a sort key names: stage, step, leg and worker ({@link WorkerKey}; leg and worker 0 when
     * the key has none).
     */
    public static WorkerKey worker(String sortKey) {
        String[] parts = sortKey.split("#");
        return new WorkerKey(parts[1], Integer.parseInt(parts[2]), parts.length > 5 ? Integer.parseInt(parts[5]) : 0,
                parts.length > 4 ? Integer.parseInt(parts[4]) : 0);
    }

    /** The worker index of a window sort key (0 when the key has none). */
    public static int workerIndex(String sortKey) {
        String[] parts = sortKey.split("#");
        return parts.length > 4 ? Integer.parseInt(parts[4]) : 0;
    }
}
