package dev.richter.common.model;

import dev.richter.common.http.RetryAfter;
import org.HdrHistogram.Histogram;

/**
 * What one load-driver worker saw of the target's over-capacity answers in one leg of one step: the HTTP 429 and
 * 503 responses, how fast they came back and whether they carried a valid {@code Retry-After}. The report's
 * shedding verdict reads it (a graceful system sheds with fast 429/503 that tell the client when to come back).
 *
 * <p>Stored in the run-metrics table (pk {@code runId}, sk {@link #sortKey()}, attribute {@value #ATTRIBUTE} = JSON of
 * this record) next to the worker's {@link WorkerResult}. The load driver builds it with a {@link Recorder}; a worker
 * that saw no 429/503 may store nothing, and a reader treats a step without items as "none recorded".
 *
 * @param runId                run id
 * @param stage                {@code pre-test} or {@code formal}
 * @param stepIndex            step within the stage, 0-based
 * @param legIndex             leg within the step, 0-based
 * @param workerIndex          worker within the leg, 0-based
 * @param responses            429 and 503 responses received
 * @param retryAfterSeconds    of which with a valid {@code Retry-After} in delay-seconds form
 * @param retryAfterDate       of which with a valid {@code Retry-After} HTTP-date
 * @param retryAfterInvalid    of which with a {@code Retry-After} that is neither ({@link RetryAfter.Invalid})
 * @param retryAfterAbsent     of which without a {@code Retry-After} header
 * @param minDelayS            smallest valid delay, seconds; -1 when no response had a valid one
 * @param maxDelayS            largest valid delay, seconds; -1 when no response had a valid one
 * @param invalidExample       the first invalid value received, verbatim (at most 100 characters), {@code ""} if none
 * @param latencyFromSendHist  latency of these responses from their send time, microseconds, HdrHistogram in the
 *                             {@link HistogramCodec} encoding
 */
public record OverloadResponses(String runId, String stage, int stepIndex, int legIndex, int workerIndex,
                                long responses, long retryAfterSeconds, long retryAfterDate, long retryAfterInvalid,
                                long retryAfterAbsent, long minDelayS, long maxDelayS, String invalidExample,
                                String latencyFromSendHist) {
    /** Run-metrics attribute holding the JSON of the record. */
    public static final String ATTRIBUTE = "overload";
    /** Sort-key prefix of every item of a run. */
    public static final String PREFIX = "overload#";

    public OverloadResponses {
        invalidExample = invalidExample == null ? "" : invalidExample;
        latencyFromSendHist = latencyFromSendHist == null ? "" : latencyFromSendHist;
    }

    /** True for the statuses a shedding server answers with: 429 Too Many Requests and 503 Service Unavailable. */
    public static boolean isOverloadStatus(int status) {
        return status == 429 || status == 503;
    }

    /** Responses with a valid {@code Retry-After} in either form. */
    public long retryAfterValid() {
        return retryAfterSeconds + retryAfterDate;
    }

    /** The run-metrics sort key: {@code overload#<stage>#<stepIndex %03d>#<legIndex %04d>#<workerIndex %05d>}. */
    public String sortKey() {
        return sortKey(stage, stepIndex, legIndex, workerIndex);
    }

    /** The run-metrics sort key of one worker's item in a leg. */
    public static String sortKey(String stage, int stepIndex, int legIndex, int workerIndex) {
        return String.format("%s%s#%03d#%04d#%05d", PREFIX, stage, stepIndex, legIndex, workerIndex);
    }

    /**
     * Accumulates one worker's 429/503 responses. Thread-safe (one monitor; it is only taken for 429/503
     * responses, so a target that does not shed never contends for it).
     */
    public static final class Recorder {
        private final Histogram latencyUs = HistogramCodec.newLatencyHistogramUs();
        private long responses;
        private long seconds;
        private long dates;
        private long invalid;
        private long absent;
        private long minDelayS = -1;
        private long maxDelayS = -1;
        private String invalidExample = "";

        /**
         * Records one response; ignores every status but 429 and 503.
         *
         * @param status            HTTP status
         * @param retryAfter        the {@code Retry-After} header value, null when absent
         * @param date              the {@code Date} header value, null when absent
         * @param latencyFromSendUs latency from the request's send time, microseconds (clamped to the histogram's range)
         * @param nowEpochMs        the local clock when the response arrived, epoch ms
         */
        public synchronized void record(int status, String retryAfter, String date, long latencyFromSendUs, long nowEpochMs) {
            if (!isOverloadStatus(status)) {
                return;
            }
            responses++;
            latencyUs.recordValue(Math.max(1, Math.min(HistogramCodec.HIGHEST_TRACKABLE_US, latencyFromSendUs)));
            if (retryAfter == null) {
                absent++;
                return;
            }
            switch (RetryAfter.parse(retryAfter, date, nowEpochMs)) {
                case RetryAfter.Delay d -> {
                    if (d.form() == RetryAfter.Form.DELAY_SECONDS) {
                        seconds++;
                    } else {
                        dates++;
                    }
                    minDelayS = minDelayS < 0 ? d.seconds() : Math.min(minDelayS, d.seconds());
                    maxDelayS = Math.max(maxDelayS, d.seconds());
                }
                case RetryAfter.Invalid i -> {
                    invalid++;
                    if (invalidExample.isEmpty()) {
                        invalidExample = retryAfter.length() > 100 ? retryAfter.substring(0, 100) : retryAfter;
                    }
                }
            }
        }

        /** True once a 429 or 503 was recorded. */
        public synchronized boolean any() {
            return responses > 0;
        }

        /** What was recorded so far, as the item of one worker of one leg. */
        public synchronized OverloadResponses snapshot(String runId, String stage, int stepIndex, int legIndex, int workerIndex) {
            return new OverloadResponses(runId, stage, stepIndex, legIndex, workerIndex, responses, seconds, dates, invalid,
                    absent, minDelayS, maxDelayS, invalidExample, HistogramCodec.encode(latencyUs));
        }
    }
}
