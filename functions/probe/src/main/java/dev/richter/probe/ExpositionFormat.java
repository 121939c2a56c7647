package dev.richter.probe;

import java.util.Locale;

/**
 * The two text formats a metrics endpoint answers in, which differ in how a scrape reads: timestamps (Prometheus text
 * 0.0.4: integer milliseconds; OpenMetrics 1.0: seconds, integer or not), the end marker (OpenMetrics ends with
 * {@code # EOF}, and nothing may follow it) and exemplars (OpenMetrics only). Sources: prometheus/docs
 * {@code exposition_formats.md} ("Text-based format", version 0.0.4, media type {@code text/plain; version=0.0.4});
 * OpenMetrics 1.0 (media type {@code application/openmetrics-text; version=1.0.0}, "Timestamps", "EOF").
 */
public enum ExpositionFormat {
    /** Prometheus text exposition 0.0.4 (and Prometheus 3's {@code text/plain; version=1.0.0}). */
    PROMETHEUS_TEXT_0_0_4,
    /** OpenMetrics 1.0 text. */
    OPENMETRICS_1_0;

    /**
     * The format a scrape is in: what its {@code Content-Type} declares when it names one of the two media types
     * ({@code application/openmetrics-text} → OpenMetrics, {@code text/plain} → Prometheus text; parameters and case
     * ignored), else what the body shows: a {@code # EOF} or {@code # UNIT} line, which only OpenMetrics has, makes it
     * OpenMetrics, anything else Prometheus text.
     *
     * @param contentType the answer's {@code Content-Type} header, empty when unknown
     * @param body        the exposition
     */
    public static ExpositionFormat of(String contentType, String body) {
        String mediaType = contentType == null ? "" : contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
        if (mediaType.equals("application/openmetrics-text")) {
            return OPENMETRICS_1_0;
        }
        if (mediaType.equals("text/plain")) {
            return PROMETHEUS_TEXT_0_0_4;
        }
        for (String line : body.split("\r?\n")) {
            if (line.equals("# EOF") || line.startsWith("# UNIT ")) {
                return OPENMETRICS_1_0;
            }
        }
        return PROMETHEUS_TEXT_0_0_4;
    }
}
