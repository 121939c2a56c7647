package dev.richter.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.richter.common.model.Counters;
import dev.richter.common.model.HistogramCodec;
import dev.richter.common.model.WorkerResult;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * A step whose answers missed their expectation: two workers' {@code check-failed} counts and reasons merged into the
 * step's figures, out of its success rate, and shown in the step's row of the report next to its timeouts.
 */
class CheckFailedReportTest {
    private static WorkerResult worker(int workerIndex, long ok, long timeouts, long checkFailed, Map<String, Long> reasons) {
        Histogram h = HistogramCodec.newLatencyHistogramUs();
        h.recordValue(10_000);
        long sent = ok + timeouts + checkFailed;
        return new WorkerResult("run-1", "formal", 0, workerIndex, 2, 20, 1_000, 11_000,
                new Counters(sent, sent, ok, Map.of(), timeouts, 0, 0, 0, sent, checkFailed, reasons),
                HistogramCodec.encode(h), HistogramCodec.encode(h), false);
    }

    @Test
    void checkFailuresCountAsErrorsAndTheRowNamesTheirMostFrequentReasons() {
        // worker 0 kept 5 distinct reasons; one of its failures had a sixth, counted in the total only
        WorkerResult w0 = worker(0, 60, 2, 38, Map.of("status 200, expected 201", 30L,
                "$.status is \"ACCEPTED\", expected \"PLACED\"", 3L, "body is not JSON", 2L, "header Content-Type is absent", 1L,
                "body over 65536 bytes", 1L));
        WorkerResult w1 = worker(1, 90, 0, 10, Map.of("status 200, expected 201", 10L));
        StepFigures f = StepFigures.merge(10, List.of(w0, w1));

        assertEquals(48, f.counters().checkFailed());
        assertEquals(50, f.counters().errors());
        assertEquals(75.0, 100.0 * f.counters().ok() / f.counters().sent(), 1e-9);
        assertEquals("timeouts: 2, check-failed: 48 (status 200, expected 201: 40; $.status is \"ACCEPTED\", expected "
                + "\"PLACED\": 3; body is not JSON: 2; body over 65536 bytes: 1; header Content-Type is absent: 1; "
                + "other reasons: 1)", HtmlReport.errorKinds(f));
    }
}
