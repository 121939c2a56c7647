package dev.richter.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.HistogramCodec;
import dev.richter.common.model.WindowAttributes;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class TimeSeriesTest {
    private static final Map<String, Double> TARGETS = Map.of("pre-test#0", 2.0, "formal#0", 20.0, "formal#1", 40.0);

    private static String hist(long... latenciesMs) {
        Histogram h = HistogramCodec.newLatencyHistogramUs();
        Arrays.stream(latenciesMs).forEach(ms -> h.recordValue(ms * 1000));
        return HistogramCodec.encode(h);
    }

    private static TimeSeries.StoredWindow window(String stage, int step, long second, long count, long errors, String hist) {
        return new TimeSeries.StoredWindow(stage, step, second, count, errors, hist, Map.of());
    }

    @Test
    void oneRowPerSecondSummedOverWorkersWithGapsBetweenSteps() {
        TimeSeries ts = new TimeSeries.Builder(1, TARGETS)
                .add(window("formal", 0, 100, 10, 0, hist(10, 10, 10, 10, 10, 10, 10, 10, 10, 10)))
                .add(window("formal", 0, 100, 10, 2, hist(10, 10, 10, 10, 10, 10, 10, 10, 10, 90)))
                .add(window("formal", 0, 101, 20, 0, hist(20)))
                .add(window("formal", 1, 105, 40, 4, hist(30)))
                .build();
        assertEquals(List.of(100L, 101L, 102L, 105L), ts.epochS(), "a null row at 102 breaks the line between the steps");
        assertEquals(Arrays.asList(20.0, 20.0, null, 40.0), ts.targetQps());
        assertEquals(Arrays.asList(20.0, 20.0, null, 40.0), ts.achievedQps());
        assertEquals(Arrays.asList(2.0, 0.0, null, 4.0), ts.errorsPerS());
        assertEquals(90.0, ts.p99Ms().get(0), 0.1, "the p99 of the merged windows, not an average of the workers' p99");
        assertEquals(10.0, ts.p50Ms().get(0), 0.01);
        assertNull(ts.p50Ms().get(2));
        assertEquals("completed", ts.achievedCounts());
        assertTrue(ts.errorsByKindPerS().isEmpty());
        assertTrue(ts.note().startsWith("errors by kind per second were not recorded by the load driver"), ts.note());
    }

    @Test
    void errorKindsAndSendsAreChartedWhenTheLoadDriverRecordsThem() {
        Map<String, Long> kinds = Map.of(WindowAttributes.SENT, 21L, WindowAttributes.HTTP_5XX, 3L, WindowAttributes.TIMEOUTS, 1L,
                WindowAttributes.HTTP_4XX, 0L, WindowAttributes.CONNECT_ERRORS, 0L, WindowAttributes.DROPPED, 0L, WindowAttributes.LATE, 0L,
                WindowAttributes.CHECK_FAILED, 2L);
        TimeSeries ts = new TimeSeries.Builder(1, TARGETS)
                .add(new TimeSeries.StoredWindow("formal", 0, 100, 20, 4, hist(5), kinds))
                .build();
        assertEquals("sent", ts.achievedCounts());
        assertEquals(List.of(21.0), ts.achievedQps());
        assertEquals(List.of(3.0), ts.errorsByKindPerS().get(WindowAttributes.HTTP_5XX));
        assertEquals(List.of(1.0), ts.errorsByKindPerS().get(WindowAttributes.TIMEOUTS));
        assertEquals(List.of(2.0), ts.errorsByKindPerS().get(WindowAttributes.CHECK_FAILED));
        assertEquals(List.copyOf(WindowAttributes.ERROR_KINDS), List.copyOf(ts.errorsByKindPerS().keySet()));
        assertEquals("", ts.note());
    }

    @Test
    void aLongRunGetsWiderBucketsWhosePercentilesComeFromMergedHistograms() {
        assertEquals(1, TimeSeries.bucketSFor(900));
        assertEquals(2, TimeSeries.bucketSFor(901));
        assertEquals(16, TimeSeries.bucketSFor(14_400), "8 steps of 30 minutes stay under 900 rows");
        TimeSeries.Builder b = new TimeSeries.Builder(10, TARGETS);
        for (long s = 1000; s < 1030; s++) {
            b.add(window("formal", 1, s, 40, 0, hist(s == 1015 ? 500 : 10)));
        }
        TimeSeries ts = b.build();
        assertEquals(List.of(1000L, 1010L, 1020L), ts.epochS());
        assertEquals(List.of(40.0, 40.0, 40.0), ts.achievedQps(), "a rate per second, not per bucket");
        assertEquals(500.0, ts.p99Ms().get(1), 1.0);
        assertTrue(ts.note().contains("one row per 10 s"), ts.note());
    }
}
