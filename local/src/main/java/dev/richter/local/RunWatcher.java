package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.report.StepLabels;
import java.io.IOException;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Polls {@code GET /runs/{runId}} every second until the run's report is written, printing one line per change: a
 * change of the status line's state (step, verdicts, abort, outcome) at once, a change of its live figures only
 * {@value #LIVE_EVERY_MS} ms after the last line printed.
 *
 * <p>Each figure has one source: a finished step's line ({@code done pre-test}, {@code done step 1}...) prints the
 * step's merged worker results ({@code steps[]}, the {@code StepFigures} the report uses), once, when every worker
 * of the step has reported or the run has moved past it; the live part of the
 * status line ({@code current.live}: the fault decider's last read of the load driver's per-second windows, its
 * last seconds' rate, error rate and p99) is printed only while its step has no merged results yet, so a live figure never follows, or contradicts, a step's done line. Steps are named as the report names
 * them ({@link StepLabels}: the pre-test by name, formal steps from 1); the API's {@code stepIndex} stays 0-based.
 */
public final class RunWatcher {
    private RunWatcher() {}

    /** The poll period, milliseconds: the report is seen written within it. */
    static final long POLL_MS = 1_000;
    /** The least time between two status lines that differ only in their live figures, milliseconds. */
    static final long LIVE_EVERY_MS = 4_000;

    /**
     * @param api       the API client
     * @param runId     the run
     * @param timeoutMs give up after this long
     * @param out       progress lines
     * @return the last {@code GET /runs/{runId}} body
     * @throws IllegalStateException when the API answers other than 200, or the run does not finish in time
     */
    public static JsonNode watch(ApiClient api, String runId, long timeoutMs, Consumer<String> out)
            throws IOException, InterruptedException {
        long t0 = System.currentTimeMillis();
        String last = "";
        String lastState = "";
        long lastPrintedMs = 0;
        Set<String> done = new HashSet<>();
        while (System.currentTimeMillis() - t0 < timeoutMs) {
            ApiClient.Response r = api.get("/runs/" + runId);
            if (r.status() != 200) {
                throw new IllegalStateException("GET /runs/" + runId + " answered " + r.status() + ": " + r.body());
            }
            JsonNode body = r.json();
            long elapsedS = (System.currentTimeMillis() - t0) / 1000;
            JsonNode cur = body.path("current");
            String running = cur.isMissingNode() || body.path("run").path("status").asText().equals("COMPLETED") ? ""
                    : StepLabels.name(cur.path("stage").asText(), cur.path("stepIndex").asInt());
            for (JsonNode s : body.path("steps")) {
                String name = StepLabels.name(s.path("stage").asText(), s.path("stepIndex").asInt());
                if ((allWorkersReported(s) || !name.equals(running)) && done.add(name)) {
                    out.accept(doneLine(s, name, elapsedS));
                }
            }
            String line = statusLine(body, done);
            String state = statusLine(withoutLive(body), done);
            long now = System.currentTimeMillis();
            if (!state.equals(lastState) || !line.equals(last) && now - lastPrintedMs >= LIVE_EVERY_MS) {
                out.accept(String.format(Locale.ROOT, "[%4ds] %s", elapsedS, line));
                last = line;
                lastState = state;
                lastPrintedMs = now;
            }
            if (body.path("reportReady").asBoolean(false) || body.path("run").path("status").asText().equals("FAILED")) {
                return body;
            }
            Thread.sleep(POLL_MS);
        }
        throw new IllegalStateException("run " + runId + " did not finish within " + timeoutMs / 1000 + " s");
    }

    /** {@code body} without the running step's live figures ({@code current.live}). */
    private static JsonNode withoutLive(JsonNode body) {
        if (!body.path("current").isObject()) {
            return body;
        }
        com.fasterxml.jackson.databind.node.ObjectNode copy = body.deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) copy.get("current")).remove("live");
        return copy;
    }

    /** A finished step from its merged results ({@code steps[]} of {@code GET /runs/{runId}}). */
    static String doneLine(JsonNode s, String name, long elapsedS) {
        return String.format(Locale.ROOT, "[%4ds] done %-8s  target %6.1f QPS  achieved %7.2f QPS  sent %5d  errors %3d  p50 %s  p99 %s  workers %s",
                elapsedS, name, s.path("targetQps").asDouble(), s.path("achievedQps").asDouble(), s.path("sent").asLong(),
                s.path("errors").asLong(), ms(s.path("p50Ms")), ms(s.path("p99Ms")), s.path("workers").asText());
    }

    /** True when {@code workers} ({@code reported/expected}) says every worker of the step has reported. */
    static boolean allWorkersReported(JsonNode s) {
        String[] w = s.path("workers").asText("").split("/");
        return w.length == 2 && !w[0].isBlank() && w[0].equals(w[1]);
    }

    /** Run status, the running step's live figures (only while it has no merged results), verdicts, abort, outcome. */
    static String statusLine(JsonNode body, Set<String> done) {
        JsonNode run = body.path("run");
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%-9s %s", run.path("status").asText(),
                body.path("executionStatus").asText("")));
        JsonNode cur = body.path("current");
        if (!cur.isMissingNode() && !run.path("status").asText().equals("COMPLETED")) {
            String name = StepLabels.name(cur.path("stage").asText(), cur.path("stepIndex").asInt());
            if (!done.contains(name)) {
                JsonNode live = cur.path("live");
                String target = cur.path("targetQps").isNumber()
                        ? String.format(Locale.ROOT, " (target %.1f QPS)", cur.path("targetQps").asDouble()) : "";
                if (live.isMissingNode() || live.path("seconds").asInt() == 0) {
                    b.append("  ").append(name).append(" running").append(target).append(": no load figures yet");
                } else {
                    b.append(String.format(Locale.ROOT, "  %s running%s: %.1f QPS over the last %d s, errors %.1f %%, p99 %.1f ms",
                            name, target, live.path("qps").asDouble(), live.path("seconds").asInt(),
                            live.path("errorRatePct").asDouble(), live.path("p99Ms").asDouble()));
                }
            }
        }
        JsonNode verdicts = body.path("verdicts");
        if (verdicts.size() > 0) {
            b.append("  verdicts:");
            verdicts.forEach(v -> b.append(' ').append(v.path("module").asText()).append('=').append(v.path("state").asText()));
        }
        if (run.path("abortRequested").asBoolean(false)) {
            b.append("  ABORT requested: ").append(run.path("abortReason").asText());
        }
        if (!run.path("outcome").asText().isEmpty()) {
            b.append("  outcome ").append(run.path("outcome").asText());
        }
        return b.toString();
    }

    /** {@code 95.5 ms}, or {@code -} when the step recorded no latency (nothing answered). */
    private static String ms(JsonNode v) {
        return v.isNumber() ? String.format(Locale.ROOT, "%7.1f ms", v.asDouble()) : "      - ms";
    }
}
