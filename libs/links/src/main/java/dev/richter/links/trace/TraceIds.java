package dev.richter.links.trace;

import java.util.Locale;

/**
 * Reads trace and span ids as each format's specification writes them, and normalizes them to one
 * form so the same id joins across spans, widths and formats: a trace id becomes 32 lower-case hex
 * digits (128 bit), a span id 16 lower-case hex digits (64 bit), as in W3C Trace Context.
 *
 * <p>Rules, per format (a blank or absent id returns {@code ""}, and the span is then skipped as
 * "missing trace id" / "missing span id"; anything else that breaks the rule throws
 * {@link IllegalArgumentException} whose message says what was expected and what was found, e.g.
 * {@code expected 32 hex characters, got 44-character base64 value "YzRl…"}; the parsers add the
 * field's path and position and reject the whole document):
 * <ul>
 *   <li><b>OTLP/JSON</b> — opentelemetry-proto {@code docs/specification.md}, "JSON Protobuf
 *       Encoding": "traceId and spanId byte arrays are represented as case-insensitive
 *       hex-encoded strings; they are not base64-encoded"; {@code trace.proto}: a trace id is a
 *       16-byte array and a span id an 8-byte array, each "with at least one non-zero byte".
 *       So exactly 32 / 16 hex digits, any case, not all zeros. Base64 (the generic protobuf JSON
 *       mapping some exporters fall back to, corpus bug 22) is rejected, never decoded.</li>
 *   <li><b>Zipkin v2</b> — {@code zipkin2-api.yaml}: {@code traceId} "16 or 32 lowercase hex
 *       characters corresponding to 64 or 128 bits", {@code id}/{@code parentId} 16 lowercase hex.
 *       Read as Zipkin's own {@code zipkin2.Span.Builder} reads JSON: 1–32 hex digits for a trace
 *       id and 1–16 for a span id, left-padded with zeros (so {@code "ab"} is accepted), not all
 *       zeros; upper case is accepted and lower-cased. An all-zero {@code parentId} means root.</li>
 *   <li><b>Jaeger UI/query JSON</b> ({@code model/json}: {@code traceID}, {@code spanID} are
 *       strings the query service writes as hex; {@code model/v1/ids.go} {@code TraceIDFromString}
 *       parses 1–32 hex digits, {@code SpanIDFromString} 1–16, and older Jaeger versions wrote
 *       them without leading zeros): hex ids are left-padded like Zipkin's. A value in padded
 *       base64 form is rejected: it is Jaeger's api_v2 protobuf-JSON encoding of the id bytes
 *       ({@code TraceID.MarshalJSON}), or base64 of hex text, i.e. the same id under another
 *       encoding, which would split the trace. Any other string is kept verbatim as an opaque id
 *       ({@code model/json} declares {@code type TraceID string}; jaeger-ui's own fixtures use
 *       {@code trace-123}/{@code span-1}): such ids only join with the identical string.</li>
 *   <li><b>AWS X-Ray</b> — X-Ray developer guide, "Segment documents" and "Tracing header": a
 *       {@code trace_id} is {@code 1-} + 8 hex digits (epoch seconds) + {@code -} + 24 hex digits
 *       (96-bit id), e.g. {@code 1-58406520-a006649127e371903a2de979}; segment and subsegment
 *       {@code id}/{@code parent_id} are "a 64-bit identifier … in 16 hexadecimal digits". The
 *       trace id maps to the 32 digits {@code 58406520a006649127e371903a2de979} (the OpenTelemetry
 *       X-Ray propagator's mapping), so X-Ray and OTLP spans of one trace join.</li>
 * </ul>
 *
 * <p><b>64-bit and 128-bit forms of one id.</b> A 64-bit trace id (16 digits, Zipkin/B3 or Jaeger)
 * is the 128-bit id whose high half is zero: it is left-padded to 32 digits, so
 * {@code 463ac35c9f6413ad} and {@code 0000000000000000463ac35c9f6413ad} in one document are one
 * trace (Zipkin's {@code Span.normalizeTraceId} makes the same identification, in the other
 * direction). Here an id is read alone, so a 64-bit id never becomes a 128-bit id whose high half
 * is non-zero; a client that sends only the low half of such an id (jaegertracing/jaeger #3084) is
 * joined to its trace afterwards, per document and only when unambiguous, by {@link SpanCollector}.
 * OTLP and X-Ray have a single width, so the question does not arise there.
 *
 * <p>The Alibaba call-graph CSV has no id specification (its trace ids are dataset strings):
 * {@link #datasetTraceId} is lenient: hex is normalized as above, any other string is kept as it is.
 */
public final class TraceIds {
    private static final String ZERO_TRACE = "0".repeat(32);
    private static final String ZERO_SPAN = "0".repeat(16);
    /** Longest id value quoted in an error message, in characters. */
    private static final int QUOTE_MAX = 48;
    private static final String OTLP_HINT =
            "; OTLP/JSON writes trace and span ids as hex, not base64 (OTLP specification, JSON Protobuf Encoding)";

    private TraceIds() {}

    /**
     * An OTLP/JSON {@code traceId} (span or link).
     *
     * @param raw the JSON string value, "" when absent
     * @return 32 lower-case hex digits, or "" when {@code raw} is empty
     * @throws IllegalArgumentException unless {@code raw} is 32 hex digits, not all zero
     */
    public static String otlpTraceId(String raw) {
        return exactHex(raw, 32, "expected 32 hex characters", OTLP_HINT);
    }

    /**
     * An OTLP/JSON {@code spanId} (span or link).
     *
     * @param raw the JSON string value, "" when absent
     * @return 16 lower-case hex digits, or "" when {@code raw} is empty
     * @throws IllegalArgumentException unless {@code raw} is 16 hex digits, not all zero
     */
    public static String otlpSpanId(String raw) {
        return exactHex(raw, 16, "expected 16 hex characters", OTLP_HINT);
    }

    /**
     * An OTLP/JSON {@code parentSpanId}: as {@link #otlpSpanId}, except that empty or all zeros
     * means "root" ({@code trace.proto}: "If this is a root span, then this field must be empty";
     * some exporters write zeros instead).
     *
     * @return 16 lower-case hex digits, or "" for a root span
     * @throws IllegalArgumentException unless {@code raw} is empty or 16 hex digits
     */
    public static String otlpParentSpanId(String raw) {
        return parent(raw, 16, 16, "expected 16 hex characters", OTLP_HINT);
    }

    /**
     * A Zipkin v2 {@code traceId}.
     *
     * @param raw the JSON string value, "" when absent
     * @return 32 lower-case hex digits (a 64-bit id left-padded), or "" when {@code raw} is empty
     * @throws IllegalArgumentException unless {@code raw} is 1–32 hex digits, not all zero
     */
    public static String zipkinTraceId(String raw) {
        return paddedHex(raw, 32, "expected 16 or 32 hex characters");
    }

    /**
     * A Zipkin v2 span {@code id}.
     *
     * @return 16 lower-case hex digits, or "" when {@code raw} is empty
     * @throws IllegalArgumentException unless {@code raw} is 1–16 hex digits, not all zero
     */
    public static String zipkinSpanId(String raw) {
        return paddedHex(raw, 16, "expected 16 hex characters");
    }

    /**
     * A Zipkin v2 {@code parentId}: as {@link #zipkinSpanId}, except that all zeros means root
     * (as {@code zipkin2.Span.Builder.parentId} reads it).
     *
     * @return 16 lower-case hex digits, or "" for a root span
     * @throws IllegalArgumentException unless {@code raw} is empty or 1–16 hex digits
     */
    public static String zipkinParentId(String raw) {
        return parent(raw, 1, 16, "expected 16 hex characters", "");
    }

    /**
     * A Jaeger UI/query JSON {@code traceID}.
     *
     * @return 32 lower-case hex digits for a hex id (left-padded), the string itself for an opaque
     *     id, or "" when {@code raw} is empty
     * @throws IllegalArgumentException when {@code raw} is more than 32 hex digits, all zeros, or
     *     padded base64
     */
    public static String jaegerTraceId(String raw) {
        return jaeger(raw, 32, "expected hex of up to 32 characters");
    }

    /**
     * A Jaeger UI/query JSON {@code spanID} (span or reference), or a legacy {@code parentSpanID}
     * (for which all zeros means root: use {@link #jaegerParentSpanId}).
     *
     * @return 16 lower-case hex digits for a hex id (left-padded), the string itself for an opaque
     *     id, or "" when {@code raw} is empty
     * @throws IllegalArgumentException when {@code raw} is more than 16 hex digits, all zeros, or
     *     padded base64
     */
    public static String jaegerSpanId(String raw) {
        return jaeger(raw, 16, "expected hex of up to 16 characters");
    }

    /**
     * A Jaeger legacy {@code parentSpanID} or a reference's {@code spanID} used as the parent:
     * as {@link #jaegerSpanId}, except that all zeros ({@code "0"}, {@code "0000000000000000"})
     * means root.
     */
    public static String jaegerParentSpanId(String raw) {
        if (isHex(raw) && raw.length() <= 16 && allZero(raw)) {
            return "";
        }
        return jaegerSpanId(raw);
    }

    /**
     * An X-Ray segment's {@code trace_id}.
     *
     * @return the 32 lower-case hex digits of the epoch and the 96-bit id, or "" when {@code raw}
     *     is empty
     * @throws IllegalArgumentException unless {@code raw} is {@code 1-<8 hex>-<24 hex>}
     */
    public static String xrayTraceId(String raw) {
        if (raw == null || raw.isEmpty()) {
            return "";
        }
        if (raw.length() == 35 && raw.charAt(0) == '1' && raw.charAt(1) == '-' && raw.charAt(10) == '-') {
            String hex = raw.substring(2, 10) + raw.substring(11);
            if (isHex(hex) && !allZero(hex)) {
                return hex.toLowerCase(Locale.ROOT);
            }
        }
        throw new IllegalArgumentException("expected 1-<8 hex>-<24 hex> (e.g. 1-58406520-a006649127e371903a2de979), got "
                + describe(raw));
    }

    /**
     * An X-Ray segment or subsegment {@code id}.
     *
     * @return 16 lower-case hex digits, or "" when {@code raw} is empty
     * @throws IllegalArgumentException unless {@code raw} is 16 hex digits, not all zero
     */
    public static String xraySegmentId(String raw) {
        return exactHex(raw, 16, "expected 16 hex characters", "");
    }

    /**
     * An X-Ray {@code parent_id}.
     *
     * @return 16 lower-case hex digits, or "" when absent (a root segment)
     * @throws IllegalArgumentException unless {@code raw} is empty or 16 hex digits
     */
    public static String xrayParentId(String raw) {
        return parent(raw, 16, 16, "expected 16 hex characters", "");
    }

    /**
     * An Alibaba call-graph CSV {@code traceid} (no specification: dataset strings): hex of up
     * to 32 digits is lower-cased and left-padded to 32, anything else kept verbatim (stripped).
     *
     * @return the normalized id, or "" when blank
     */
    public static String datasetTraceId(String raw) {
        if (raw == null || raw.isBlank()) {
            return "";
        }
        if (isHex(raw) && raw.length() <= 32) {
            return pad(raw.toLowerCase(Locale.ROOT), 32);
        }
        return raw.strip();
    }

    private static String exactHex(String raw, int digits, String expected, String base64Hint) {
        if (raw == null || raw.isEmpty()) {
            return "";
        }
        if (raw.length() != digits || !isHex(raw)) {
            throw new IllegalArgumentException(expected + ", got " + describe(raw) + hint(raw, base64Hint));
        }
        return nonZero(lower(raw), expected);
    }

    private static String paddedHex(String raw, int digits, String expected) {
        if (raw == null || raw.isEmpty()) {
            return "";
        }
        if (raw.length() > digits || !isHex(raw)) {
            throw new IllegalArgumentException(expected + ", got " + describe(raw));
        }
        return nonZero(pad(lower(raw), digits), expected);
    }

    /** A parent span id of {@code min..max} hex digits, padded to 16; empty or all zeros → "". */
    private static String parent(String raw, int min, int max, String expected, String base64Hint) {
        if (raw == null || raw.isEmpty()) {
            return "";
        }
        if (raw.length() < min || raw.length() > max || !isHex(raw)) {
            throw new IllegalArgumentException(expected + ", got " + describe(raw) + hint(raw, base64Hint));
        }
        return allZero(raw) ? "" : pad(lower(raw), 16);
    }

    private static String jaeger(String raw, int digits, String expected) {
        if (raw == null || raw.isEmpty()) {
            return "";
        }
        if (isHex(raw)) {
            if (raw.length() > digits) {
                throw new IllegalArgumentException(expected + ", got " + describe(raw));
            }
            return nonZero(pad(lower(raw), digits), expected);
        }
        if (isPaddedBase64(raw)) {
            throw new IllegalArgumentException(expected + " (Jaeger UI/query JSON), got " + describe(raw)
                    + "; base64 ids are Jaeger's api_v2 protobuf JSON, export the trace from the Jaeger UI or"
                    + " /api/traces instead");
        }
        return raw;
    }

    private static String hint(String raw, String base64Hint) {
        return base64Hint.isEmpty() || !isPaddedBase64(raw) ? "" : base64Hint;
    }

    private static String nonZero(String hex, String expected) {
        if (hex.equals(ZERO_TRACE) || hex.equals(ZERO_SPAN)) {
            throw new IllegalArgumentException(expected + ", got an all-zero id, which the format reserves as invalid");
        }
        return hex;
    }

    private static String pad(String hex, int digits) {
        int n = hex.length();
        return n >= digits ? hex : "0".repeat(digits - n) + hex;
    }

    private static String lower(String hex) {
        for (int i = 0, n = hex.length(); i < n; i++) {
            char c = hex.charAt(i);
            if (c >= 'A' && c <= 'F') {
                return hex.toLowerCase(Locale.ROOT);
            }
        }
        return hex;
    }

    private static boolean isHex(String s) {
        if (s == null || s.isEmpty()) {
            return false;
        }
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            boolean hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
            if (!hex) {
                return false;
            }
        }
        return true;
    }

    private static boolean allZero(String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            if (s.charAt(i) != '0') {
                return false;
            }
        }
        return true;
    }

    /**
     * True for standard or URL-safe base64 with {@code =} padding (RFC 4648 §4, §5). Every base64
     * form of an 8- or 16-byte id, or of 16 or 32 hex characters, ends in {@code =}, and no hex
     * id contains one, so the test has no false positive on a hex id.
     */
    static boolean isPaddedBase64(String s) {
        int n = s.length();
        if (n < 4 || n % 4 != 0 || s.charAt(n - 1) != '=') {
            return false;
        }
        int end = s.charAt(n - 2) == '=' ? n - 2 : n - 1;
        for (int i = 0; i < end; i++) {
            char c = s.charAt(i);
            boolean b64 = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
                    || c == '+' || c == '/' || c == '-' || c == '_';
            if (!b64) {
                return false;
            }
        }
        return true;
    }

    /** What an invalid id looks like, for error messages: its length, its kind, and the value (shortened). */
    static String describe(String raw) {
        String kind;
        if (isHex(raw)) {
            kind = raw.length() + " hex characters";
        } else if (isPaddedBase64(raw)) {
            kind = raw.length() + "-character base64 value";
        } else {
            kind = raw.length() + "-character value that is not hex";
        }
        String shown = raw.length() <= QUOTE_MAX ? raw : raw.substring(0, QUOTE_MAX) + "…";
        return kind + " \"" + shown + "\"";
    }
}
