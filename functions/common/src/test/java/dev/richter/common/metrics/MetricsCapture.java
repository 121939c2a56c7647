package dev.richter.common.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/** Keeps the EMF lines written outside Lambda while open (tests). */
public final class MetricsCapture implements AutoCloseable {
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Consumer<String> previous;

    public MetricsCapture() {
        previous = RichterMetrics.captureOutsideLambda(lines::add);
    }

    /** The lines written so far, parsed. */
    public List<JsonNode> lines() {
        return lines.stream().map(l -> {
            try {
                return Json.MAPPER.readTree(l);
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        }).toList();
    }

    @Override
    public void close() {
        RichterMetrics.captureOutsideLambda(previous);
    }
}
