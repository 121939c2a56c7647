package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * One run's figures from Richter's own metrics: the EMF lines the local Lambda host appended to
 * {@code metrics.jsonl} ({@link LocalAwsStack#metricsFile()}), those whose {@code runId} property is the run's.
 *
 * @param rateWindows        load-driver windows with a {@code RateError} (worker-seconds with requests due)
 * @param rateErrorPercent   the run's rate error over those windows, {@code 100 × (Σ sent − Σ due) / Σ due}, percent;
 *                           empty without such windows
 * @param worstWindowPercent the per-window {@code RateError} farthest from 0, percent (signed); empty without windows
 * @param windowsOver1Pct    windows whose {@code |RateError|} is over 1 %
 * @param probeRounds        probe rounds of the run
 * @param probeRoundP99Ms    the 99th percentile of {@code ProbeRoundDuration} (nearest rank), milliseconds; empty
 *                           without rounds
 * @param abortLatencyMs     {@code AbortLatency} of the run, milliseconds; empty when it was not aborted (or no worker
 *                           was stopped by the abort): from the abort flag to the last send
 * @param abortDrainMs       {@code AbortDrain} of the run, milliseconds: from the abort flag to the last worker
 *                           stopped, the in-flight requests' drain included; empty as {@code abortLatencyMs}
 */
public record MetricsSummary(int rateWindows, OptionalDouble rateErrorPercent, OptionalDouble worstWindowPercent,
                             int windowsOver1Pct, int probeRounds, OptionalDouble probeRoundP99Ms,
                             OptionalLong abortLatencyMs, OptionalLong abortDrainMs) {

    /**
     * Reads {@code file} (absent: an empty summary).
     *
     * @throws IOException when the file cannot be read or a line is not JSON
     */
    public static MetricsSummary of(Path file, String runId) throws IOException {
        List<JsonNode> lines = new ArrayList<>();
        if (Files.exists(file)) {
            for (String line : Files.readAllLines(file)) {
                if (!line.isBlank()) {
                    JsonNode n = Json.MAPPER.readTree(line);
                    if (runId.equals(n.path("runId").asText())) {
                        lines.add(n);
                    }
                }
            }
        }
        return of(lines);
    }

    /** The summary of EMF lines already chosen (one run's). */
    public static MetricsSummary of(List<JsonNode> lines) {
        long sent = 0;
        long due = 0;
        int windows = 0;
        int over = 0;
        Double worst = null;
        List<Double> rounds = new ArrayList<>();
        OptionalLong abort = OptionalLong.empty();
        OptionalLong drain = OptionalLong.empty();
        for (JsonNode n : lines) {
            String function = n.path("Function").asText();
            if (function.equals("load-driver") && n.has("RateError")) {
                windows++;
                sent += n.path("Sent").asLong();
                due += n.path("dueRequests").asLong();
                double e = n.path("RateError").asDouble();
                over += Math.abs(e) > 1 ? 1 : 0;
                if (worst == null || Math.abs(e) > Math.abs(worst)) {
                    worst = e;
                }
            } else if (function.equals("probe") && n.has("ProbeRoundDuration")) {
                rounds.add(n.path("ProbeRoundDuration").asDouble());
            } else if (function.equals("report")) {
                if (n.has("AbortLatency")) {
                    abort = OptionalLong.of(n.path("AbortLatency").asLong());
                }
                if (n.has("AbortDrain")) {
                    drain = OptionalLong.of(n.path("AbortDrain").asLong());
                }
            }
        }
        rounds.sort(null);
        OptionalDouble p99 = rounds.isEmpty() ? OptionalDouble.empty()
                : OptionalDouble.of(rounds.get((int) Math.ceil(0.99 * rounds.size()) - 1));
        return new MetricsSummary(windows, due == 0 ? OptionalDouble.empty() : OptionalDouble.of(100.0 * (sent - due) / due),
                worst == null ? OptionalDouble.empty() : OptionalDouble.of(worst), over, rounds.size(), p99, abort, drain);
    }

    /** What the demo prints at its end: rate error, probe round p99, abort latency and drain when the run was aborted. */
    public List<String> lines() {
        List<String> out = new ArrayList<>();
        out.add(rateErrorPercent.isPresent()
                ? String.format(Locale.ROOT, "rate error:   %+.2f %% over %d worker-seconds (worst window %+.1f %%, %d over ±1 %%)",
                        rateErrorPercent.getAsDouble(), rateWindows, worstWindowPercent.getAsDouble(), windowsOver1Pct)
                : "rate error:   no load-driver windows");
        out.add(probeRoundP99Ms.isPresent()
                ? String.format(Locale.ROOT, "probe rounds: p99 %.0f ms over %d rounds", probeRoundP99Ms.getAsDouble(), probeRounds)
                : "probe rounds: none");
        abortLatencyMs.ifPresent(ms -> out.add("abort latency: " + ms + " ms from the abort flag to the last send"
                + (abortDrainMs.isPresent() ? "; drain " + abortDrainMs.getAsLong() + " ms to the last worker stopped" : "")));
        return out;
    }
}
