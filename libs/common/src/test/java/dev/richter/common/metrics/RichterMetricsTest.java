package dev.richter.common.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;

class RichterMetricsTest {
    @Test
    void oneEmissionIsOneEmfLineInTheRichterNamespaceWithFunctionAndStageDimensionsOnly() {
        try (MetricsCapture capture = new MetricsCapture()) {
            new RichterMetrics("probe", "dev", false).emission()
                    .milliseconds("ProbeRoundDuration", 42.5)
                    .count("FailedProbes", 2)
                    .property("runId", "r-1")
                    .property("teamId", "t-1")
                    .flush();
            List<JsonNode> lines = capture.lines();
            assertEquals(1, lines.size());
            JsonNode line = lines.get(0);
            JsonNode directive = line.path("_aws").path("CloudWatchMetrics").get(0);
            assertEquals("Richter", directive.path("Namespace").asText());
            assertEquals(1, directive.path("Dimensions").size());
            assertEquals(List.of("Function", "Stage"), names(directive.path("Dimensions").get(0)));
            assertEquals("probe", line.path("Function").asText());
            assertEquals("dev", line.path("Stage").asText());
            assertEquals(42.5, line.path("ProbeRoundDuration").asDouble());
            assertEquals(2.0, line.path("FailedProbes").asDouble());
            assertEquals("Milliseconds", MetricsCapture.unit(directive, "ProbeRoundDuration"));
            assertEquals("Count", MetricsCapture.unit(directive, "FailedProbes"));
            // team and run are EMF properties: top-level fields that no dimension set names
            assertEquals("r-1", line.path("runId").asText());
            assertEquals("t-1", line.path("teamId").asText());
            assertFalse(directive.path("Dimensions").toString().contains("runId"));
        }
    }

    @Test
    void anEmissionWithoutMetricsWritesNothing() {
        try (MetricsCapture capture = new MetricsCapture()) {
            new RichterMetrics("probe", "dev", false).emission().property("runId", "r").flush();
            assertTrue(capture.lines().isEmpty());
        }
    }

    private static List<String> names(JsonNode array) {
        List<String> out = new java.util.ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
