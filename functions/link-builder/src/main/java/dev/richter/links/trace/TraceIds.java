package dev.richter.links.trace;

/**
 * Normalizes trace and span ids across formats (W3C Trace Context: 16-byte trace id, 8-byte span id).
 *
 * <p>Hex ids are lower-cased and left-padded with zeros: 64-bit (16-digit) trace ids become
 * 128-bit ones, so a Zipkin/Jaeger 64-bit id equals the same id written by a 128-bit tracer with
 * a zero high half. X-Ray ids {@code 1-5f29ab21-d4ebf299219a65bd5c31d6da} become the 32 hex digits
 * {@code 5f29ab21d4ebf299219a65bd5c31d6da} (the OpenTelemetry X-Ray propagator's mapping).
 * Non-hex ids (test fixtures use {@code trace-123}) are kept verbatim. Blank ids return "".
 */
public final class TraceIds {
    private TraceIds() {}

    /** Normalized trace id: 32 lower-case hex digits, or the opaque id, or "" when blank. */
    public static String traceId(String raw) {
        if (raw == null || raw.isEmpty()) {
            return "";
        }
        if (raw.length() == 35 && raw.charAt(0) == '1' && raw.charAt(1) == '-' && raw.charAt(10) == '-') {
            String hex = raw.substring(2, 10) + raw.substring(11);
            if (isHex(hex)) {
                return hex.toLowerCase(java.util.Locale.ROOT);
            }
        }
        return pad(raw, 32);
    }

    /** Normalized span id: 16 lower-case hex digits, or the opaque id, or "" when blank. */
    public static String spanId(String raw) {
        if (raw == null || raw.isEmpty()) {
            return "";
        }
        return pad(raw, 16);
    }

    private static String pad(String raw, int width) {
        int n = raw.length();
        if (n == 0 || n > width) {
            return raw.strip();
        }
        boolean lower = true;
        for (int i = 0; i < n; i++) { // one pass: hex check and case
            char c = raw.charAt(i);
            if (c >= 'A' && c <= 'F') {
                lower = false;
            } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return raw.strip();
            }
        }
        String s = lower ? raw : raw.toLowerCase(java.util.Locale.ROOT);
        return n == width ? s : "0".repeat(width - n) + s;
    }

    private static boolean isHex(String s) {
        if (s.isEmpty()) {
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
}
