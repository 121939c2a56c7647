package dev.richter.common.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Keeps, while open, the EMF lines {@link RichterMetrics} writes outside Lambda (tests and tools that check what a
 * function emitted). Closing it restores the previous sink. JVM-wide: do not open two at once.
 */
public final class MetricsCapture implements AutoCloseable {
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Consumer<String> previous;

    public MetricsCapture() {
        previous = RichterMetrics.captureOutsideLambda(lines::add);
    }

    /** The lines written so far, parsed, in order. */
    public List<JsonNode> lines() {
        return lines.stream().map(l -> {
            try {
                return Json.MAPPER.readTree(l);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }).toList();
    }

    /**
     * The unit of {@code metric} in an EMF directive ({@code _aws.CloudWatchMetrics[i]}).
     *
     * @throws IllegalArgumentException when the directive has no such metric
     */
    public static String unit(JsonNode directive, String metric) {
        for (JsonNode m : directive.path("Metrics")) {
            if (m.path("Name").asText().equals(metric)) {
                return m.path("Unit").asText();
            }
        }
        throw new IllegalArgumentException("no metric " + metric + " in " + directive);
    }

    @Override
    public void close() {
        RichterMetrics.captureOutsideLambda(previous);
    }
}
