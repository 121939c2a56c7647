package dev.richter.probe;

import com.amazonaws.services.lambda.runtime.Context;
import dev.richter.common.JsonStreamHandler;

/**
 * Lambda entry of the monitor loop's probe task: {@link ProbeRound} in, {@link ProbeRoundResult} out.
 * The prober (HTTP client, gRPC channels, bulkheads) is built once per container.
 */
public final class ProbeHandler extends JsonStreamHandler<ProbeRound, ProbeRoundResult> {
    private static final class Holder {
        static final Prober DEFAULT = warmed();

        private static Prober warmed() {
            Probes probes = new Probes();
            probes.warmUp();
            return new Prober(probes);
        }
    }

    private final Prober prober;

    /** For Lambda: the container's shared prober. */
    public ProbeHandler() {
        this(Holder.DEFAULT);
    }

    /** For tests: the given prober. */
    public ProbeHandler(Prober prober) {
        super(ProbeRound.class);
        this.prober = prober;
    }

    @Override
    protected ProbeRoundResult handle(ProbeRound input, Context context) {
        return prober.run(input);
    }
}
