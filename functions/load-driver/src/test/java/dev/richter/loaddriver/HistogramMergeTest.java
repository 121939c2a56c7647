package dev.richter.loaddriver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.common.model.HistogramCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** Percentiles across workers come from merged histograms (Histogram.add), never from averaged percentiles. */
class HistogramMergeTest {

    private static long ms(Histogram h, double percentile) {
        return Math.round(h.getValueAtPercentile(percentile) / 1000.0);
    }

    /** Asserts the percentile equals {@code expectedMs} at the histogram's precision (3 significant digits). */
    private static void assertEquivalentMs(Histogram h, long expectedMs, double percentile) {
        long actualUs = h.getValueAtPercentile(percentile);
        assertTrue(h.valuesAreEquivalent(expectedMs * 1000, actualUs),
                "p" + percentile + " expected " + expectedMs + " ms, was " + actualUs + " us");
    }

    @Test
    void twoWorkersMergedThroughTheCodecGiveExactPercentiles() {
        Histogram a = HistogramCodec.newLatencyHistogramUs();
        Histogram b = HistogramCodec.newLatencyHistogramUs();
        for (int i = 1; i <= 900; i++) {
            a.recordValue(i * 1000L); // 1..900 ms
        }
        for (int i = 901; i <= 1000; i++) {
            b.recordValue(i * 1000L); // 901..1000 ms
        }
        Histogram merged = HistogramCodec.newLatencyHistogramUs();
        merged.add(HistogramCodec.decode(HistogramCodec.encode(a)));
        merged.add(HistogramCodec.decode(HistogramCodec.encode(b)));
        assertEquals(1000, merged.getTotalCount());
        assertEquals(500, ms(merged, 50));
        assertEquals(950, ms(merged, 95));
        assertEquals(990, ms(merged, 99));
        long avgOfP99 = (ms(a, 99) + ms(b, 99)) / 2;
        assertNotEquals(990, avgOfP99, "averaging per-worker p99s would be wrong");
    }

    /**
     * Corpus case 19 (scylladb/scylla-monitoring#1886): per-worker samples {@code {"<ms>": count}} merged,
     * then the quantile.
     */
    @Test
    void corpusCase19_mergeThenQuantile() throws IOException {
        JsonNode doc = Json.MAPPER.readTree(BaggageTest.BUGS.resolve("19-percentile-merge.json").toFile());
        List<String> encoded = new ArrayList<>();
        for (JsonNode worker : doc.get("workers")) {
            Histogram h = HistogramCodec.newLatencyHistogramUs();
            Iterator<Map.Entry<String, JsonNode>> it = worker.get("samples_ms").fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                h.recordValueWithCount(Long.parseLong(e.getKey()) * 1000L, e.getValue().asLong());
            }
            encoded.add(HistogramCodec.encode(h)); // as the workers store them
        }
        Histogram merged = HistogramCodec.newLatencyHistogramUs();
        encoded.forEach(e -> merged.add(HistogramCodec.decode(e)));

        JsonNode expected = doc.get("expected");
        assertEquals(expected.get("merged_count").asLong(), merged.getTotalCount());
        assertEquivalentMs(merged, expected.get("merged_p95_ms").asLong(), 95);
        // p99 is the 1000th of 1010 samples by nearest rank (10 ms), p99.9 the 1009th (2000 ms): the corpus'
        // corrected expectation; neither is the average or the max of the workers' own quantiles.
        assertEquivalentMs(merged, expected.get("merged_p99_ms").asLong(), 99);
        assertEquivalentMs(merged, expected.get("merged_p99_9_ms").asLong(), 99.9);
        assertNotEquals(doc.get("wrong").get("avg_of_p95").asLong(), ms(merged, 95));
        assertNotEquals(doc.get("wrong").get("max_of_p95").asLong(), ms(merged, 95));
    }
}
