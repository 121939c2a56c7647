package dev.richter.sizing;

import static dev.richter.common.ConfigCheck.atLeast;
import static dev.richter.common.ConfigCheck.between;

import dev.richter.common.Env;

/**
 * The AWS quotas and Richter timings a run is laid out against: one immutable value, defaults from
 * the AWS documentation, each lowerable through the environment so the local stack (and its tests)
 * can compress them (DESIGN.md §8). Plan-time checks, the plan estimate and step start read the same
 * value, so a plan refused here is one that would break a limit on AWS.
 *
 * <p>Each default is a constant below ({@code DEFAULT_*}, {@link #LAMBDA_MAX_TIMEOUT_S}, {@link #MONITOR_WAIT_MS});
 * {@link #AWS} holds them all. Build a variant by name, never by position:
 * {@code Quotas.builder().loadDriverTimeoutS(15).historyEventsPerExecution(400).build()}, or
 * {@code q.toBuilder()...build()} over other quotas.
 *
 * @param loadDriverTimeoutS            the load-driver function's {@code Timeout}, seconds, in [1, 900] (template parameter
 *                                      {@code LoadDriverTimeoutSeconds}, env {@code LOAD_DRIVER_TIMEOUT_S}; default
 *                                      {@value #LAMBDA_MAX_TIMEOUT_S})
 * @param loadDriverMemoryMb            the load-driver function's memory, MB, ≥ 128 (env {@code LOAD_DRIVER_MEMORY_MB};
 *                                      default {@value #DEFAULT_LOAD_DRIVER_MEMORY_MB})
 * @param workerLeadMs                  how long before a leg's first due time its workers are launched, milliseconds,
 *                                      ≥ 0 (env {@code RICHTER_WORKER_LEAD_MS}; default {@value #DEFAULT_WORKER_LEAD_MS}):
 *                                      covers the fan-out and a cold start, so workers are warm and waiting when their
 *                                      first request is due
 * @param legMarginMs                   Lambda time kept free after a leg's in-flight requests end, milliseconds, ≥ 0
 *                                      (env {@code RICHTER_LEG_MARGIN_MS}; default {@value #DEFAULT_LEG_MARGIN_MS}):
 *                                      the last window flush and the result write
 * @param historyEventsPerExecution     history events of one Standard execution, ≥ 1
 *                                      (env {@code RICHTER_HISTORY_EVENT_LIMIT}; default
 *                                      {@value #DEFAULT_HISTORY_EVENTS_PER_EXECUTION})
 * @param statePayloadBytes             largest state input or output, bytes, ≥ 1 (env {@code RICHTER_STATE_PAYLOAD_BYTES};
 *                                      default {@value #DEFAULT_STATE_PAYLOAD_BYTES}; larger is
 *                                      {@code States.DataLimitExceeded})
 * @param inlineMapMaxConcurrency       iterations an inline Map runs at once, ≥ 1
 *                                      (env {@code RICHTER_INLINE_MAP_MAX_CONCURRENCY}; default
 *                                      {@value #DEFAULT_INLINE_MAP_MAX_CONCURRENCY})
 * @param distributedMapMaxConcurrency  child executions a Distributed Map runs at once, ≥ 1
 *                                      (env {@code RICHTER_DISTRIBUTED_MAP_MAX_CONCURRENCY}; default
 *                                      {@value #DEFAULT_DISTRIBUTED_MAP_MAX_CONCURRENCY})
 * @param lambdaConcurrency             the account's concurrent Lambda executions in the region, ≥ 1
 *                                      (env {@code RICHTER_LAMBDA_CONCURRENCY}; default {@value #DEFAULT_LAMBDA_CONCURRENCY})
 * @param monitorWaitMs                 the monitor loop's wait between probe rounds, milliseconds, ≥ 0 (the ASL's
 *                                      {@code WaitNextRound}; env {@code RICHTER_MONITOR_WAIT_MS}; default
 *                                      {@value #MONITOR_WAIT_MS})
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

    /**
     * Lambda's longest function timeout, seconds, and the load driver's default {@code loadDriverTimeoutS}
     * (docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html).
     */
    public static final int LAMBDA_MAX_TIMEOUT_S = 900;
    /** The load driver's memory, MB: 1769 MB is one full vCPU (docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html). */
    public static final int DEFAULT_LOAD_DRIVER_MEMORY_MB = 1769;
    /** Workers launch 10 000 ms before a leg's first due time. */
    public static final long DEFAULT_WORKER_LEAD_MS = 10_000;
    /** 5000 ms of a worker's Lambda time are kept free after its leg. */
    public static final long DEFAULT_LEG_MARGIN_MS = 5_000;
    /** History events of one Standard execution: 25 000 (docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html). */
    public static final int DEFAULT_HISTORY_EVENTS_PER_EXECUTION = 25_000;
    /** Largest state input or output: 256 KiB = 262 144 bytes (docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html). */
    public static final int DEFAULT_STATE_PAYLOAD_BYTES = 262_144;
    /** Inline Map iterations at once: 40 (docs.aws.amazon.com/step-functions/latest/dg/state-map-inline.html). */
    public static final int DEFAULT_INLINE_MAP_MAX_CONCURRENCY = 40;
    /** Distributed Map child executions at once: 10 000 (docs.aws.amazon.com/step-functions/latest/dg/state-map-distributed.html). */
    public static final int DEFAULT_DISTRIBUTED_MAP_MAX_CONCURRENCY = 10_000;
    /** Concurrent Lambda executions per account and region: 1000 unless raised (docs.aws.amazon.com/lambda/latest/dg/lambda-concurrency.html). */
    public static final int DEFAULT_LAMBDA_CONCURRENCY = 1_000;

    /** The AWS values and Richter's default timings: every field its default constant. */
    public static final Quotas AWS = new Builder().build();

    /** @throws IllegalArgumentException naming the field and its rule when a value is out of range (see the params) */
    public Quotas {
        between("loadDriverTimeoutS", loadDriverTimeoutS, 1, LAMBDA_MAX_TIMEOUT_S);
        atLeast("loadDriverMemoryMb", loadDriverMemoryMb, 128);
        atLeast("workerLeadMs", workerLeadMs, 0);
        atLeast("legMarginMs", legMarginMs, 0);
        atLeast("historyEventsPerExecution", historyEventsPerExecution, 1);
        atLeast("statePayloadBytes", statePayloadBytes, 1);
        atLeast("inlineMapMaxConcurrency", inlineMapMaxConcurrency, 1);
        atLeast("distributedMapMaxConcurrency", distributedMapMaxConcurrency, 1);
        atLeast("lambdaConcurrency", lambdaConcurrency, 1);
        atLeast("monitorWaitMs", monitorWaitMs, 0);
    }

    /**
     * Share of the account's Lambda concurrency a run leaves free for everything but its workers, the probe and the
     * fault decider: the run's other functions (checks, run-preparation, report, release-leases), the API and the
     * console, other teams' runs and the account's own functions. At the default 1 000 it is 100, the unreserved
     * concurrency Lambda always keeps for functions without reserved concurrency
     * (docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html: a function may reserve the unreserved
     * account concurrency "minus 100 for functions that don't have reserved concurrency").
     */
    public static final double LAMBDA_RESERVE_SHARE = 0.10;

    /** Lambda executions a run leaves free: {@code ceil(lambdaConcurrency × }{@value #LAMBDA_RESERVE_SHARE}{@code )}. */
    public int lambdaReserve() {
        return (int) Math.ceil(lambdaConcurrency * LAMBDA_RESERVE_SHARE - 1e-9);
    }

    /** The shortest wait between two probe rounds: the alert wait, or {@link #monitorWaitMs()} when that is shorter, ms. */
    public long alertWaitMs() {
        return Math.min(monitorWaitMs, MONITOR_ALERT_WAIT_MS);
    }

    /**
     * {@link #AWS} with every value the environment (or a system property, {@link Env}) sets, names in the parameter docs.
     *
     * @throws IllegalStateException    naming the variable when one is set but not an integer
     * @throws IllegalArgumentException naming the field and its rule when a value is out of range
     */
    public static Quotas fromEnv() {
        Quotas d = AWS;
        return d.toBuilder()
                .loadDriverTimeoutS(Env.intValue("LOAD_DRIVER_TIMEOUT_S", d.loadDriverTimeoutS()))
                .loadDriverMemoryMb(Env.intValue("LOAD_DRIVER_MEMORY_MB", d.loadDriverMemoryMb()))
                .workerLeadMs(Env.intValue("RICHTER_WORKER_LEAD_MS", (int) d.workerLeadMs()))
                .legMarginMs(Env.intValue("RICHTER_LEG_MARGIN_MS", (int) d.legMarginMs()))
                .historyEventsPerExecution(Env.intValue(HISTORY_EVENT_LIMIT_ENV, d.historyEventsPerExecution()))
                .statePayloadBytes(Env.intValue(STATE_PAYLOAD_BYTES_ENV, d.statePayloadBytes()))
                .inlineMapMaxConcurrency(Env.intValue(INLINE_MAP_MAX_CONCURRENCY_ENV, d.inlineMapMaxConcurrency()))
                .distributedMapMaxConcurrency(Env.intValue(DISTRIBUTED_MAP_MAX_CONCURRENCY_ENV, d.distributedMapMaxConcurrency()))
                .lambdaConcurrency(Env.intValue("RICHTER_LAMBDA_CONCURRENCY", d.lambdaConcurrency()))
                .monitorWaitMs(Env.intValue("RICHTER_MONITOR_WAIT_MS", (int) d.monitorWaitMs()))
                .build();
    }

    /** A builder starting from {@link #AWS}. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these quotas. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /**
     * Sets quotas by name; {@link #build()} validates them all (the record's rules). Not thread-safe; each setter
     * takes the unit of the record component of the same name and returns this builder.
     */
    public static final class Builder {
        private int loadDriverTimeoutS = LAMBDA_MAX_TIMEOUT_S;
        private int loadDriverMemoryMb = DEFAULT_LOAD_DRIVER_MEMORY_MB;
        private long workerLeadMs = DEFAULT_WORKER_LEAD_MS;
        private long legMarginMs = DEFAULT_LEG_MARGIN_MS;
        private int historyEventsPerExecution = DEFAULT_HISTORY_EVENTS_PER_EXECUTION;
        private int statePayloadBytes = DEFAULT_STATE_PAYLOAD_BYTES;
        private int inlineMapMaxConcurrency = DEFAULT_INLINE_MAP_MAX_CONCURRENCY;
        private int distributedMapMaxConcurrency = DEFAULT_DISTRIBUTED_MAP_MAX_CONCURRENCY;
        private int lambdaConcurrency = DEFAULT_LAMBDA_CONCURRENCY;
        private long monitorWaitMs = MONITOR_WAIT_MS;

        private Builder() {}

        private Builder(Quotas q) {
            loadDriverTimeoutS = q.loadDriverTimeoutS;
            loadDriverMemoryMb = q.loadDriverMemoryMb;
            workerLeadMs = q.workerLeadMs;
            legMarginMs = q.legMarginMs;
            historyEventsPerExecution = q.historyEventsPerExecution;
            statePayloadBytes = q.statePayloadBytes;
            inlineMapMaxConcurrency = q.inlineMapMaxConcurrency;
            distributedMapMaxConcurrency = q.distributedMapMaxConcurrency;
            lambdaConcurrency = q.lambdaConcurrency;
            monitorWaitMs = q.monitorWaitMs;
        }

        /** Seconds, in [1, 900]. */
        public Builder loadDriverTimeoutS(int v) {
            loadDriverTimeoutS = v;
            return this;
        }

        /** MB, ≥ 128. */
        public Builder loadDriverMemoryMb(int v) {
            loadDriverMemoryMb = v;
            return this;
        }

        /** Milliseconds, ≥ 0. */
        public Builder workerLeadMs(long v) {
            workerLeadMs = v;
            return this;
        }

        /** Milliseconds, ≥ 0. */
        public Builder legMarginMs(long v) {
            legMarginMs = v;
            return this;
        }

        /** Events, ≥ 1. */
        public Builder historyEventsPerExecution(int v) {
            historyEventsPerExecution = v;
            return this;
        }

        /** Bytes, ≥ 1. */
        public Builder statePayloadBytes(int v) {
            statePayloadBytes = v;
            return this;
        }

        /** Iterations, ≥ 1. */
        public Builder inlineMapMaxConcurrency(int v) {
            inlineMapMaxConcurrency = v;
            return this;
        }

        /** Child executions, ≥ 1. */
        public Builder distributedMapMaxConcurrency(int v) {
            distributedMapMaxConcurrency = v;
            return this;
        }

        /** Executions, ≥ 1. */
        public Builder lambdaConcurrency(int v) {
            lambdaConcurrency = v;
            return this;
        }

        /** Milliseconds, ≥ 0. */
        public Builder monitorWaitMs(long v) {
            monitorWaitMs = v;
            return this;
        }

        /** @throws IllegalArgumentException naming the first field out of range and its rule */
        public Quotas build() {
            return new Quotas(loadDriverTimeoutS, loadDriverMemoryMb, workerLeadMs, legMarginMs, historyEventsPerExecution,
                    statePayloadBytes, inlineMapMaxConcurrency, distributedMapMaxConcurrency, lambdaConcurrency, monitorWaitMs);
        }
    }
}
