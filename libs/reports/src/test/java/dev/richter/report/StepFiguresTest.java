package dev.richter.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.common.model.Counters;
import dev.richter.common.model.HistogramCodec;
import dev.richter.common.model.WorkerResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class StepFiguresTest {
    static final Path CORPUS = Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"));

    private static WorkerResult worker(int index, int count, Histogram h, long sent) {
        return new WorkerResult("run-1", "formal", 0, index, count, 20, 0, 15_000,
                new Counters(sent, sent, sent, Map.of(), 0, 0, 0, 0, sent), HistogramCodec.encode(h), HistogramCodec.encode(h), false);
    }

    /**
     * Corpus bug 19: two workers, 1000 samples at 10 ms and 10 samples at 2000 ms. Merging the
     * histograms must give p95 = 10 ms (the corpus value), never the average of the workers' p95
     * (1005 ms) nor their max (2000 ms). The tail comes from the merged counts too: p99 is the 1000th of
     * 1010 sorted samples (10 ms, the corpus' corrected {@code merged_p99_ms}) and p99.9 the 1009th (2000 ms),
     * also checked against the nearest-rank quantile of the raw samples, computed here independently of HdrHistogram.
     */
    @Test
    void mergesHistogramsNeverPercentilesOnCorpusCase19() throws Exception {
        JsonNode doc = Json.MAPPER.readTree(Files.readString(CORPUS.resolve("bugs/19-percentile-merge.json")));
        List<WorkerResult> results = new ArrayList<>();
        List<Long> raw = new ArrayList<>();
        JsonNode workers = doc.path("workers");
        int index = 0;
        for (JsonNode w : workers) {
            Histogram h = HistogramCodec.newLatencyHistogramUs();
            var it = w.path("samples_ms").fields();
            while (it.hasNext()) {
                var e = it.next();
                long ms = Long.parseLong(e.getKey());
                h.recordValueWithCount(ms * 1000, e.getValue().asLong());
                for (long i = 0; i < e.getValue().asLong(); i++) {
                    raw.add(ms);
                }
            }
            results.add(worker(index++, workers.size(), h, h.getTotalCount()));
        }
        raw.sort(null);
        StepFigures f = StepFigures.merge(15, results);
        assertEquals(doc.path("expected").path("merged_count").asLong(), f.counters().sent());
        assertEquals(doc.path("expected").path("merged_p95_ms").asDouble(), f.latencyMs().get("p95"), 10.0 * 0.001);
        double nearestRankP99 = raw.get((int) Math.ceil(0.99 * raw.size()) - 1);
        assertEquals(nearestRankP99, f.latencyMs().get("p99"), nearestRankP99 * 0.001);
        assertEquals(doc.path("expected").path("merged_p99_ms").asDouble(), f.latencyMs().get("p99"), 10.0 * 0.001);
        assertEquals(doc.path("expected").path("merged_p99_9_ms").asDouble(), f.latencyMs().get("p99.9"), 2000.0 * 0.001);
        assertEquals(2000.0, f.latencyMs().get("max"), 2000.0 * 0.001);
    }

    @Test
    void reportsMissingWorkersAndAchievedRateOverThePlannedDuration() {
        Histogram h = HistogramCodec.newLatencyHistogramUs();
        h.recordValue(5_000);
        StepFigures f = StepFigures.merge(15, List.of(worker(0, 3, h, 150), worker(2, 3, h, 150)));
        assertEquals(List.of("leg 1/worker 1"), f.missingWorkers());
        assertEquals(2, f.workersReported());
        assertEquals(20.0, f.achievedQps(), 1e-9);
        assertEquals(0.0, f.rateErrorPct(), 1e-9);
        assertTrue(f.latencyMs().get("p50") >= 5.0 && f.latencyMs().get("p50") < 5.01);
    }

    @Test
    void anAbortedStepsAchievedRateIsOverItsSendingWindowNotTheDrain() {
        // the field trial: 200 QPS over two workers, aborted; 2 131 due requests all sent, the last 10.650 s after the
        // first due time; the workers stopped 2.34 s later, once their in-flight requests had answered or timed out
        long start = 1_000_000;
        Counters half = new Counters(1_066, 1_066, 1_066, Map.of(), 0, 0, 0, 0, 1_066);
        Counters rest = new Counters(1_065, 1_065, 1_065, Map.of(), 0, 0, 0, 0, 1_065);
        WorkerResult w0 = new WorkerResult("run-1", "formal", 0, 0, 2, 200, start, start + 12_990, half, null, null, true,
                0, 0, 0, List.of(), start + 10_650);
        WorkerResult w1 = new WorkerResult("run-1", "formal", 0, 1, 2, 200, start, start + 12_400, rest, null, null, true,
                0, 0, 0, List.of(), start + 10_645);
        StepFigures f = StepFigures.merge(30, List.of(w0, w1));
        assertEquals(2_131, f.counters().sent());
        // 2 131 sends over 10.650 s + one 5 ms interval = 10.655 s
        assertEquals(200.0, f.achievedQps(), 1e-9, "not 2 131 / 12.99 s = 164");
        assertEquals(0.0, f.rateErrorPct(), 1e-6);
    }

    @Test
    void aStepThatRanToItsEndIsOverItsPlannedDurationWhateverItsDrain() {
        Counters c = new Counters(3_000, 3_000, 3_000, Map.of(), 0, 0, 0, 0, 3_000);
        WorkerResult w = new WorkerResult("run-1", "formal", 0, 0, 1, 200, 0, 17_000, c, null, null, false,
                0, 0, 0, List.of(), 14_995);
        assertEquals(200.0, StepFigures.merge(15, List.of(w)).achievedQps(), 1e-9);
    }

    /**
     * The step's in-flight figures are per worker: the highest cap and the highest peak of its workers, so a reader sees
     * when a worker's cap bound (its peak reached it); a result from before these fields counts as 0.
     */
    @Test
    void theStepReportsItsWorkersInFlightCapAndPeak() {
        Counters c = new Counters(100, 100, 100, Map.of(), 0, 0, 0, 0, 100);
        WorkerResult bound = new WorkerResult("run-1", "formal", 0, 0, 3, 300, 0, 1_000, c, null, null, false,
                0, 0, 0, List.of(), 990, 40, 40);
        WorkerResult below = new WorkerResult("run-1", "formal", 0, 1, 3, 300, 0, 1_000, c, null, null, false,
                0, 0, 0, List.of(), 990, 40, 12);
        WorkerResult old = new WorkerResult("run-1", "formal", 0, 2, 3, 300, 0, 1_000, c, null, null, false,
                0, 0, 0, List.of(), 990);
        StepFigures f = StepFigures.merge(1, List.of(below, old, bound));
        assertEquals(40, f.inFlightCap());
        assertEquals(40, f.peakInFlight());
        assertTrue(f.inFlightCapBound());
        StepFigures notBound = StepFigures.merge(1, List.of(below, old));
        assertEquals(12, notBound.peakInFlight());
        assertEquals(false, notBound.inFlightCapBound());
        assertEquals(40, notBound.withFallbacks(1).inFlightCap(), "kept by the report's rewrites");
    }
}
