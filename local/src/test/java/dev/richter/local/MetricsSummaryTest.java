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
    void rateErrorOfHeldStepsApartFromTheRampProbeP99AndAbortLatencyOfOneRunFromTheMetricsFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("metrics.jsonl");
        List<String> lines = new ArrayList<>();
        Consumer<String> previous = RichterMetrics.captureOutsideLambda(lines::add);
        try {
            RichterMetrics driver = RichterMetrics.forFunction("load-driver");
            // held: the pre-test's 2 of 2, a formal step's 5 of 5 and 4 of 5 (one request not sent), and the abort's
            // second, whose due the driver cut at the stop (3 of 3); the ramp: a warm-up second at 2 QPS sent 1 of 2
            for (Object[] w : new Object[][] {{"pre-test", 0, 2, 2}, {"formal", 1, 5, 5}, {"formal", 1, 4, 5},
                    {"formal", 2, 3, 3}, {"warm-up", 0, 1, 2}, {"warm-up", 0, 2, 2}}) {
                long sent = (int) w[2];
                long due = (int) w[3];
                driver.emission().count("Sent", sent).count("Dropped", 0).count("Late", 0)
                        .percent("RateError", 100.0 * (sent - due) / due).property("dueRequests", due)
                        .property("runStage", (String) w[0]).property("stepIndex", (int) w[1]).property("workerIndex", 0)
                        .property("epochSecond", 1796458545L).property("runId", "run-a").flush();
            }
            driver.emission().count("Sent", 7).percent("RateError", 40).property("dueRequests", 5).property("runId", "run-b")
                    .property("runStage", "formal").property("stepIndex", 0).flush();
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
        assertEquals(4, s.held().windows());
        assertEquals(100.0 * (14 - 15) / 15, s.held().percent().getAsDouble(), 1e-9);
        assertEquals(-20.0, s.held().worst().orElseThrow().percent(), 1e-9);
        assertEquals(1, s.held().over());
        assertEquals(2, s.ramp().windows());
        assertEquals(100.0 * (3 - 4) / 4, s.ramp().percent().getAsDouble(), 1e-9);
        assertEquals(200, s.probeRounds());
        assertEquals(198.0, s.probeRoundP99Ms().getAsDouble(), "nearest rank: the 198th of 200");
        assertEquals(350, s.abortLatencyMs().getAsLong());
        assertEquals(2_410, s.abortDrainMs().getAsLong());
        assertEquals(List.of("rate error:   held steps (pre-test and formal) -6.67 % (sent 14 of 15 due over 4 worker-seconds, due"
                        + " counted until the abort stopped the workers; 1 over ±1 %, worst -20.0 % in step 2 worker 0 at"
                        + " 08:15:45 UTC): the workers sent less than planned: the steps' figures describe another load than"
                        + " their targets",
                "              warm-up -25.00 % (sent 3 of 4 due over 2 worker-seconds; 1 over ±1 %, worst -50.0 % in"
                        + " warm-up worker 0 at 08:15:45 UTC): kept apart from the figures, as the warm-up is; the workers"
                        + " sent less than planned",
                "probe rounds: p99 198 ms over 200 rounds",
                "abort latency: 350 ms from the abort flag to the last send; drain 2410 ms to the last worker stopped"), s.lines());

        MetricsSummary other = MetricsSummary.of(file, "run-b");
        assertTrue(other.abortLatencyMs().isEmpty());
        assertTrue(other.abortDrainMs().isEmpty());
        assertEquals(List.of("rate error:   held steps (pre-test and formal) +40.00 % (sent 7 of 5 due over 1 worker-seconds;"
                        + " 1 over ±1 %, worst +40.0 % in step 1 worker 0 at 00:00:00 UTC): the workers sent more than planned:"
                        + " the steps' figures describe another load than their targets",
                "probe rounds: none"), other.lines(), "no ramp line without warm-up windows, no abort line without an abort");
    }

    @Test
    void secondsOffWithinAWholeSentAsPlannedAreNamedAsSuch() {
        List<com.fasterxml.jackson.databind.JsonNode> lines = new ArrayList<>();
        // at 2 QPS one request sent in the next second's window: -50 % then +50 %, the whole as planned
        for (long[] w : new long[][] {{1, 2}, {3, 2}, {2, 2}}) {
            lines.add(dev.richter.common.Json.MAPPER.createObjectNode().put("Function", "load-driver").put("Sent", w[0])
                    .put("RateError", 100.0 * (w[0] - w[1]) / w[1]).put("dueRequests", w[1]).put("runStage", "pre-test")
                    .put("stepIndex", 0).put("epochSecond", 1796458545L));
        }
        assertEquals("rate error:   held steps (pre-test and formal) +0.00 % (sent 6 of 6 due over 3 worker-seconds; 2 over"
                + " ±1 %, worst -50.0 % in pre-test worker 0 at 08:15:45 UTC): the load was the plan's over the steps (a"
                + " request sent in a neighbouring second, or in the second of a stop, moves a few of them; at 2 QPS one"
                + " request is 50 %)", MetricsSummary.of(lines).lines().get(0));
    }

    @Test
    void aRunSentAsPlannedSaysSo() {
        List<com.fasterxml.jackson.databind.JsonNode> lines = new ArrayList<>();
        for (String stage : List.of("pre-test", "formal", "warm-up")) {
            lines.add(dev.richter.common.Json.MAPPER.createObjectNode().put("Function", "load-driver").put("Sent", 20)
                    .put("RateError", 0.0).put("dueRequests", 20).put("runStage", stage).put("stepIndex", 0));
        }
        assertEquals(List.of("rate error:   held steps (pre-test and formal) +0.00 % (sent 40 of 40 due over 2 worker-seconds;"
                        + " 0 over ±1 %): the load was the plan's: the steps' figures are at their target rates",
                "              warm-up +0.00 % (sent 20 of 20 due over 1 worker-seconds; 0 over ±1 %): kept apart from"
                        + " the figures, as the warm-up is",
                "probe rounds: none"), MetricsSummary.of(lines).lines());
    }
}
