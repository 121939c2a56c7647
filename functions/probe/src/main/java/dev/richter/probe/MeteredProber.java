package dev.richter.probe;

import dev.richter.common.metrics.RichterMetrics;
import dev.richter.common.model.HealthReport;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * One probe round through a {@link Prober}, and its EMF line ({@link RichterMetrics}, function {@code probe}):
 * {@code ProbeRoundDuration} (Milliseconds, from the round's start to its last report), {@code FailedProbes} (Count,
 * reports of module evidence that failed), {@code FailedProbes<Kind>} per probe kind in the round (e.g.
 * {@code FailedProbesHttp}, {@code FailedProbesTcp}; Count, 0 when all of that kind passed) and
 * {@code MissingEvidence} (Count, reports whose monitoring path failed), with the run's {@code runId},
 * {@code teamId}, {@code runStage}, {@code stepIndex} as properties.
 */
public final class MeteredProber {
    private final Prober prober;
    private final RichterMetrics metrics;

    /**
     * @param prober  runs the rounds
     * @param metrics where each round's line goes
     */
    public MeteredProber(Prober prober, RichterMetrics metrics) {
        this.prober = prober;
        this.metrics = metrics;
    }

    /** Runs {@code round} ({@link Prober#run}) and writes its line; returns the round's reports. */
    public ProbeRoundResult run(ProbeRound round) {
        long t0 = System.nanoTime();
        ProbeRoundResult result = prober.run(round);
        emit(round, result, (System.nanoTime() - t0) / 1e6);
        return result;
    }

    private void emit(ProbeRound round, ProbeRoundResult result, double durationMs) {
        Map<String, Long> failedByKind = new TreeMap<>();
        long failed = 0;
        long missing = 0;
        for (HealthReport r : result.reports()) {
            boolean moduleFailure = !r.ok() && r.evidence() == HealthReport.Evidence.MODULE;
            failedByKind.merge(r.kind(), moduleFailure ? 1L : 0L, Long::sum);
            failed += moduleFailure ? 1 : 0;
            missing += r.evidence() == HealthReport.Evidence.MONITORING ? 1 : 0;
        }
        RichterMetrics.Emission e = metrics.emission()
                .milliseconds("ProbeRoundDuration", durationMs)
                .count("FailedProbes", failed)
                .count("MissingEvidence", missing)
                .property("runId", round.runId())
                .property("teamId", round.teamId())
                .property("runStage", round.stage())
                .property("stepIndex", round.stepIndex());
        failedByKind.forEach((kind, n) -> e.count("FailedProbes" + metricWord(kind), n));
        e.flush();
    }

    /** {@code http} → {@code Http}, {@code grpc} → {@code Grpc}: a probe kind as part of a metric name. */
    static String metricWord(String kind) {
        String k = kind == null || kind.isEmpty() ? "Unknown" : kind.replaceAll("[^A-Za-z0-9]", "");
        return k.substring(0, 1).toUpperCase(Locale.ROOT) + k.substring(1).toLowerCase(Locale.ROOT);
    }
}
