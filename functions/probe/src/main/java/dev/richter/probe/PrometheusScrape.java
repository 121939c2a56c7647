package dev.richter.probe;

import java.util.List;

/**
 * What {@link PrometheusTextParser} read from one exposition.
 *
 * @param samples  every sample line, in written order
 * @param warnings one entry per optional part that was dropped, naming its 1-based line, e.g.
 *                 {@code "line 3: exemplar dropped: an exemplar needs a label set ('{}' when empty)"};
 *                 at most {@link PrometheusTextParser#MAX_WARNINGS} entries plus one closing
 *                 {@code "... more ... dropped"} entry when there were more. Empty for a clean scrape.
 * @param format   the format the exposition was read as ({@link ExpositionFormat#of})
 */
public record PrometheusScrape(List<MetricSample> samples, List<String> warnings, ExpositionFormat format) {
    public PrometheusScrape {
        format = format == null ? ExpositionFormat.PROMETHEUS_TEXT_0_0_4 : format;
        samples = samples == null ? List.of() : List.copyOf(samples);
        warnings = warnings == null ? List.of() : List.copyOf(warnings);
    }
}
