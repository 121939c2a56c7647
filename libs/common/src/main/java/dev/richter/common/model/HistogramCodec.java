package dev.richter.common.model;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * Encodes HdrHistograms as compressed bytes in base64 (HdrHistogram's own compressed format,
 * {@link Histogram#encodeIntoCompressedByteBuffer}) so workers can return them through
 * DynamoDB and the report can merge them exactly.
 */
public final class HistogramCodec {
    /** Highest trackable latency, microseconds (1 hour). */
    public static final long HIGHEST_TRACKABLE_US = 3_600_000_000L;
    /** Significant decimal digits kept by every Richter latency histogram. */
    public static final int SIGNIFICANT_DIGITS = 3;

    private HistogramCodec() {}

    /** A new empty latency histogram in microseconds, 1 µs to 1 h, 3 significant digits. */
    public static Histogram newLatencyHistogramUs() {
        return new Histogram(1, HIGHEST_TRACKABLE_US, SIGNIFICANT_DIGITS);
    }

    /**
     * A new empty auto-resizing histogram with Richter's precision ({@value #SIGNIFICANT_DIGITS} digits), to merge
     * decoded histograms into: it costs memory in proportion to the largest latency seen, not to the 1 h range.
     */
    public static Histogram newMergeHistogram() {
        Histogram h = new Histogram(SIGNIFICANT_DIGITS);
        h.setAutoResize(true);
        return h;
    }

    /** Compressed base64 of {@code h}. */
    public static String encode(Histogram h) {
        ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int len = h.encodeIntoCompressedByteBuffer(buf);
        return Base64.getEncoder().encodeToString(Arrays.copyOf(buf.array(), len));
    }

    /**
     * Decodes what {@link #encode} produced.
     *
     * @throws IllegalArgumentException when the text is not base64 or not a compressed histogram
     */
    public static Histogram decode(String base64) {
        try {
            byte[] bytes = Base64.getDecoder().decode(base64);
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(bytes), 0);
        } catch (DataFormatException | RuntimeException e) {
            throw new IllegalArgumentException("not a compressed HdrHistogram: " + e.getMessage(), e);
        }
    }
}
