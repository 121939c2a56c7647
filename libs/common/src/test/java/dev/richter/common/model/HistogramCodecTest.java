package dev.richter.common.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Random;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class HistogramCodecTest {
    /** Latencies as a worker records them in one second: 10 000 around 150 µs with a long tail, and a few timeouts. */
    private static Histogram second(long seed, long slowestUs) {
        Random random = new Random(seed);
        Histogram h = HistogramCodec.newLatencyHistogramUs();
        for (int i = 0; i < 10_000; i++) {
            h.recordValue(50 + (long) Math.exp(random.nextGaussian() * 1.2 + 5));
        }
        h.recordValue(slowestUs);
        return h;
    }

    @Test
    void theReusableEncoderWritesWhatEncodeWritesForEveryHistogramInTurn() {
        Histogram empty = HistogramCodec.newLatencyHistogramUs();
        Histogram one = HistogramCodec.newLatencyHistogramUs();
        one.recordValue(1);
        Histogram hour = HistogramCodec.newLatencyHistogramUs();
        hour.recordValue(HistogramCodec.HIGHEST_TRACKABLE_US);
        Histogram merged = HistogramCodec.newMergeHistogram();
        merged.add(second(3, 30_000_000));
        // a large histogram between small ones: the encoder's buffers grow, and what follows is still written whole
        List<Histogram> inTurn = List.of(second(1, 5_000), empty, hour, one, second(2, 2_000_000), merged, empty);
        try (HistogramCodec.Encoder encoder = new HistogramCodec.Encoder()) {
            for (Histogram h : inTurn) {
                String text = encoder.encode(h);
                assertEquals(HistogramCodec.encode(h), text);
                assertEquals(h, HistogramCodec.decode(text));
            }
        }
    }
}
