package dev.richter.links.trace;

import java.util.Locale;

/**
 * The role of a span in a call, as OpenTelemetry's {@code SpanKind} defines it (OTLP
 * {@code kind} 0–5; Zipkin v2 {@code kind}; Jaeger tag {@code span.kind}; X-Ray: a segment is a
 * SERVER, a subsegment with {@code namespace} {@code remote}/{@code aws} is a CLIENT).
 * {@link #UNSPECIFIED} means the format did not say (e.g. Jaeger spans without the tag).
 */
public enum SpanKind {
    UNSPECIFIED, INTERNAL, SERVER, CLIENT, PRODUCER, CONSUMER;

    /** True for the kinds that receive a call: SERVER and CONSUMER. */
    public boolean receivesCall() {
        return this == SERVER || this == CONSUMER;
    }

    /** True for the kinds that make an outgoing call: CLIENT and PRODUCER. */
    public boolean makesCall() {
        return this == CLIENT || this == PRODUCER;
    }

    /** OTLP numeric kind (0 unspecified … 5 consumer); out-of-range values are UNSPECIFIED. */
    public static SpanKind ofOtlp(int kind) {
        return switch (kind) {
            case 1 -> INTERNAL;
            case 2 -> SERVER;
            case 3 -> CLIENT;
            case 4 -> PRODUCER;
            case 5 -> CONSUMER;
            default -> UNSPECIFIED;
        };
    }

    /**
     * Parses a textual kind, case-insensitively: {@code server}, {@code SERVER},
     * {@code SPAN_KIND_SERVER}; unknown or empty text is UNSPECIFIED.
     */
    public static SpanKind ofText(String text) {
        if (text == null || text.isEmpty()) {
            return UNSPECIFIED;
        }
        String t = text.toUpperCase(Locale.ROOT);
        if (t.startsWith("SPAN_KIND_")) {
            t = t.substring(10);
        }
        return switch (t) {
            case "INTERNAL" -> INTERNAL;
            case "SERVER" -> SERVER;
            case "CLIENT" -> CLIENT;
            case "PRODUCER" -> PRODUCER;
            case "CONSUMER" -> CONSUMER;
            default -> UNSPECIFIED;
        };
    }
}
