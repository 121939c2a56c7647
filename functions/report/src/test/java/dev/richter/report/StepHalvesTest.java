package dev.richter.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.HistogramCodec;
import dev.richter.common.model.StepPlan;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class StepHalvesTest {
    private static String hist(long... latenciesMs) {
        Histogram h = HistogramCodec.newLatencyHistogramUs();
        for (long ms : latenciesMs) {
            h.recordValue(ms * 1000);
        }
        return HistogramCodec.encode(h);
    }

    @Test
    void aStepsWindowsSplitAtHalfItsPlannedDurationWithHistogramsMerged() {
        // formal step 2 starts at second 1000 for 10 s: seconds 1000-1004 are its first half, 1005-1009 its second
        StepHalves halves = new StepHalves(List.of(new StepPlan("run-1", "t1", "plan-1", "formal", 1, 40, 10, 50, 1,
                1_000_000, 10_000, 1, 2000, 100, 50)));
        for (long s = 1000; s < 1010; s++) {
            // two workers a second; the second half slower and erring
            halves.add(new TimeSeries.StoredWindow("formal", 1, s, 20, s < 1005 ? 0 : 2, hist(s < 1005 ? 10 : 90), Map.of()));
            halves.add(new TimeSeries.StoredWindow("formal", 1, s, 20, 0, hist(s < 1005 ? 12 : 95), Map.of()));
        }
        halves.add(new TimeSeries.StoredWindow("warm-up", 0, 990, 20, 20, hist(1), Map.of()));
        halves.add(new TimeSeries.StoredWindow("formal", 5, 1003, 20, 20, hist(1), Map.of()));
        Map<String, StepHalves.Half[]> out = halves.halves();
        assertEquals(List.of("formal#1"), List.copyOf(out.keySet()), "only started formal steps");
        StepHalves.Half[] h = out.get("formal#1");
        assertEquals(200, h[0].requests());
        assertEquals(0, h[0].errors());
        assertEquals(12.0, h[0].p99Ms(), 0.1);
        assertEquals(200, h[1].requests());
        assertEquals(10, h[1].errors());
        assertEquals(95.0, h[1].p99Ms(), 0.1);
        assertEquals(95.0, h[1].successPct(), 1e-9);
        halves.cutShort();
        assertTrue(halves.halves().isEmpty(), "windows read in part judge nothing");
    }
}
