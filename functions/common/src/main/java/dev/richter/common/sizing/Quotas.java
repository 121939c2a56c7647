package dev.richter.common.sizing;

import dev.richter.common.Env;

/**
 * The AWS quotas and Richter timings a run is laid out against: one immutable value, defaults from
 * the AWS documentation, each lowerable through the environment so the local stack (and its tests)
 * can compress them (DESIGN.md §8). Plan-time checks, the plan estimate and step start read the same
 * value, so a plan refused here is one that would break a limit on AWS.
 *
 * @param loadDriverTimeoutS            the load-driver function's {@code Timeout}, seconds (template parameter
 *                                      {@code LoadDriverTimeoutSeconds}, env {@code LOAD_DRIVER_TIMEOUT_S});
 *                                      at most 900, Lambda's maximum
 *                                      (docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html)
 * @param loadDriverMemoryMb            the load-driver function's memory, MB (env {@code LOAD_DRIVER_MEMORY_MB};
 *                                      1769 MB is one full vCPU, docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html)
 * @param workerLeadMs                  how long before a leg's first due time its workers are launched,
 *                                      milliseconds (env {@code RICHTER_WORKER_LEAD_MS}): covers the fan-out and
 *                                      a cold start, so workers are warm and waiting when their first request is due
 * @param legMarginMs                   Lambda time kept free after a leg's in-flight requests end, milliseconds
 *                                      (env {@code RICHTER_LEG_MARGIN_MS}): the last window flush and the result write
 * @param historyEventsPerExecution     history events of one Standard execution (env {@code RICHTER_HISTORY_EVENT_LIMIT};
 *                                      25 000, docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html)
 * @param statePayloadBytes             largest state input or output, bytes (env {@code RICHTER_STATE_PAYLOAD_BYTES};
 *                                      256 KiB, same page; larger is {@code States.DataLimitExceeded})
 * @param inlineMapMaxConcurrency       iterations an inline Map runs at once (env {@code RICHTER_INLINE_MAP_MAX_CONCURRENCY};
 *                                      40, docs.aws.amazon.com/step-functions/latest/dg/state-map-inline.html)
 * @param distributedMapMaxConcurrency  child executions a Distributed Map runs at once
 *                                      (env {@code RICHTER_DISTRIBUTED_MAP_MAX_CONCURRENCY}; 10 000,
 *                                      docs.aws.amazon.com/step-functions/latest/dg/state-map-distributed.html)
 * @param lambdaConcurrency             the account's concurrent Lambda executions in the region
 *                                      (env {@code RICHTER_LAMBDA_CONCURRENCY}; 1 000 by default,
 *                                      docs.aws.amazon.com/lambda/latest/dg/lambda-concurrency.html)
 * @param monitorWaitMs                 the monitor loop's wait between probe rounds, milliseconds (the ASL's
 *                                      {@code WaitNextRound})
 */
public record Quotas(int loadDriverTimeoutS, int loadDriverMemoryMb, long workerLeadMs, long legMarginMs,
                     int historyEventsPerExecution, int statePayloadBytes, int inlineMapMaxConcurrency,
                     int distributedMapMaxConcurrency, int lambdaConcurrency, long monitorWaitMs) {

    /** Environment names of the Step Functions limits the local stack lowers (and hands to the functions). */
    public static final String HISTORY_EVENT_LIMIT_ENV = "RICHTER_HISTORY_EVENT_LIMIT";
    public static final String STATE_PAYLOAD_BYTES_ENV = "RICHTER_STATE_PAYLOAD_BYTES";
    public static final String INLINE_MAP_MAX_CONCURRENCY_ENV = "RICHTER_INLINE_MAP_MAX_CONCURRENCY";
    public static final String DISTRIBUTED_MAP_MAX_CONCURRENCY_ENV = "RICHTER_DISTRIBUTED_MAP_MAX_CONCURRENCY";

    /** The monitor loop's wait between probe rounds while every module is HEALTHY and all evidence passed, ms. */
    public static final long MONITOR_WAIT_MS = 2_000;
    /**
     * The monitor loop's wait while anything is amiss (a module SUSPECT or DAMAGED, a failed probe, a breach), ms.
     * A leg's history is sized for every round at this wait (the worst case): 882 s of 1 s rounds is
     * 20 + 14 × 883 = 12 382 events, under the 25 000 limit.
     */
    public static final long MONITOR_ALERT_WAIT_MS = 1_000;

    /** Lambda's longest function timeout, seconds. */
    public static final int LAMBDA_MAX_TIMEOUT_S = 900;

    /** The AWS values and Richter's default timings (10 s worker lead, 5 s leg margin, 2 s monitor wait). */
    public static final Quotas AWS = new Quotas(900, 1769, 10_000, 5_000, 25_000, 262_144, 40, 10_000, 1_000, MONITOR_WAIT_MS);

    /** @throws IllegalArgumentException when a value is out of range (names the field) */
    public Quotas {
        if (loadDriverTimeoutS < 1 || loadDriverTimeoutS > LAMBDA_MAX_TIMEOUT_S) {
            throw new IllegalArgumentException("loadDriverTimeoutS must be in [1, 900], was " + loadDriverTimeoutS);
        }
        if (loadDriverMemoryMb < 128 || workerLeadMs < 0 || legMarginMs < 0 || historyEventsPerExecution < 1
                || statePayloadBytes < 1 || inlineMapMaxConcurrency < 1 || distributedMapMaxConcurrency < 1
                || lambdaConcurrency < 1 || monitorWaitMs < 0) {
            throw new IllegalArgumentException("quota out of range: " + "memoryMb=" + loadDriverMemoryMb
                    + " leadMs=" + workerLeadMs + " marginMs=" + legMarginMs + " history=" + historyEventsPerExecution
                    + " payload=" + statePayloadBytes + " inlineMap=" + inlineMapMaxConcurrency
                    + " distributedMap=" + distributedMapMaxConcurrency + " lambdaConcurrency=" + lambdaConcurrency);
        }
    }

    /** The shortest wait between two probe rounds: the alert wait, or {@link #monitorWaitMs()} when that is shorter, ms. */
    public long alertWaitMs() {
        return Math.min(monitorWaitMs, MONITOR_ALERT_WAIT_MS);
    }

    /** {@link #AWS} with every value the environment sets (names in the parameter docs). */
    public static Quotas fromEnv() {
        Quotas d = AWS;
        return new Quotas(Env.intValue("LOAD_DRIVER_TIMEOUT_S", d.loadDriverTimeoutS()),
                Env.intValue("LOAD_DRIVER_MEMORY_MB", d.loadDriverMemoryMb()),
                Env.intValue("RICHTER_WORKER_LEAD_MS", (int) d.workerLeadMs()),
                Env.intValue("RICHTER_LEG_MARGIN_MS", (int) d.legMarginMs()),
                Env.intValue(HISTORY_EVENT_LIMIT_ENV, d.historyEventsPerExecution()),
                Env.intValue(STATE_PAYLOAD_BYTES_ENV, d.statePayloadBytes()),
                Env.intValue(INLINE_MAP_MAX_CONCURRENCY_ENV, d.inlineMapMaxConcurrency()),
                Env.intValue(DISTRIBUTED_MAP_MAX_CONCURRENCY_ENV, d.distributedMapMaxConcurrency()),
                Env.intValue("RICHTER_LAMBDA_CONCURRENCY", d.lambdaConcurrency()),
                Env.intValue("RICHTER_MONITOR_WAIT_MS", (int) d.monitorWaitMs()));
    }
}
