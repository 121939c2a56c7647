package dev.richter.common.model;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
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
     * Writes the text {@link #encode} writes, for histograms encoded over and over on one thread (a worker's window
     * flush, once a second), reusing its buffers and its {@link Deflater} between calls. {@link #encode} allocates two
     * buffers the size of the histogram's whole counts array (184 KiB for the 1 h range) and a new {@link Deflater}
     * (zlib's state) per call: about 2 ms of one vCPU under C1 for a second of 10 000 latencies, against 0.1 ms here
     * ({@code bench/load-driver.sh}, worker10k). The format is HdrHistogram's compressed encoding, as
     * {@link Histogram#encodeIntoCompressedByteBuffer} writes it: a 4-byte cookie, the 4-byte length of the deflated
     * bytes (both big-endian), then the deflated {@link Histogram#encodeIntoByteBuffer} bytes at the default level. The
     * cookie is read from the library's own encoding of an empty histogram, never written here.
     *
     * <p>Not thread-safe: one encoder per thread, or calls in turn. Close it to free zlib's native state.
     */
    public static final class Encoder implements AutoCloseable {
        /** HdrHistogram's compressed-encoding cookie for {@link Histogram}, as the library writes it. */
        private static final int COOKIE = ByteBuffer.wrap(Base64.getDecoder().decode(HistogramCodec.encode(new Histogram(1, 2, 1)))).getInt();
        private final Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION);
        private ByteBuffer uncompressed = ByteBuffer.allocate(0);
        private byte[] compressed = new byte[256];

        /** Compressed base64 of {@code h}: the same text as {@link HistogramCodec#encode}. */
        public String encode(Histogram h) {
            int needed = h.getNeededByteBufferCapacity();
            if (uncompressed.capacity() < needed) {
                uncompressed = ByteBuffer.allocate(needed);
            }
            uncompressed.clear();
            int length = h.encodeIntoByteBuffer(uncompressed);
            deflater.reset();
            deflater.setInput(uncompressed.array(), 0, length);
            deflater.finish();
            int written = 8;
            while (true) {
                written += deflater.deflate(compressed, written, compressed.length - written);
                if (deflater.finished()) {
                    break;
                }
                compressed = Arrays.copyOf(compressed, compressed.length * 2);
            }
            ByteBuffer header = ByteBuffer.wrap(compressed, 0, 8);
            header.putInt(COOKIE).putInt(written - 8);
            return Base64.getEncoder().encodeToString(Arrays.copyOf(compressed, written));
        }

        /** Frees the {@link Deflater}'s native state; the encoder must not be used after. */
        @Override
        public void close() {
            deflater.end();
        }
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
