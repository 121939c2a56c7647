package dev.richter.probe;

import com.amazonaws.services.lambda.runtime.Context;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.RunLogContext;
import dev.richter.common.metrics.RichterMetrics;
import dev.richter.common.model.HealthReport;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Lambda entry of the monitor loop's probe task: {@link ProbeRound} in, {@link ProbeRoundResult} out.
 * The prober (HTTP client, gRPC channels, bulkheads) is built once per container.
 *
 * <p>Each round writes one EMF line ({@link RichterMetrics}, function {@code probe}): {@code ProbeRoundDuration}
 * (Milliseconds, from the round's start to its last report), {@code FailedProbes} (Count, reports of module evidence
 * that failed), {@code FailedProbes<Kind>} per probe kind in the round (e.g. {@code FailedProbesHttp},
 * {@code FailedProbesTcp}; Count, 0 when all of that kind passed) and {@code MissingEvidence} (Count, reports whose
 * monitoring path failed), with the run's {@code runId}, {@code teamId}, {@code runStage}, {@code stepIndex} as
 * properties. Log lines of the round carry the same fields ({@link RunLogContext}).
 */
public final class ProbeHandler extends JsonStreamHandler<ProbeRound, ProbeRoundResult> {
    /** The container's prober, built and warmed up when the Lambda constructor first runs (lazy holder). */
    private static final class SharedProber {
        static final Prober DEFAULT = warmed();

        private static Prober warmed() {
            Probes probes = new Probes();
            probes.warmUp();
            return new Prober(probes);
        }
    }

    private final Prober prober;
    private final RichterMetrics metrics;

    /** For Lambda: the container's shared prober. */
    public ProbeHandler() {
        this(SharedProber.DEFAULT);
    }

    /** For tests: the given prober, metrics of function {@code probe}. */
    public ProbeHandler(Prober prober) {
        super(ProbeRound.class);
        this.prober = prober;
        this.metrics = RichterMetrics.forFunction("probe");
    }

    @Override
    protected ProbeRoundResult handle(ProbeRound input, Context context) {
        try (RunLogContext ignored = RunLogContext.open(input.runId(), input.teamId(), input.stage(), input.stepIndex())) {
            long t0 = System.nanoTime();
            ProbeRoundResult result = prober.run(input);
            emit(input, result, (System.nanoTime() - t0) / 1e6);
            return result;
        }
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
