package dev.richter.decider;

import dev.richter.common.model.HealthReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code saturation} signals of one module in one round (DESIGN.md §4): each is a {@link Breach} with rule
 * {@value #RULE} when its value is past its {@link Thresholds} limit. Pure; the caller keeps the returned state.
 *
 * <table>
 *   <caption>Signals (metric names as in the probe's scrape, {@code ResourceMetricNames})</caption>
 *   <tr><th>metric</th><th>past its threshold when</th></tr>
 *   <tr><td>{@code hostCpuRatio}</td><td>&gt; {@code hostCpuMaxRatio}</td></tr>
 *   <tr><td>{@code cpuRatio} (process)</td><td>&gt; {@code cpuMaxRatio}</td></tr>
 *   <tr><td>{@code connectionsInUseRatio}</td><td>&gt; {@code connectionsInUseMaxRatio}</td></tr>
 *   <tr><td>{@code connectionsPending}</td><td>&gt; {@code connectionsPendingMax}</td></tr>
 *   <tr><td>{@code threadPoolInUseRatio}</td><td>&gt; {@code threadPoolInUseMaxRatio}</td></tr>
 *   <tr><td>{@code executorQueuedTasks}</td><td>&gt; {@code executorQueuedTasksMax}</td></tr>
 *   <tr><td>{@code gcTimeFraction}: rise of the {@code gcPauseSeconds} counter / wall seconds since the previous
 *       scrape that had it</td><td>&gt; {@code gcTimeMaxFraction}</td></tr>
 *   <tr><td>{@code healthLatencyMs}: the slowest answered HTTP or gRPC health probe of the round, outside the
 *       pre-test and the warm-up</td><td>&gt; max(median pre-test latency × {@code healthLatencyOverBaselineRatio},
 *       {@code healthLatencyMinMs}), once the baseline holds {@code minSamples} rounds</td></tr>
 * </table>
 *
 * <p>A signal whose source was not read this round (series absent, scrape failed, no baseline yet, a counter that
 * went down after a restart) is missing evidence: it neither counts as saturated nor as normal. The consecutive
 * count rises in a round with a signal past its threshold, restarts at 0 in a round where some signal was read and
 * none was past, and is held in a round where none could be read. A health probe that got no answer (timeout,
 * refused) has no latency to judge: the failure rules judge it.
 */
public final class Saturation {
    /** Rule name of the signals and of the verdict they give. */
    public static final String RULE = "saturation";

    private Saturation() {}

    /**
     * The round's saturation.
     *
     * @param signals the signals past their thresholds this round
     * @param read    true when at least one signal could be read
     * @param next    the state for the next round ({@code rounds} already counted)
     */
    public record SaturatedRound(List<Breach> signals, boolean read, SaturationState next) {
        public SaturatedRound {
            signals = List.copyOf(signals);
        }

        /** True when the signals held for the rule's consecutive rounds. */
        public boolean sustained(Thresholds th) {
            return !signals.isEmpty() && next.rounds() >= th.saturationConsecutiveRounds();
        }
    }

    /**
     * Judges one module's round.
     *
     * @param reports the module's reports of the round (failed monitoring reports carry no metrics and count as unread)
     * @param s       the module's saturation state after the previous round
     * @param stage   the round's stage: in the pre-test health latencies join the baseline, in the warm-up they are
     *                neither kept nor judged ({@link FaultDecider#buildsBaselines}), later they are judged
     * @param th      thresholds in force
     */
    public static SaturatedRound evaluate(List<HealthReport> reports, SaturationState s, String stage, Thresholds th) {
        List<Breach> out = new ArrayList<>();
        boolean read = false;
        double gcCounter = s.gcPauseSeconds();
        long gcAt = s.gcObservedAtMs();
        double slowestHealthMs = -1;
        for (HealthReport r : reports) {
            Map<String, Double> m = r.metrics();
            read |= check(out, m, "hostCpuRatio", th.hostCpuMaxRatio());
            read |= check(out, m, "cpuRatio", th.cpuMaxRatio());
            read |= check(out, m, "connectionsInUseRatio", th.connectionsInUseMaxRatio());
            read |= check(out, m, "connectionsPending", th.connectionsPendingMax());
            read |= check(out, m, "threadPoolInUseRatio", th.threadPoolInUseMaxRatio());
            read |= check(out, m, "executorQueuedTasks", th.executorQueuedTasksMax());
            Double gc = m.get("gcPauseSeconds");
            if (gc != null && Double.isFinite(gc) && gc >= 0) {
                if (gcCounter >= 0 && gc >= gcCounter && r.observedAtMs() > gcAt) {
                    double fraction = (gc - gcCounter) / ((r.observedAtMs() - gcAt) / 1000.0);
                    read = true;
                    if (fraction > th.gcTimeMaxFraction()) out.add(new Breach("gcTimeFraction", fraction, th.gcTimeMaxFraction(), RULE));
                }
                gcCounter = gc;
                gcAt = r.observedAtMs();
            }
            boolean health = r.kind().equals("http") || r.kind().equals("grpc");
            if (health && !r.missingEvidence() && !FaultDecider.NO_ANSWER.contains(r.status())) {
                slowestHealthMs = Math.max(slowestHealthMs, r.latencyMs());
            }
        }
        SlidingWindow baseline = s.healthLatencyBaselineMs();
        if (slowestHealthMs >= 0) {
            if (stage.equals(FaultDecider.PRE_TEST_STAGE)) {
                baseline = baseline.add(slowestHealthMs);
            } else if (!FaultDecider.buildsBaselines(stage) && baseline.values().size() >= th.minSamples()) {
                double limit = Math.max(baseline.median() * th.healthLatencyOverBaselineRatio(), th.healthLatencyMinMs());
                read = true;
                if (slowestHealthMs > limit) out.add(new Breach("healthLatencyMs", slowestHealthMs, limit, RULE));
            }
        }
        int rounds = !out.isEmpty() ? s.rounds() + 1 : read ? 0 : s.rounds();
        return new SaturatedRound(out, read, new SaturationState(rounds, gcCounter, gcAt, baseline));
    }

    private static boolean check(List<Breach> out, Map<String, Double> m, String metric, double limit) {
        Double v = m.get(metric);
        if (v == null || !Double.isFinite(v)) return false;
        if (v > limit) out.add(new Breach(metric, v, limit, RULE));
        return true;
    }
}
