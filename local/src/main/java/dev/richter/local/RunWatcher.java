package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Polls {@code GET /runs/{runId}} until the run's report is written, printing one progress line
 * per change: stage, step, target vs achieved QPS, p99 and the latest verdict per module.
 */
public final class RunWatcher {
    private RunWatcher() {}

    /**
     * @param api       the API client
     * @param runId     the run
     * @param timeoutMs give up after this long
     * @param out       progress lines
     * @return the last {@code GET /runs/{runId}} body
     * @throws IllegalStateException when the run does not finish in time
     */
    public static JsonNode watch(ApiClient api, String runId, long timeoutMs, Consumer<String> out)
            throws IOException, InterruptedException {
        long t0 = System.currentTimeMillis();
        String last = "";
        int printedSteps = 0;
        while (System.currentTimeMillis() - t0 < timeoutMs) {
            ApiClient.Response r = api.get("/runs/" + runId);
            if (r.status() != 200) {
                throw new IllegalStateException("GET /runs/" + runId + " answered " + r.status() + ": " + r.body());
            }
            JsonNode body = r.json();
            JsonNode steps = body.path("steps");
            for (int i = printedSteps; i < steps.size(); i++) {
                JsonNode s = steps.get(i);
                out.accept(String.format(Locale.ROOT, "  done  %-8s step %d  target %6.1f QPS  achieved %7.2f QPS  sent %5d  errors %3d  p50 %7.1f ms  p99 %7.1f ms  workers %s",
                        s.path("stage").asText(), s.path("stepIndex").asInt(), s.path("targetQps").asDouble(),
                        s.path("achievedQps").asDouble(), s.path("sent").asLong(), s.path("errors").asLong(),
                        s.path("p50Ms").asDouble(), s.path("p99Ms").asDouble(), s.path("workers").asText()));
            }
            printedSteps = steps.size();
            String line = progressLine(body, (System.currentTimeMillis() - t0) / 1000);
            if (!line.equals(last)) {
                out.accept(line);
                last = line;
            }
            if (body.path("reportReady").asBoolean(false)) {
                return body;
            }
            Thread.sleep(2_000);
        }
        throw new IllegalStateException("run " + runId + " did not finish within " + timeoutMs / 1000 + " s");
    }

    private static String progressLine(JsonNode body, long elapsedS) {
        JsonNode run = body.path("run");
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "[%4ds] %-9s %s", elapsedS,
                run.path("status").asText(), body.path("executionStatus").asText("")));
        JsonNode cur = body.path("current");
        if (!cur.isMissingNode() && !run.path("status").asText().equals("COMPLETED")) {
            long seconds = cur.path("seconds").asLong();
            b.append(String.format(Locale.ROOT, "  stage %s step %d  live %d req in %d s (%.1f QPS)  errors %d",
                    cur.path("stage").asText(), cur.path("stepIndex").asInt(), cur.path("completed").asLong(), seconds,
                    seconds == 0 ? 0.0 : cur.path("completed").asDouble() / seconds, cur.path("errors").asLong()));
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
}
