package dev.richter.report;

import dev.richter.common.model.HistogramCodec;
import dev.richter.common.model.OverloadResponses;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * One step's 429/503 responses merged over its workers ({@link OverloadResponses}, recorded by the load driver): how
 * many, how fast (from the merged latency histogram) and how many carried a valid {@code Retry-After}.
 *
 * @param stage             stage
 * @param stepIndex         step within the stage, 0-based
 * @param responses         429 and 503 responses
 * @param retryAfterSeconds with a valid delay-seconds {@code Retry-After}
 * @param retryAfterDate    with a valid HTTP-date {@code Retry-After}
 * @param retryAfterInvalid with an invalid one
 * @param retryAfterAbsent  without one
 * @param minDelayS         smallest valid delay, seconds, -1 when none
 * @param maxDelayS         largest valid delay, seconds, -1 when none
 * @param invalidExample    an invalid value as received, {@code ""} when none
 * @param p50Ms             median latency of these responses from their send time, milliseconds (0 when none)
 * @param p99Ms             99th percentile, milliseconds (0 when none)
 */
public record StepOverload(String stage, int stepIndex, long responses, long retryAfterSeconds, long retryAfterDate,
                           long retryAfterInvalid, long retryAfterAbsent, long minDelayS, long maxDelayS,
                           String invalidExample, double p50Ms, double p99Ms) {

    /** Responses with a valid {@code Retry-After} in either form. */
    public long retryAfterValid() {
        return retryAfterSeconds + retryAfterDate;
    }

    /** The items of a run merged per step, keyed {@code <stage>#<stepIndex>}. */
    public static Map<String, StepOverload> byStep(List<OverloadResponses> items) {
        Map<String, List<OverloadResponses>> grouped = new LinkedHashMap<>();
        items.forEach(o -> grouped.computeIfAbsent(o.stage() + "#" + o.stepIndex(), k -> new ArrayList<>()).add(o));
        Map<String, StepOverload> out = new LinkedHashMap<>();
        grouped.forEach((k, list) -> out.put(k, merge(list)));
        return out;
    }

    /** Merges the items of one step (non-empty, all of the same step). */
    public static StepOverload merge(List<OverloadResponses> items) {
        Histogram h = HistogramCodec.newLatencyHistogramUs();
        long n = 0;
        long secs = 0;
        long dates = 0;
        long invalid = 0;
        long absent = 0;
        long min = -1;
        long max = -1;
        String example = "";
        for (OverloadResponses o : items) {
            n += o.responses();
            secs += o.retryAfterSeconds();
            dates += o.retryAfterDate();
            invalid += o.retryAfterInvalid();
            absent += o.retryAfterAbsent();
            if (o.minDelayS() >= 0) {
                min = min < 0 ? o.minDelayS() : Math.min(min, o.minDelayS());
            }
            max = Math.max(max, o.maxDelayS());
            if (example.isEmpty()) {
                example = o.invalidExample();
            }
            if (!o.latencyFromSendHist().isEmpty()) {
                h.add(HistogramCodec.decode(o.latencyFromSendHist()));
            }
        }
        boolean any = h.getTotalCount() > 0;
        return new StepOverload(items.get(0).stage(), items.get(0).stepIndex(), n, secs, dates, invalid, absent, min, max,
                example, any ? h.getValueAtPercentile(50) / 1000.0 : 0, any ? h.getValueAtPercentile(99) / 1000.0 : 0);
    }
}
