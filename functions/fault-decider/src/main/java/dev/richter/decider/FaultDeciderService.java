package dev.richter.decider;

import dev.richter.common.metrics.RichterMetrics;
import dev.richter.common.model.LiveLoad;
import dev.richter.common.model.Verdict;
import dev.richter.sizing.Quotas;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * One decision round end to end, with its collaborators behind interfaces: reload the team's rules
 * (the run's own abort policy, when the request carries one, replaces the team's),
 * load module states, read the passive windows, run {@link FaultDecider}, store states and verdicts,
 * set the abort flag when the policy says so, emit {@code Verdict Changed} for every change, record the monitor's
 * heartbeat with the step's live load ({@link AbortFlag#beat}: the heartbeat is read by the workers,
 * {@code dev.richter.common.MonitorHeartbeat}; the live load, the last {@value LiveLoad#SECONDS} complete seconds of the
 * windows this round read, by {@code GET /runs/{runId}}), and answer whether the monitor loop continues.
 *
 * <p>Order of effects: state and verdicts are stored first, then the abort flag is set, then events are emitted: the
 * abort never waits on, or depends on, the event bus. An event the bus refuses is logged and counted
 * ({@code EventsFailed}), and the round goes on. The heartbeat is written last: it says a whole decision was made.
 *
 * <p>Each round writes one EMF line when metrics are enabled ({@link RichterMetrics}, function {@code fault-decider}):
 * {@code Decisions} (Count, 1 per round), {@code VerdictChangesHealthy}, {@code VerdictChangesSuspect},
 * {@code VerdictChangesDamaged} (Count: modules whose verdict changed to that state this round), {@code AbortsSet}
 * (Count, 1 when this round set the abort flag), {@code EventsFailed} (Count, verdict changes the bus refused) and {@code EvidenceToVerdict} (Milliseconds, from the probe round's
 * start, {@code round.observedAtMs}, to this decision; absent for a round without a start time), with
 * {@code runId}, {@code teamId}, {@code runStage}, {@code stepIndex} as properties.
 */
public final class FaultDeciderService {
    private static final Logger LOG = LogManager.getLogger(FaultDeciderService.class);
    private final DecisionRulesRepository rules;
    private final VerdictRepository verdicts;
    private final WindowReader runMetrics;
    private final AbortFlag abortFlag;
    private final VerdictEvents events;
    private final LongSupplier clockMs;
    private final RichterMetrics metrics;
    private final FaultDecider decider = new FaultDecider();
    private final TeamAlarmRepository alarms;

    /**
     * All collaborators injected, metrics not written; {@code clockMs} gives epoch milliseconds (a virtual clock in the
     * bench).
     */
    public FaultDeciderService(DecisionRulesRepository rules, VerdictRepository verdicts, WindowReader runMetrics,
                               AbortFlag abortFlag, VerdictEvents events, LongSupplier clockMs) {
        this(rules, verdicts, runMetrics, abortFlag, events, clockMs, RichterMetrics.disabled());
    }

    /** All collaborators injected, with the metrics each round writes. */
    public FaultDeciderService(DecisionRulesRepository rules, VerdictRepository verdicts, WindowReader runMetrics,
                               AbortFlag abortFlag, VerdictEvents events, LongSupplier clockMs, RichterMetrics metrics) {
        this(rules, verdicts, runMetrics, abortFlag, events, clockMs, metrics, TeamAlarmRepository.NONE);
    }

    /** All collaborators injected, with the team's CloudWatch alarms ({@link TeamAlarmRepository}). */
    public FaultDeciderService(DecisionRulesRepository rules, VerdictRepository verdicts, WindowReader runMetrics,
                               AbortFlag abortFlag, VerdictEvents events, LongSupplier clockMs, RichterMetrics metrics,
                               TeamAlarmRepository alarms) {
        this.alarms = alarms;
        this.metrics = metrics;
        this.rules = rules;
        this.verdicts = verdicts;
        this.runMetrics = runMetrics;
        this.abortFlag = abortFlag;
        this.events = events;
        this.clockMs = clockMs;
    }

    /**
     * Decides one round; exceptions from repositories propagate: the state machine's {@code MonitoringLost} state then
     * sets the abort flag.
     */
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
                withAlarms(req.round().reports(), req.teamId(), now));
        Decision d = decider.decide(in, r, prior, passive);

        verdicts.save(req.runId(), d.modules());
        boolean aborted = abortFlag.isAbortRequested(req.runId());
        boolean abortSet = false;
        if (!aborted && d.abortRequested()) {
            abortFlag.requestAbort(req.runId(), d.abortReason());
            aborted = true;
            abortSet = true;
        }
        Map<Verdict.State, Integer> changesTo = new EnumMap<>(Verdict.State.class);
        for (Verdict.State state : Verdict.State.values()) {
            changesTo.put(state, 0);
        }
        int eventsFailed = 0;
        for (ModuleDecision m : d.modules()) {
            if (m.changed()) {
                changesTo.merge(m.verdict().state(), 1, Integer::sum);
                try {
                    events.verdictChanged(detail(req, m));
                } catch (RuntimeException busFailed) {
                    // the decision and the abort never depend on the bus: the lost event is logged and counted
                    eventsFailed++;
                    LOG.error("run {}: Verdict Changed for {} ({}) not published: {}", req.runId(), m.verdict().module(),
                            m.verdict().state(), busFailed.toString());
                }
            }
        }
        PassiveEvidence.Summary recent = passive.lastSeconds(now, LiveLoad.SECONDS);
        abortFlag.beat(req.runId(), clockMs.getAsLong(), new LiveLoad(req.stage(), req.stepIndex(), now, recent.seconds(),
                recent.requests(), recent.errors(), recent.p99Ms()));
        RichterMetrics.Emission e = metrics.emission()
                .count("Decisions", 1)
                .count("AbortsSet", abortSet ? 1 : 0)
                .count("EventsFailed", eventsFailed)
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

    /** Report kind of a team's CloudWatch alarm in a round. */
    static final String CLOUDWATCH_ALARM_KIND = "cloudwatch-alarm";

    /**
     * The round's reports with the team's CloudWatch alarms of the round's modules ({@link TeamAlarmRepository}): one
     * {@value #CLOUDWATCH_ALARM_KIND} report per module with an alarm stored, not ok with the alarms in {@code ALARM} as
     * {@code failingComponents} and {@code alert:<name>} = their start, ok when none is. An alarm store that cannot be
     * read adds one missing-evidence report per module: the round goes on.
     */
    List<dev.richter.common.model.HealthReport> withAlarms(List<dev.richter.common.model.HealthReport> reports, String teamId,
                                                             long nowMs) {
        java.util.Set<String> modules = new java.util.TreeSet<>();
        reports.forEach(r -> modules.add(r.module()));
        List<TeamAlarm> team;
        List<dev.richter.common.model.HealthReport> out = new java.util.ArrayList<>(reports);
        try {
            team = alarms.alarms(teamId);
        } catch (RuntimeException e) {
            LOG.warn("alarms of team {} not read: {}", teamId, e.toString());
            if (alarms != TeamAlarmRepository.NONE) {
                for (String m : modules) {
                    out.add(new dev.richter.common.model.HealthReport(m, CLOUDWATCH_ALARM_KIND, false, "UNREADABLE", List.of(), 0,
                            "CloudWatch alarms not read: " + e.getMessage(), Map.of(), nowMs,
                            dev.richter.common.model.HealthReport.Evidence.MONITORING, List.of()));
                }
            }
            return out;
        }
        Map<String, Map<String, Double>> firing = new java.util.TreeMap<>();
        java.util.Set<String> seen = new java.util.TreeSet<>();
        for (TeamAlarm a : team) {
            if (!modules.contains(a.module())) continue;
            seen.add(a.module());
            if (a.state().equals("ALARM")) {
                firing.computeIfAbsent(a.module(), k -> new java.util.TreeMap<>()).put("alert:" + a.alarmName(), (double) a.sinceMs());
            }
        }
        for (String m : seen) {
            Map<String, Double> f = firing.getOrDefault(m, Map.of());
            List<String> names = f.keySet().stream().map(k -> k.substring("alert:".length())).toList();
            out.add(new dev.richter.common.model.HealthReport(m, CLOUDWATCH_ALARM_KIND, f.isEmpty(), f.isEmpty() ? "OK" : "ALARM",
                    names, 0, f.isEmpty() ? "" : "CloudWatch alarm" + (names.size() == 1 ? " " : "s ") + String.join(", ", names)
                    + " in ALARM", f, nowMs));
        }
        return out;
    }

    /**
     * The wait before the next round, ms: {@link Quotas#MONITOR_ALERT_WAIT_MS} while anything is amiss (a module not
     * HEALTHY, a failed probe, a resource breach, failing passive evidence, a business metric past its expectation or
     * a firing alert of the team), so that a fault that is starting is confirmed or cleared sooner: a business metric
     * needs {@code businessMetricSuspectRounds} rounds in a row, 1 s apart once the first is seen;
     * {@link Quotas#MONITOR_WAIT_MS} otherwise.
     */
    static long nextWaitMs(Decision d) {
        boolean alert = d.modules().stream().anyMatch(m -> m.verdict().state() != Verdict.State.HEALTHY
                || !m.evidence().failingKinds().isEmpty() || !m.evidence().breaches().isEmpty()
                || m.evidence().consecutiveFailures() > 0
                || m.evidence().teamEvidence() != null && (!m.evidence().teamEvidence().alerts().isEmpty()
                        || m.evidence().teamEvidence().metrics().stream().anyMatch(r -> r.breachRounds() > 0)));
        return alert ? Quotas.MONITOR_ALERT_WAIT_MS : Quotas.MONITOR_WAIT_MS;
    }

    /** {@code HEALTHY} → {@code Healthy}. */
    private static String stateWord(Verdict.State state) {
        return state.name().charAt(0) + state.name().substring(1).toLowerCase(Locale.ROOT);
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
