package dev.richter.decider;

import dev.richter.common.metrics.RichterMetrics;
import dev.richter.common.model.Verdict;
import dev.richter.common.sizing.Quotas;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * One decision round end to end, with its collaborators behind interfaces: reload the team's rules
 * (the run's own abort policy, when the request carries one, replaces the team's),
 * load module states, read the passive windows, run {@link FaultDecider}, store states and verdicts,
 * emit {@code Verdict Changed} for every change, set the abort flag when the policy says so, and answer
 * whether the monitor loop continues.
 *
 * <p>Order of effects: state and verdicts are stored before events are emitted and before the abort
 * flag is set, so a retried invocation (Step Functions Retry) sees the new state and does not emit
 * the same change twice.
 *
 * <p>Each round writes one EMF line when metrics are enabled ({@link RichterMetrics}, function {@code fault-decider}):
 * {@code Decisions} (Count, 1 per round), {@code VerdictChangesHealthy}, {@code VerdictChangesSuspect},
 * {@code VerdictChangesDamaged} (Count: modules whose verdict changed to that state this round), {@code AbortsSet}
 * (Count, 1 when this round set the abort flag) and {@code EvidenceToVerdict} (Milliseconds, from the probe round's
 * start, {@code round.observedAtMs}, to this decision; absent for a round without a start time), with
 * {@code runId}, {@code teamId}, {@code runStage}, {@code stepIndex} as properties.
 */
public final class FaultDeciderService {
    private final DecisionRulesRepository rules;
    private final VerdictRepository verdicts;
    private final RunMetricsRepository runMetrics;
    private final AbortFlag abortFlag;
    private final VerdictEvents events;
    private final LongSupplier clockMs;
    private final RichterMetrics metrics;
    private final FaultDecider decider = new FaultDecider();

    /**
     * All collaborators injected, metrics not written; {@code clockMs} gives epoch milliseconds (a virtual clock in the
     * bench).
     */
    public FaultDeciderService(DecisionRulesRepository rules, VerdictRepository verdicts, RunMetricsRepository runMetrics,
                               AbortFlag abortFlag, VerdictEvents events, LongSupplier clockMs) {
        this(rules, verdicts, runMetrics, abortFlag, events, clockMs, RichterMetrics.disabled());
    }

    /** All collaborators injected, with the metrics each round writes. */
    public FaultDeciderService(DecisionRulesRepository rules, VerdictRepository verdicts, RunMetricsRepository runMetrics,
                               AbortFlag abortFlag, VerdictEvents events, LongSupplier clockMs, RichterMetrics metrics) {
        this.metrics = metrics;
        this.rules = rules;
        this.verdicts = verdicts;
        this.runMetrics = runMetrics;
        this.abortFlag = abortFlag;
        this.events = events;
        this.clockMs = clockMs;
    }

    /** Decides one round; exceptions from repositories propagate (the state machine retries). */
    public DecideResult decide(DecideRequest req) {
        long now = clockMs.getAsLong();
        DecisionRules teamRules = rules.load(req.teamId());
        DecisionRules r = req.runAbortPolicy().map(teamRules::withAbortPolicy).orElse(teamRules);
        int lookBackSeconds = Math.max(r.passiveWindowSeconds(),
                r.abortPolicy().passiveSecondsNeeded() + PassiveEvidence.MAX_FLUSH_LAG_S);
        long nowSec = Math.floorDiv(now, 1000);
        PassiveEvidence passive = PassiveEvidence.fromWindows(
                runMetrics.windows(req.runId(), req.stage(), req.stepIndex(), nowSec - lookBackSeconds, nowSec - 1));
        Map<String, ModuleState> prior = verdicts.loadStates(req.runId());
        DecisionInput in = new DecisionInput(req.runId(), req.stage(), req.stepIndex(), req.coreModules(), now,
                req.round().reports());
        Decision d = decider.decide(in, r, prior, passive);

        verdicts.save(req.runId(), d.modules());
        Map<Verdict.State, Integer> changesTo = new java.util.EnumMap<>(Verdict.State.class);
        for (Verdict.State state : Verdict.State.values()) {
            changesTo.put(state, 0);
        }
        for (ModuleDecision m : d.modules()) {
            if (m.changed()) {
                events.verdictChanged(detail(req, m));
                changesTo.merge(m.verdict().state(), 1, Integer::sum);
            }
        }
        boolean aborted = abortFlag.isAbortRequested(req.runId());
        boolean abortSet = false;
        if (!aborted && d.abortRequested()) {
            abortFlag.requestAbort(req.runId(), d.abortReason());
            aborted = true;
            abortSet = true;
        }
        RichterMetrics.Emission e = metrics.emission()
                .count("Decisions", 1)
                .count("AbortsSet", abortSet ? 1 : 0)
                .property("runId", req.runId())
                .property("teamId", req.teamId())
                .property("runStage", req.stage())
                .property("stepIndex", req.stepIndex());
        changesTo.forEach((state, n) -> e.count("VerdictChanges" + stateWord(state), n));
        if (req.round().observedAtMs() > 0) {
            e.milliseconds("EvidenceToVerdict", Math.max(0, clockMs.getAsLong() - req.round().observedAtMs()));
        }
        e.flush();
        boolean cont = now < req.stepEndsAtMs() && !aborted;
        List<Verdict> vs = FaultDecider.verdicts(d);
        return new DecideResult(cont, aborted, vs, (int) (nextWaitMs(d) / 1000));
    }

    /**
     * The wait before the next round, ms: {@link Quotas#MONITOR_ALERT_WAIT_MS} while anything is amiss (a module not
     * HEALTHY, a failed probe, a resource breach, failing passive evidence), so that a fault that is starting is
     * confirmed or cleared sooner; {@link Quotas#MONITOR_WAIT_MS} otherwise.
     */
    static long nextWaitMs(Decision d) {
        boolean alert = d.modules().stream().anyMatch(m -> m.verdict().state() != Verdict.State.HEALTHY
                || !m.evidence().failingKinds().isEmpty() || !m.evidence().breaches().isEmpty()
                || m.evidence().consecutiveFailures() > 0);
        return alert ? Quotas.MONITOR_ALERT_WAIT_MS : Quotas.MONITOR_WAIT_MS;
    }

    /** {@code HEALTHY} → {@code Healthy}. */
    private static String stateWord(Verdict.State state) {
        return state.name().charAt(0) + state.name().substring(1).toLowerCase(java.util.Locale.ROOT);
    }

    private static Map<String, Object> detail(DecideRequest req, ModuleDecision m) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("runId", req.runId());
        d.put("teamId", req.teamId());
        d.put("stage", req.stage());
        d.put("stepIndex", req.stepIndex());
        d.put("module", m.verdict().module());
        d.put("from", m.previous().name());
        d.put("to", m.verdict().state().name());
        d.put("reason", m.verdict().reason());
        d.put("rule", m.evidence().rule());
        d.put("atMs", m.verdict().atMs());
        return d;
    }
}
