package dev.richter.decider;

import dev.richter.common.model.HealthReport;
import dev.richter.common.model.Verdict;
import dev.richter.common.model.Verdict.State;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The team's own alerts and business metrics as evidence (DESIGN.md §4 "The team's own evidence", rules
 * {@link TeamEvidenceRules}): applied to a module after its probe rules, it can only make the verdict worse.
 *
 * <p>Input: the module's reports of kinds {@code alertmanager} and {@code cloudwatch-alarm} (ok, or firing with the
 * alert names as {@code failingComponents} and {@code alert:<name>} = start ms) and {@code promql} and
 * {@code cloudwatch-metric} ({@code business:<name>} = value,
 * {@code business:<name>:min|max|baselineMinRatio|baselineMaxRatio|loadProportional} = its expectation), as the probe
 * writes them. A report that failed as monitoring evidence is missing evidence: named in the verdict, never against the
 * module, and the metric's count is held.
 *
 * <p>A metric's baseline is the median of its pre-test values past the settle time (a {@code rate(...[15s])} still
 * holds the seconds before the pre-test's load in its first seconds); with {@code loadProportional} it is scaled by the
 * load's achieved rate now over the median rate of those pre-test rounds (the load driver's windows). Neither the
 * pre-test nor the warm-up (which follows it, after the dynamic gate) is judged against the baseline.
 */
public final class TeamEvidence {
    /** Rule name of a verdict made by a firing alert. */
    public static final String ALERT_RULE = "alert-firing";
    /** Rule name of a verdict made by a business metric past its expectation. */
    public static final String METRIC_RULE = "business-metric";
    /** Report kinds this class judges (the probe's {@code ProbeTarget.PROMQL} and {@code ALERTMANAGER}). */
    static final Set<String> KINDS = Set.of("promql", "alertmanager", "cloudwatch-metric",
            FaultDeciderService.CLOUDWATCH_ALARM_KIND);
    /** Kinds whose reports carry firing alerts (the rest carry business metrics). */
    private static final Set<String> ALERT_KINDS = Set.of("alertmanager", FaultDeciderService.CLOUDWATCH_ALARM_KIND);
    private static final String BUSINESS = "business:";
    private static final String ALERT = "alert:";
    private static final List<String> EXPECTATION_KEYS =
            List.of(":min", ":max", ":baselineMinRatio", ":baselineMaxRatio", ":loadProportional");

    private TeamEvidence() {}

    /** True for a report of the team's own evidence sources. */
    static boolean isTeamEvidence(HealthReport r) {
        return KINDS.contains(r.kind());
    }

    /**
     * The module's decision with its team evidence applied.
     *
     * @param d           the decision of the module's probe rules (its {@code next} carries the team evidence state)
     * @param reports     the module's team-evidence reports of the round (may be empty)
     * @param core        whether the module is a core module of the run
     * @param achievedQps the load's achieved rate over the passive window, requests per second; NaN when unknown
     */
    static ModuleDecision apply(ModuleDecision d, List<HealthReport> reports, boolean core, double achievedQps,
                                DecisionRules rules, DecisionInput in) {
        TeamEvidenceRules tr = rules.teamEvidence();
        TeamEvidenceState st = d.next().teamEvidence();
        long now = in.nowMs();
        if (!st.stepKey().equals(in.stepKey())) {
            st = new TeamEvidenceState(in.stepKey(), now, st.metrics());
        }
        boolean settling = now - st.stepStartedAtMs() < tr.businessMetricSettleMs();
        boolean preTest = in.stage().equals(FaultDecider.PRE_TEST_STAGE);
        boolean judged = !FaultDecider.buildsBaselines(in.stage());

        List<String> missing = new ArrayList<>();
        Map<String, Long> firing = new TreeMap<>();
        Map<String, TeamEvidenceState.Metric> metrics = new TreeMap<>(st.metrics());
        List<TeamEvidenceRound.MetricReading> readings = new ArrayList<>();
        for (HealthReport r : reports) {
            if (r.missingEvidence()) {
                missing.add(r.kind() + ": " + (r.detail().isBlank() ? r.status() : r.detail()));
                continue;
            }
            if (ALERT_KINDS.contains(r.kind())) {
                if (!r.ok()) {
                    for (String name : r.failingComponents()) {
                        firing.merge(name, r.metrics().getOrDefault(ALERT + name, (double) now).longValue(), Math::min);
                    }
                }
                continue;
            }
            for (var e : values(r.metrics()).entrySet()) {
                String name = e.getKey();
                double v = e.getValue();
                TeamEvidenceState.Metric m = metrics.getOrDefault(name, TeamEvidenceState.Metric.empty());
                Map<String, Double> x = r.metrics();
                String k = BUSINESS + name;
                Double min = x.get(k + ":min");
                Double max = x.get(k + ":max");
                Double lowRatio = x.get(k + ":baselineMinRatio");
                Double highRatio = x.get(k + ":baselineMaxRatio");
                boolean proportional = x.getOrDefault(k + ":loadProportional", 0.0) >= 1;
                boolean wantsBaseline = lowRatio != null || highRatio != null;
                Double expected = null;
                if (wantsBaseline && judged && m.baseline().values().size() >= tr.minBaselineSamples()) {
                    double base = m.baseline().median();
                    double baseQps = m.baselineQps().values().isEmpty() ? Double.NaN : m.baselineQps().median();
                    double scale = proportional ? achievedQps / baseQps : 1;
                    expected = Double.isFinite(scale) && scale > 0 ? base * scale : null;
                }
                Double low = max(min, expected == null || lowRatio == null ? null : expected * lowRatio);
                Double high = minOf(max, expected == null || highRatio == null ? null : expected * highRatio);
                String judgement;
                int rounds = m.breachRounds();
                if (settling) {
                    judgement = "settling";
                } else if (wantsBaseline && expected == null && min == null && max == null) {
                    judgement = "no-baseline";
                } else {
                    boolean breach = (low != null && v < low) || (high != null && v > high);
                    judgement = breach ? "breach" : "ok";
                    rounds = breach ? rounds + 1 : 0;
                }
                SlidingWindow baseline = m.baseline();
                SlidingWindow baselineQps = m.baselineQps();
                if (preTest && !settling && Double.isFinite(achievedQps)) {
                    baseline = baseline.add(v);
                    baselineQps = baselineQps.add(achievedQps);
                }
                metrics.put(name, new TeamEvidenceState.Metric(baseline, baselineQps, rounds));
                readings.add(new TeamEvidenceRound.MetricReading(name, v, expected, low, high, judgement, rounds));
            }
        }

        State own = State.HEALTHY;
        String rule = "";
        String reason = "";
        if (!firing.isEmpty()) {
            own = core ? State.DAMAGED : State.SUSPECT;
            rule = ALERT_RULE;
            reason = "alert" + (firing.size() == 1 ? " " : "s ") + String.join(", ", firing.keySet()) + " firing"
                    + (core ? " on core module " : " on ") + d.verdict().module();
        }
        TeamEvidenceRound.MetricReading worst = readings.stream().filter(m -> m.breachRounds() > 0)
                .max(java.util.Comparator.comparingInt(TeamEvidenceRound.MetricReading::breachRounds)).orElse(null);
        if (worst != null && worst.breachRounds() >= tr.businessMetricSuspectRounds()) {
            State byMetric = worst.breachRounds() >= tr.businessMetricDamagedRounds() ? State.DAMAGED : State.SUSPECT;
            if (byMetric.compareTo(own) > 0) {
                own = byMetric;
                rule = METRIC_RULE;
                reason = metricText(worst);
            }
        }
        State probes = d.verdict().state();
        State next = own.compareTo(probes) > 0 ? own : probes;
        String nextRule = own.compareTo(probes) > 0 ? rule : d.evidence().rule();
        String nextReason = own.compareTo(probes) > 0 ? reason : d.verdict().reason();
        if (own.compareTo(probes) <= 0 && !reason.isEmpty() && own != State.HEALTHY) {
            nextReason = nextReason + "; " + reason;
        }
        if (!missing.isEmpty()) nextReason = nextReason + "; missing evidence: " + String.join("; ", missing);

        List<String> allMissing = new ArrayList<>(d.evidence().missingEvidence());
        allMissing.addAll(missing);
        List<TeamEvidenceRound.FiringAlert> alerts = firing.entrySet().stream()
                .map(e -> new TeamEvidenceRound.FiringAlert(e.getKey(), e.getValue())).toList();
        // a round with an alert firing or a metric past its expectation is no success towards recovery
        boolean troubled = !firing.isEmpty() || readings.stream().anyMatch(m -> m.judgement().equals("breach"));
        VerdictEvidence ev = d.evidence();
        VerdictEvidence nextEvidence = new VerdictEvidence(nextRule, ev.voteFraction(), ev.failingKinds(), ev.breaches(),
                ev.consecutiveFailures(), troubled ? 0 : ev.consecutiveSuccesses(), ev.reports(), allMissing, ev.saturation(),
                new TeamEvidenceRound(alerts, readings));
        ModuleState s = d.next();
        long since = next == d.previous() && s.verdictSinceMs() > 0 ? s.verdictSinceMs() : now;
        ModuleState nextState = new ModuleState(s.module(), next, since, s.consecutiveFailures(),
                troubled ? 0 : s.consecutiveSuccesses(),
                s.lastFailureAtMs(), s.voteRounds(), s.stepKey(), s.connections(), s.heap(), s.p99BaselineMs(), s.heapTrend(),
                s.saturation(), new TeamEvidenceState(st.stepKey(), st.stepStartedAtMs(), metrics), s.breakerFallbacks());
        return new ModuleDecision(new Verdict(d.verdict().module(), next, nextReason, now), d.previous(), nextState, nextEvidence);
    }

    /** E.g. {@code "business metric orders-per-second 0.00 below 2.45 (0.5 of its baseline 4.90) for 3 rounds"}. */
    private static String metricText(TeamEvidenceRound.MetricReading m) {
        boolean low = m.low() != null && m.value() < m.low();
        boolean high = m.high() != null && m.value() > m.high();
        if (!low && !high) {
            // a round that held the count (settling, no baseline): its value is past no limit of its own
            return String.format(Locale.ROOT, "business metric %s past its expectation for %d rounds (now %.4g, %s)", m.name(),
                    m.breachRounds(), m.value(), m.judgement());
        }
        return String.format(Locale.ROOT, "business metric %s %.4g %s %.4g%s for %d rounds", m.name(), m.value(),
                low ? "below" : "above", low ? m.low() : m.high(),
                m.expected() == null ? "" : String.format(Locale.ROOT, " (baseline %.4g)", m.expected()), m.breachRounds());
    }

    /** {@code business:<name>} → value, the expectation keys left out. */
    private static Map<String, Double> values(Map<String, Double> metrics) {
        Map<String, Double> out = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        metrics.forEach((k, v) -> {
            if (!k.startsWith(BUSINESS) || EXPECTATION_KEYS.stream().anyMatch(k::endsWith) || v == null) return;
            if (seen.add(k)) out.put(k.substring(BUSINESS.length()), v);
        });
        return new TreeMap<>(out);
    }

    private static Double max(Double a, Double b) {
        return a == null ? b : b == null ? a : Double.valueOf(Math.max(a, b));
    }

    private static Double minOf(Double a, Double b) {
        return a == null ? b : b == null ? a : Double.valueOf(Math.min(a, b));
    }
}
