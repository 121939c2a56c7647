package dev.richter.common.model;

/**
 * The outcomes one worker observed in one second, as its stored window counts them ({@link WindowAttributes#COUNT},
 * {@link WindowAttributes#ERRORS}; both always written). An outcome belongs to the second in which it was observed,
 * never before its request's due second.
 *
 * @param worker      the worker (stage, step, leg, index) from the window's key ({@link WindowKey#worker})
 * @param epochSecond the second, epoch seconds
 * @param count       outcomes observed in the second (ok + HTTP errors + timeouts + connect errors + check-failed)
 * @param errors      of which failed (every outcome but ok)
 */
public record WindowOutcomes(WorkerKey worker, long epochSecond, long count, long errors) {}
