package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.metrics.RichterMetrics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's end summary from EMF lines as the functions write them (through RichterMetrics, into a file). */
class MetricsSummaryTest {
    @Test
    void rateErrorProbeP99AndAbortLatencyOfOneRunFromTheMetricsFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("metrics.jsonl");
        List<String> lines = new ArrayList<>();
        Consumer<String> previous = RichterMetrics.captureOutsideLambda(lines::add);
        try {
            RichterMetrics driver = RichterMetrics.forFunction("load-driver");
            // three worker-seconds: 5 of 5, 5 of 5, 2 of 5 due (the abort's second)
            for (long[] w : new long[][] {{5, 5}, {5, 5}, {2, 5}}) {
                driver.emission().count("Sent", w[0]).percent("RateError", 100.0 * (w[0] - w[1]) / w[1])
                        .property("dueRequests", w[1]).property("runId", "run-a").flush();
            }
            driver.emission().count("Sent", 7).percent("RateError", 40).property("dueRequests", 5).property("runId", "run-b").flush();
            RichterMetrics probe = RichterMetrics.forFunction("probe");
            for (int i = 1; i <= 200; i++) {
                probe.emission().milliseconds("ProbeRoundDuration", i).property("runId", "run-a").flush();
            }
            RichterMetrics.forFunction("report").emission().count("RunsCompleted", 1).milliseconds("AbortLatency", 350)
                    .milliseconds("AbortDrain", 2_410)
                    .property("runId", "run-a").flush();
        } finally {
            RichterMetrics.captureOutsideLambda(previous);
        }
        Files.write(file, lines);

        MetricsSummary s = MetricsSummary.of(file, "run-a");
        assertEquals(3, s.rateWindows());
        assertEquals(100.0 * (12 - 15) / 15, s.rateErrorPercent().getAsDouble(), 1e-9);
        assertEquals(-60.0, s.worstWindowPercent().getAsDouble(), 1e-9);
        assertEquals(1, s.windowsOver1Pct());
        assertEquals(200, s.probeRounds());
        assertEquals(198.0, s.probeRoundP99Ms().getAsDouble(), "nearest rank: the 198th of 200");
        assertEquals(350, s.abortLatencyMs().getAsLong());
        assertEquals(2_410, s.abortDrainMs().getAsLong());
        assertEquals(List.of("rate error:   -20.00 % over 3 worker-seconds (worst window -60.0 %, 1 over ±1 %)",
                "probe rounds: p99 198 ms over 200 rounds",
                "abort latency: 350 ms from the abort flag to the last send; drain 2410 ms to the last worker stopped"), s.lines());

        MetricsSummary other = MetricsSummary.of(file, "run-b");
        assertTrue(other.abortLatencyMs().isEmpty());
        assertTrue(other.abortDrainMs().isEmpty());
        assertEquals(2, other.lines().size(), "no abort line for a run that was not aborted");
        assertEquals("probe rounds: none", other.lines().get(1));
    }
}
