package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.report.StepLabels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * One run's figures from Richter's own metrics: the EMF lines the local Lambda host appended to
 * {@code metrics.jsonl} ({@link LocalAwsStack#metricsFile()}), those whose {@code runId} property is the run's.
 *
 * <p>The rate error is the load driver's {@code RateError} of each worker-second ({@code 100 × (sent − due) / due},
 * {@code due} from the worker's schedule, cut where the worker was told to stop: its send limit, the abort), summed
 * apart for the <b>held</b> steps (pre-test and formal: one rate held for the step, what the report's figures and the
 * capacity rest on) and the <b>ramp</b> (the warm-up's steps, whose rate changes every few seconds and whose figures
 * are kept apart). Within ±1 % (the limit of {@code LoadDriverRateErrorAlarm}) the load was the plan's; beyond it the
 * workers sent less (or more) than planned, and the steps' figures describe another load than their targets say.
 *
 * @param held               the held steps' windows
 * @param ramp               the warm-up's windows
 * @param dropped            requests not sent at the in-flight cap ({@code Dropped}), over the run
 * @param late               requests sent later than the lateness tolerance ({@code Late}), over the run
 * @param probeRounds        probe rounds of the run
 * @param probeRoundP99Ms    the 99th percentile of {@code ProbeRoundDuration} (nearest rank), milliseconds; empty
 *                           without rounds
 * @param abortLatencyMs     {@code AbortLatency} of the run, milliseconds; empty when it was not aborted (or no worker
 *                           was stopped by the abort): from the abort flag to the last send
 * @param abortDrainMs       {@code AbortDrain} of the run, milliseconds: from the abort flag to the last worker
 *                           stopped, the in-flight requests' drain included; empty as {@code abortLatencyMs}
 */
public record MetricsSummary(RateError held, RateError ramp, long dropped, long late, int probeRounds,
                             OptionalDouble probeRoundP99Ms, OptionalLong abortLatencyMs, OptionalLong abortDrainMs) {

    /** A window whose {@code |RateError|} is over this is off the plan (percent; the alarm's limit). */
    public static final double WINDOW_LIMIT_PCT = 1.0;

    /**
     * The rate error over some worker-seconds.
     *
     * @param windows worker-seconds with requests due
     * @param sent    requests sent in them
     * @param due     requests due in them
     * @param over    windows whose {@code |RateError|} is over {@value #WINDOW_LIMIT_PCT} %
     * @param worst   the window farthest from 0, when there is one
     */
    public record RateError(int windows, long sent, long due, int over, Optional<WorkerSecond> worst) {
        static final RateError NONE = new RateError(0, 0, 0, 0, Optional.empty());

        /** {@code 100 × (sent − due) / due}, percent; empty without windows. */
        public OptionalDouble percent() {
            return due == 0 ? OptionalDouble.empty() : OptionalDouble.of(100.0 * (sent - due) / due);
        }

        RateError plus(WorkerSecond w) {
            Optional<WorkerSecond> farthest = worst.isPresent() && Math.abs(worst.get().percent()) >= Math.abs(w.percent())
                    ? worst : Optional.of(w);
            return new RateError(windows + 1, sent + w.sent(), due + w.due(),
                    over + (Math.abs(w.percent()) > WINDOW_LIMIT_PCT ? 1 : 0), farthest);
        }
    }

    /** One worker-second: its step ({@code formal}, 0-based index), worker, second, sent, due and {@code RateError}. */
    public record WorkerSecond(String stage, int stepIndex, int worker, long epochSecond, long sent, long due, double percent) {}

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
        RateError held = RateError.NONE;
        RateError ramp = RateError.NONE;
        long dropped = 0;
        long late = 0;
        List<Double> rounds = new ArrayList<>();
        OptionalLong abort = OptionalLong.empty();
        OptionalLong drain = OptionalLong.empty();
        for (JsonNode n : lines) {
            String function = n.path("Function").asText();
            if (function.equals("load-driver")) {
                dropped += n.path("Dropped").asLong();
                late += n.path("Late").asLong();
                if (n.has("RateError")) {
                    WorkerSecond w = new WorkerSecond(n.path("runStage").asText(), n.path("stepIndex").asInt(), n.path("workerIndex").asInt(),
                            n.path("epochSecond").asLong(), n.path("Sent").asLong(), n.path("dueRequests").asLong(),
                            n.path("RateError").asDouble());
                    if (w.stage().equals("warm-up")) {
                        ramp = ramp.plus(w);
                    } else {
                        held = held.plus(w);
                    }
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
        return new MetricsSummary(held, ramp, dropped, late, rounds.size(), p99, abort, drain);
    }

    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);

    /**
     * What the demo prints at its end: the rate error of the held steps, then of the warm-up's ramp, each with what
     * it measured and whether it is a problem; the probe rounds' p99; the abort latency and drain when the run was
     * aborted.
     */
    public List<String> lines() {
        List<String> out = new ArrayList<>();
        if (held.windows() == 0 && ramp.windows() == 0) {
            out.add("rate error:   no load-driver windows");
        } else {
            boolean aborted = abortLatencyMs.isPresent();
            String cut = aborted ? ", due counted until the abort stopped the workers" : "";
            out.add("rate error:   held steps (pre-test and formal) " + describe(held, cut) + judge(held,
                    "the load was the plan's: the steps' figures are at their target rates",
                    "the load was the plan's over the steps (a request sent in a neighbouring second, or in the"
                            + " second of a stop, moves a few of them; at 2 QPS one request is 50 %)",
                    "the workers sent " + (held.sent() < held.due() ? "less" : "more") + " than planned"
                            + extra() + ": the steps' figures describe another load than their targets"));
            if (ramp.windows() > 0) {
                String apart = "kept apart from the figures, as the warm-up is";
                out.add("              warm-up " + describe(ramp, "") + judge(ramp, apart,
                        apart + "; at its low rates one request is a window of several %", apart + "; the workers sent "
                                + (ramp.sent() < ramp.due() ? "less" : "more") + " than planned"));
            }
        }
        out.add(probeRoundP99Ms.isPresent()
                ? String.format(Locale.ROOT, "probe rounds: p99 %.0f ms over %d rounds", probeRoundP99Ms.getAsDouble(), probeRounds)
                : "probe rounds: none");
        abortLatencyMs.ifPresent(ms -> out.add("abort latency: " + ms + " ms from the abort flag to the last send"
                + (abortDrainMs.isPresent() ? "; drain " + abortDrainMs.getAsLong() + " ms to the last worker stopped" : "")));
        return out;
    }

    /** {@code +0.00 % (sent 2420 of 2420 due over 89 worker-seconds; 0 over ±1 %)} with the worst window when off. */
    private static String describe(RateError r, String cut) {
        if (r.windows() == 0) {
            return "no windows";
        }
        String worst = r.over() == 0 ? "" : r.worst().map(w -> String.format(Locale.ROOT, ", worst %+.1f %% in %s worker %d at %s UTC",
                w.percent(), StepLabels.name(w.stage(), w.stepIndex()), w.worker(),
                CLOCK.format(Instant.ofEpochSecond(w.epochSecond())))).orElse("");
        return String.format(Locale.ROOT, "%+.2f %% (sent %d of %d due over %d worker-seconds%s; %d over ±%.0f %%%s)",
                r.percent().getAsDouble(), r.sent(), r.due(), r.windows(), cut, r.over(), WINDOW_LIMIT_PCT, worst);
    }

    /**
     * {@code : <good>} when the whole and every window are within the limit, {@code : <windowsOff>} when the whole is
     * but some windows are not, else {@code : <bad>}.
     */
    private static String judge(RateError r, String good, String windowsOff, String bad) {
        if (r.windows() == 0) {
            return "";
        }
        if (Math.abs(r.percent().getAsDouble()) > WINDOW_LIMIT_PCT) {
            return ": " + bad;
        }
        return ": " + (r.over() == 0 ? good : windowsOff);
    }

    /** {@code  (61 dropped at the in-flight cap, 12 sent late)} when there were such requests. */
    private String extra() {
        List<String> parts = new ArrayList<>();
        if (dropped > 0) {
            parts.add(dropped + " dropped at the in-flight cap");
        }
        if (late > 0) {
            parts.add(late + " sent late");
        }
        return parts.isEmpty() ? "" : " (" + String.join(", ", parts) + ")";
    }
}
