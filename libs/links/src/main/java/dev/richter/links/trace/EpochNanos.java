package dev.richter.links.trace;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Optional;

/**
 * Span times as epoch nanoseconds in a {@code long} ({@link Span#startEpochNanos()}), converted from the unit each
 * format writes exactly, or refused. A {@code long} of nanoseconds holds 1677-09-21T00:12:43.145224192Z to
 * 2262-04-11T23:47:16.854775807Z; a time outside that range (an extra digit, a wrong unit) would wrap or saturate into
 * another century without a word (X-Ray's {@code start_time} 14782323361.271 became 1853), so every conversion here
 * throws {@link ArithmeticException} instead, and the reader skips the span and counts it as {@value #OUT_OF_RANGE}.
 * OTLP's times are {@code fixed64}, unsigned: past {@code Long.MAX_VALUE}, or negative, is out of range too.
 */
final class EpochNanos {
    /** The skip reason of a span with a time outside what its format and a {@code long} of epoch nanoseconds hold. */
    static final String OUT_OF_RANGE = "time out of range";
    /** 2^63 as a double: the first value past {@code Long.MAX_VALUE}. */
    private static final double TWO_TO_THE_63 = 0x1p63;
    /** Integer digits past which a decimal cannot fit a long (Long.MAX_VALUE has 19). */
    private static final int LONG_DIGITS = 19;

    private EpochNanos() {}

    /** Epoch (or duration) microseconds → nanoseconds; throws {@link ArithmeticException} past a long. */
    static long ofMicros(long micros) {
        return Math.multiplyExact(micros, 1_000L);
    }

    /**
     * Epoch seconds with a fraction (X-Ray) → nanoseconds, rounded half up to the microsecond (X-Ray writes µs
     * precision). The double is taken as the shortest decimal that reads back as it ({@link BigDecimal#valueOf(double)}),
     * the text the document most likely holds, so the µs written are the µs read wherever a double holds them (up to
     * 2^53 µs, the year 2255; past it a double is coarser than a µs). Throws {@link ArithmeticException} past a long, or
     * for a value that is no finite number.
     */
    static long ofSeconds(double seconds) {
        if (!Double.isFinite(seconds)) {
            throw new ArithmeticException("not a finite number of seconds: " + seconds);
        }
        BigDecimal micros = BigDecimal.valueOf(seconds).movePointRight(6).setScale(0, RoundingMode.HALF_UP);
        return Math.multiplyExact(micros.longValueExact(), 1_000L);
    }

    /**
     * Milliseconds with a fraction (the Alibaba call-graph CSV) → nanoseconds, the fraction of a nanosecond truncated;
     * throws {@link ArithmeticException} past a long.
     */
    static long ofMillis(double millis) {
        double nanos = millis * 1_000_000d;
        if (!(nanos >= -TWO_TO_THE_63 && nanos < TWO_TO_THE_63)) {
            throw new ArithmeticException("milliseconds past a long of nanoseconds: " + millis);
        }
        return (long) nanos;
    }

    /** A span's start and duration, nanoseconds, whose end ({@code start + duration}) fits a long too. */
    record SpanTimes(long startNanos, long durationNanos) {}

    /**
     * A span's start (epoch) and duration written as microseconds (Zipkin v2's {@code timestamp}/{@code duration},
     * Jaeger's {@code startTime}/{@code duration}), each read by {@link #integral(JsonNode)}; empty when either, or
     * their end, is outside a long of nanoseconds (the reader skips the span as {@value #OUT_OF_RANGE}).
     */
    static Optional<SpanTimes> ofMicros(JsonNode startMicros, JsonNode durationMicros) {
        try {
            long start = ofMicros(integral(startMicros));
            long duration = ofMicros(integral(durationMicros));
            end(start, duration);
            return Optional.of(new SpanTimes(start, duration));
        } catch (ArithmeticException e) {
            return Optional.empty();
        }
    }

    /** {@code start + duration}, the end of a span, in nanoseconds; throws {@link ArithmeticException} past a long. */
    static long end(long startNanos, long durationNanos) {
        return Math.addExact(startNanos, durationNanos);
    }

    /**
     * The whole number a JSON value holds, in the unit it is written in: a number (a fraction truncated), or a string of
     * one; 0 for a missing or null value and for any other value (as Jackson's {@code asLong(0)} reads it, which the
     * readers used before). Throws {@link ArithmeticException} when the number does not fit a long.
     */
    static long integral(JsonNode v) {
        if (v.isIntegralNumber()) {
            if (!v.canConvertToLong()) {
                throw new ArithmeticException("past a long: " + v.asText());
            }
            return v.longValue();
        }
        if (v.isNumber()) {
            return ofDouble(v.doubleValue());
        }
        return v.isTextual() ? integral(v.textValue()) : 0;
    }

    /** A double's whole part as a long; throws {@link ArithmeticException} when it does not fit (or is no number). */
    static long ofDouble(double d) {
        if (!(d >= -TWO_TO_THE_63 && d < TWO_TO_THE_63)) {
            throw new ArithmeticException("past a long: " + d);
        }
        return (long) d;
    }

    /**
     * The whole number a decimal text holds ({@code "1700000000000000"}, {@code "1.7E15"}), a fraction truncated; 0 for
     * blank text or text that is no number. Throws {@link ArithmeticException} when the number does not fit a long.
     */
    static long integral(String text) {
        String t = text.strip();
        if (t.isEmpty()) {
            return 0;
        }
        try {
            return Long.parseLong(t);
        } catch (NumberFormatException e) {
            // not a plain long: a decimal, an exponent, too many digits, or no number
        }
        BigDecimal d;
        try {
            d = new BigDecimal(t);
        } catch (NumberFormatException e) {
            return 0;
        }
        if (d.precision() - d.scale() > LONG_DIGITS) {
            throw new ArithmeticException("past a long: " + t);
        }
        return d.toBigInteger().longValueExact();
    }

    /**
     * OTLP's {@code fixed64} epoch nanoseconds as read by {@link #integral}: throws {@link ArithmeticException} for a
     * negative value, which {@code fixed64} cannot hold, as well as past {@code Long.MAX_VALUE}.
     */
    static long unsigned(long nanos) {
        if (nanos < 0) {
            throw new ArithmeticException("negative fixed64 nanoseconds: " + nanos);
        }
        return nanos;
    }
}
