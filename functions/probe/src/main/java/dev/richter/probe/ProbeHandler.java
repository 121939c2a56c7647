package dev.richter.probe;

import com.amazonaws.services.lambda.runtime.Context;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.SnapStartHooks;
import dev.richter.common.metrics.RichterMetrics;

/**
 * Lambda entry of the monitor loop's probe task: {@link ProbeRound} in, {@link ProbeRoundResult} out, through
 * {@link MeteredProber} (one EMF line per round). The prober (HTTP client, gRPC channels, bulkheads) is built once
 * per container. Log lines of the round carry the run's fields (the base opens them from the {@link ProbeRound}).
 */
public final class ProbeHandler extends JsonStreamHandler<ProbeRound, ProbeRoundResult> {
    /**
     * The container's prober, built and warmed up when the Lambda constructor first runs (lazy holder). Its probes
     * reopen their HTTP clients and gRPC channels after a SnapStart restore ({@link Probes#reopen}).
     */
    private static final class SharedProber {
        static final Probes PROBES = new Probes();
        static final Prober DEFAULT = warmed();

        private static Prober warmed() {
            PROBES.warmUp();
            SnapStartHooks.afterRestore(REOPEN_HOOK, PROBES::reopen);
            return new Prober(PROBES);
        }
    }

    /** The name of the SnapStart hook that reopens the shared prober's connections. */
    static final String REOPEN_HOOK = "probe HTTP clients and gRPC channels";

    private final MeteredProber rounds;

    /** For Lambda: the container's shared prober. */
    public ProbeHandler() {
        this(SharedProber.DEFAULT);
    }

    /** For tests: the given prober, metrics of function {@code probe}. */
    public ProbeHandler(Prober prober) {
        super(ProbeRound.class);
        this.rounds = new MeteredProber(prober, RichterMetrics.forFunction("probe"));
    }

    @Override
    protected ProbeRoundResult handle(ProbeRound input, Context context) {
        return rounds.run(input);
    }
}
