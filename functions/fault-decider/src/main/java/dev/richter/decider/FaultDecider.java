package dev.richter.decider;

import dev.richter.common.model.HealthReport;
import dev.richter.common.model.Verdict;
import dev.richter.common.model.Verdict.State;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The decision rules of DESIGN.md §4 ({@link DecisionRules}) applied to one probe round: pure, no I/O,
 * no clock of its own. Given the round's reports, the load driver's windows and each module's previous
 * {@link ModuleState}, returns each module's verdict with evidence, the next states, and whether the
 * abort policy fires.
 *
 * <p>Anomaly detection per module and round: static thresholds (heap, CPU, connection ratio, success
 * rate, p99), sliding-window mean ± k·σ (connections in use), EWMA control limit (heap), and percent over
 * the p99 baseline. Dynamic detectors fire only after {@code minSamples} observations and
 * restart when the step ({@code stage#stepIndex}) changes. Passive evidence is decided as the pseudo-module
 * {@value #PASSIVE_MODULE}.
 *
 * <p>Baselines (DESIGN.md §4 "Warm-up"): the pre-test, the run's first load, meets targets its marked traffic has not
 * warmed. So the p99 baseline is the warm-up's last step (it restarts at each warm-up step; the warm-up runs after the
 * dynamic gate, its last step at the first formal step's rate on warm targets), and the pre-test's only when the run
 * has no warm-up. The health-latency and business-metric baselines are the pre-test's. Neither the pre-test's nor the
 * warm-up's rounds are judged against a baseline.
 */
public final class FaultDecider {
    /** Module name under which the load driver's own (passive) evidence gets a verdict. */
    public static final String PASSIVE_MODULE = "load";
    /** Report kind of passive evidence. */
    public static final String PASSIVE_KIND = "passive";
    /** Breach rule of a heap above its threshold and forecast to be full within the exhaustion horizon. */
    public static final String EXHAUSTION = "exhaustion";
    /** Stage whose rounds build the baselines (the p99 baseline only when the run has no warm-up). */
    public static final String PRE_TEST_STAGE = "pre-test";
    /** Stage whose last step's rounds are the p99 baseline when the run has one (after the dynamic gate). */
    public static final String WARM_UP_STAGE = "warm-up";

    /** True for the stages that build baselines and are not judged against them: the pre-test and the warm-up. */
    static boolean buildsBaselines(String stage) {
        return stage.equals(PRE_TEST_STAGE) || stage.equals(WARM_UP_STAGE);
    }

    /**
     * Decides one round.
     *
     * @param in      the round
     * @param rules   rules in force for this decision (reloaded by the caller each round)
     * @param prior   module name to its stored state; missing modules start HEALTHY with cold detectors
     * @param passive the load driver's windows of the current step ({@link PassiveEvidence#none()} when none)
     * @return verdicts for every module with reports, plus {@value #PASSIVE_MODULE} when there is traffic
     */
    public Decision decide(DecisionInput in, DecisionRules rules, Map<String, ModuleState> prior, PassiveEvidence passive) {
        Thresholds th = rules.thresholds();
        Map<String, List<HealthReport>> byModule = new TreeMap<>();
        for (HealthReport r : in.reports()) byModule.computeIfAbsent(r.module(), k -> new ArrayList<>()).add(r);

        List<ModuleDecision> out = new ArrayList<>();
        HealthReport passiveReport = null;
        PassiveEvidence.Summary summary = passive.lastSeconds(in.nowMs(), rules.passiveWindowSeconds());
        if (summary.requests() >= th.minPassiveRequests()) {
            ModuleState ps = restartIfNewStep(stateOf(prior, PASSIVE_MODULE, th), in, th);
            List<Breach> breaches = passiveBreaches(summary, ps, in, th);
            passiveReport = passiveReport(summary, breaches, in.nowMs());
            if (buildsBaselines(in.stage())) {
                ps = withBaseline(ps, ps.p99BaselineMs().add(summary.p99Ms()));
            }
            boolean burst = summary.errorRate() >= rules.damagedErrorRate();
            out.add(decideModule(PASSIVE_MODULE, List.of(passiveReport), null, breaches, burst, ps, null, rules, in));
        }
        // the load's rate for load-proportional business metrics: any traffic counts (a 2 QPS pre-test is the usual
        // baseline; minPassiveRequests guards error rates, not a rate)
        double achievedQps = summary.seconds() > 0 && summary.requests() > 0
                ? (double) summary.requests() / summary.seconds() : Double.NaN;
        Set<String> core = Set.copyOf(in.coreModules());
        for (var e : byModule.entrySet()) {
            if (e.getKey().equals(PASSIVE_MODULE)) continue;
            ModuleState s = restartIfNewStep(stateOf(prior, e.getKey(), th), in, th);
            List<HealthReport> probes = e.getValue().stream().filter(r -> !TeamEvidence.isTeamEvidence(r)).toList();
            List<HealthReport> team = e.getValue().stream().filter(TeamEvidence::isTeamEvidence).toList();
            s = s.withBreakerFallbacks(s.breakerFallbacks().next(probes, in.nowMs()));
            ResourceEval re = evaluateResources(probes, s, th);
            Saturation.SaturatedRound sat = Saturation.evaluate(probes, s.saturation(), in.stage(), th);
            ModuleDecision d = decideModule(e.getKey(), probes, passiveReport, re.breaches(), false,
                    withSaturation(re.next(), sat.next()), sat, rules, in);
            out.add(team.isEmpty() ? d : TeamEvidence.apply(d, team, core.contains(e.getKey()), achievedQps, rules, in));
        }
        out.sort(Comparator.comparing(d -> d.verdict().module()));
        return new Decision(out, abortReason(rules.abortPolicy(), out, in, passive));
    }

    private static ModuleState stateOf(Map<String, ModuleState> prior, String module, Thresholds th) {
        ModuleState s = prior.get(module);
        return s != null ? s : ModuleState.initial(module, th.slidingWindowSize());
    }

    /**
     * Dynamic detectors restart at every step change. The p99 baseline is kept, except that each warm-up step starts it
     * anew: the formal stage then meets the warm-up's last step's baseline (the pre-test's when there is no warm-up).
     */
    private static ModuleState restartIfNewStep(ModuleState s, DecisionInput in, Thresholds th) {
        if (s.stepKey().equals(in.stepKey())) return s;
        SlidingWindow p99Baseline = in.stage().equals(WARM_UP_STAGE)
                ? SlidingWindow.empty(s.p99BaselineMs().capacity()) : s.p99BaselineMs();
        return new ModuleState(s.module(), s.verdict(), s.verdictSinceMs(), s.consecutiveFailures(),
                s.consecutiveSuccesses(), s.lastFailureAtMs(), s.voteRounds(), in.stepKey(),
                SlidingWindow.empty(th.slidingWindowSize()), Ewma.empty(), p99Baseline, Trend.empty(), s.saturation(), s.teamEvidence(), s.breakerFallbacks());
    }

    private static ModuleState withBaseline(ModuleState s, SlidingWindow baseline) {
        return new ModuleState(s.module(), s.verdict(), s.verdictSinceMs(), s.consecutiveFailures(),
                s.consecutiveSuccesses(), s.lastFailureAtMs(), s.voteRounds(), s.stepKey(), s.connections(), s.heap(), baseline,
                s.heapTrend(), s.saturation(), s.teamEvidence(), s.breakerFallbacks());
    }

    private static ModuleState withSaturation(ModuleState s, SaturationState sat) {
        return new ModuleState(s.module(), s.verdict(), s.verdictSinceMs(), s.consecutiveFailures(),
                s.consecutiveSuccesses(), s.lastFailureAtMs(), s.voteRounds(), s.stepKey(), s.connections(), s.heap(),
                s.p99BaselineMs(), s.heapTrend(), sat, s.teamEvidence(), s.breakerFallbacks());
    }

    private record ResourceEval(List<Breach> breaches, ModuleState next) {}

    /** Rule name of a module SUSPECT because one of its own circuit breakers is open. */
    static final String BREAKER_OPEN_RULE = "breaker-open";

    /**
     * The circuit breakers the module's own scrape shows open or forced open (probe metrics {@code breakerOpen:<name>}
     * = 1, from Resilience4j's {@code resilience4j_circuitbreaker_state}), in name order: the module is answering by its
     * fallback, whatever its health endpoint says.
     */
    static List<String> openBreakers(List<HealthReport> reports) {
        java.util.Set<String> open = new java.util.TreeSet<>();
        for (HealthReport r : reports) {
            r.metrics().forEach((k, v) -> {
                if (k.startsWith("breakerOpen:") && v != null && v >= 1) {
                    open.add(k.substring("breakerOpen:".length()));
                }
            });
        }
        return List.copyOf(open);
    }

    /** Static and dynamic resource rules over the module's scraped metrics; detectors learn after judging. */
    static ResourceEval evaluateResources(List<HealthReport> reports, ModuleState s, Thresholds th) {
        List<Breach> breaches = new ArrayList<>();
        SlidingWindow conn = s.connections();
        Ewma heap = s.heap();
        Trend trend = s.heapTrend();
        for (HealthReport r : reports) {
            Double h = r.metrics().get("heapUsedRatio");
            if (h != null && Double.isFinite(h)) {
                trend = trend.add(r.observedAtMs(), h, th.trendSamples());
                boolean rising = trend.samples().size() >= th.trendSamples() && trend.rise() >= th.trendMinRise();
                if (h > th.heapUsedMaxRatio()) {
                    breaches.add(new Breach("heapUsedRatio", h, th.heapUsedMaxRatio(), "static"));
                    double toFull = trend.secondsTo(1.0);
                    if (rising && th.exhaustionHorizonS() > 0 && toFull <= th.exhaustionHorizonS()) {
                        breaches.add(new Breach("heapSecondsToFull", toFull, th.exhaustionHorizonS(), EXHAUSTION));
                    }
                } else if (heap.isAbove(h, th.heapEwmaControlK(), th.minSamples())) {
                    breaches.add(new Breach("heapUsedRatio", h, heap.upperControlLimit(th.heapEwmaControlK()), "ewma"));
                } else if (rising && trend.secondsTo(th.heapUsedMaxRatio()) <= th.trendHorizonS()) {
                    breaches.add(new Breach("heapUsedRatio", h, th.heapUsedMaxRatio(), "trend"));
                }
                heap = heap.update(h, th.heapEwmaAlpha());
            }
            Double c = r.metrics().get("connectionsInUseRatio");
            if (c != null && Double.isFinite(c)) {
                if (c > th.connectionsInUseMaxRatio()) {
                    breaches.add(new Breach("connectionsInUseRatio", c, th.connectionsInUseMaxRatio(), "static"));
                } else if (conn.isAbove(c, th.connectionsSigmaK(), th.minSamples())) {
                    breaches.add(new Breach("connectionsInUseRatio", c, conn.upperLimit(th.connectionsSigmaK()), "sigma"));
                }
                conn = conn.add(c);
            }
            Double cpu = r.metrics().get("cpuRatio");
            if (cpu != null && Double.isFinite(cpu) && cpu > th.cpuMaxRatio()) {
                breaches.add(new Breach("cpuRatio", cpu, th.cpuMaxRatio(), "static"));
            }
        }
        ModuleState next = new ModuleState(s.module(), s.verdict(), s.verdictSinceMs(), s.consecutiveFailures(),
                s.consecutiveSuccesses(), s.lastFailureAtMs(), s.voteRounds(), s.stepKey(), conn, heap, s.p99BaselineMs(), trend, s.saturation(), s.teamEvidence(), s.breakerFallbacks());
        return new ResourceEval(breaches, next);
    }

    /** Success rate and p99 (static, and % over the p99 baseline outside the stages that build it). */
    static List<Breach> passiveBreaches(PassiveEvidence.Summary sum, ModuleState s, DecisionInput in, Thresholds th) {
        List<Breach> b = new ArrayList<>();
        double successRate = 1 - sum.errorRate();
        if (successRate < th.minSuccessRate()) b.add(new Breach("successRate", successRate, th.minSuccessRate(), "static"));
        if (sum.p99Ms() > th.p99MaxMs()) {
            b.add(new Breach("p99Ms", sum.p99Ms(), th.p99MaxMs(), "static"));
        } else if (!buildsBaselines(in.stage()) && s.p99BaselineMs().values().size() >= th.minSamples()) {
            double base = s.p99BaselineMs().median();
            double limit = Math.max(base * th.p99OverBaselineRatio(), base + th.p99OverBaselineMinDeltaMs());
            if (sum.p99Ms() > limit) b.add(new Breach("p99Ms", sum.p99Ms(), limit, "baseline"));
        }
        return b;
    }

    /**
     * The healthy reason of the {@value #PASSIVE_MODULE} module, which has no probes: what its window of the load
     * driver's own results showed, e.g. {@code "traffic ok: 412 requests, 0.2 % errors, p99 18.0 ms over the last 5 s"}.
     */
    static String trafficOk(HealthReport passive, DecisionRules rules) {
        Map<String, Double> m = passive.metrics();
        return String.format(Locale.ROOT, "traffic ok: %d requests, %.1f %% errors, p99 %.1f ms over the last %d s",
                m.getOrDefault("requests", 0.0).longValue(), 100 * m.getOrDefault("errorRate", 0.0),
                m.getOrDefault("p99Ms", 0.0), rules.passiveWindowSeconds());
    }

    private static HealthReport passiveReport(PassiveEvidence.Summary sum, List<Breach> breaches, long nowMs) {
        boolean ok = breaches.isEmpty();
        String status = ok ? "OK" : breaches.stream().anyMatch(x -> x.metric().equals("successRate")) ? "ERRORS" : "SLOW";
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("requests", (double) sum.requests());
        m.put("errorRate", sum.errorRate());
        m.put("p99Ms", sum.p99Ms());
        return new HealthReport(PASSIVE_MODULE, PASSIVE_KIND, ok, status, List.of(), 0,
                ok ? "" : String.join("; ", breaches.stream().map(Breach::toString).toList()), m, nowMs);
    }

    /**
     * Applies the rule matrix to one module.
     *
     * @param passive     passive report that may join the vote (null for the passive module itself)
     * @param errorBurst  true when the passive error rate reached {@code damagedErrorRate}
     * @param sat         the module's saturation this round (null for the passive module, which has none)
     */
    private static ModuleDecision decideModule(String module, List<HealthReport> reports, HealthReport passive,
                                               List<Breach> breaches, boolean errorBurst, ModuleState s,
                                               Saturation.SaturatedRound sat, DecisionRules rules, DecisionInput in) {
        List<Breach> saturation = sat == null ? List.of() : sat.signals();
        boolean saturated = sat != null && sat.sustained(rules.thresholds());
        long now = in.nowMs();
        // Monitoring evidence that failed is missing evidence: it never votes and never counts as a failed
        // or a successful round (a broken scrape says nothing about the module, either way).
        List<String> missing = missingEvidence(reports);
        List<HealthReport> moduleEvidence = reports.stream().filter(r -> !r.missingEvidence()).toList();
        if (moduleEvidence.isEmpty()) {
            return noEvidence(module, missing, breaches, saturation, s, in);
        }
        reports = moduleEvidence;
        boolean roundFailed = reports.stream().anyMatch(r -> !r.ok());

        int failures = s.consecutiveFailures();
        int successes = s.consecutiveSuccesses();
        long lastFailure = s.lastFailureAtMs();
        if (roundFailed) {
            boolean gapTooLong = lastFailure > 0 && now - lastFailure > rules.failureResetWindowMs();
            failures = gapTooLong ? 1 : failures + 1;
            successes = 0;
            lastFailure = now;
        } else {
            failures = 0;
            // a round with saturation signals is no success towards recovery, though its probes answered
            successes = saturation.isEmpty() ? successes + 1 : 0;
        }

        // Weighted multi-probe vote over evidence kinds, scaled by the kinds present.
        Map<String, Boolean> kindFailed = new LinkedHashMap<>();
        boolean applicationAnswered = reports.stream().anyMatch(FaultDecider::applicationAnswered);
        for (HealthReport r : reports) {
            if (applicationAnswered && r.kind().equals("tcp") && r.ok()) {
                // A connect that succeeded is implied by the application's own answer: it adds no evidence, and
                // counting it would outvote a health endpoint that answered DOWN together with a resource breach.
                continue;
            }
            boolean failed = !r.ok() || (r.kind().equals("prometheus") && !breaches.isEmpty());
            kindFailed.merge(r.kind(), failed, Boolean::logicalOr);
        }
        List<HealthReport> used = new ArrayList<>(reports);
        if (passive != null && roundFailed && !passive.ok()) {
            // Passive evidence is run-wide and lags the probes by a second or two: it corroborates a module's
            // failing probe, but an ok window says nothing about this module now, so it abstains.
            kindFailed.put(PASSIVE_KIND, true);
            used.add(passive);
        }
        double total = 0;
        double failing = 0;
        List<String> failingKinds = new ArrayList<>();
        for (var k : kindFailed.entrySet()) {
            double w = rules.weight(k.getKey());
            total += w;
            if (k.getValue()) {
                failing += w;
                failingKinds.add(k.getKey());
            }
        }
        double fraction = total == 0 ? 0 : failing / total;
        boolean voteHolds = failingKinds.size() >= rules.minVotingKinds() && fraction >= rules.damagedVoteFraction();
        int voteRounds = voteHolds ? s.voteRounds() + 1 : 0;

        State prev = s.verdict();
        State next;
        String rule;
        String reason;
        boolean resourcesNormal = breaches.isEmpty();
        List<String> openBreakers = openBreakers(reports);
        if (voteRounds >= rules.damagedVoteConsecutiveRounds()) {
            next = State.DAMAGED;
            rule = "vote";
            String firstDetail = used.stream().filter(r -> !r.ok() && !r.detail().isBlank()).map(r -> r.kind() + ": " + r.detail())
                    .findFirst().orElse("");
            reason = "weighted probe vote %.2f >= %.2f (failing: %s)%s".formatted(fraction, rules.damagedVoteFraction(),
                    String.join(", ", failingKinds), firstDetail.isEmpty() ? "" : "; " + firstDetail);
        } else if (breaches.stream().anyMatch(b -> b.rule().equals(EXHAUSTION))) {
            next = State.DAMAGED;
            rule = "exhaustion-forecast";
            reason = "heap about to run out: " + breachText(breaches);
        } else if (errorBurst) {
            next = State.DAMAGED;
            rule = "error-burst";
            reason = "error rate %.3f >= %.3f over the last %d s".formatted(
                    reports.getFirst().metrics().getOrDefault("errorRate", 0.0), rules.damagedErrorRate(), rules.passiveWindowSeconds());
        } else if (failures >= rules.damagedAfterConsecutiveFailures() && !resourcesNormal) {
            next = State.DAMAGED;
            rule = "consecutive-failures+resource";
            reason = failures + " consecutive failed probes; " + breachText(breaches);
        } else if (!openBreakers.isEmpty() && prev != State.DAMAGED) {
            next = State.SUSPECT;
            rule = BREAKER_OPEN_RULE;
            reason = "circuit breaker" + (openBreakers.size() == 1 ? " " : "s ")
                    + String.join(", ", openBreakers.stream().map(b -> "'" + b + "'").toList())
                    + " open: calls not permitted, the module answers by its fallback";
        } else if (prev == State.DAMAGED || prev == State.SUSPECT) {
            if (successes >= rules.healthyAfterConsecutiveSuccesses() && resourcesNormal && !saturated) {
                next = State.HEALTHY;
                rule = "recovered";
                reason = successes + " consecutive successful probes, resources normal";
            } else {
                next = prev;
                rule = "held";
                reason = prev + " held: " + successes + "/" + rules.healthyAfterConsecutiveSuccesses()
                        + " successes" + (resourcesNormal ? "" : "; " + breachText(breaches))
                        + (saturated ? "; saturated: " + breachText(saturation) : "");
            }
        } else if (failures >= rules.suspectAfterConsecutiveFailures()) {
            next = State.SUSPECT;
            rule = "consecutive-failures";
            reason = failures + " consecutive failed probes" + (resourcesNormal ? ", resources normal" : "; " + breachText(breaches));
        } else if (saturated) {
            next = State.SUSPECT;
            rule = Saturation.RULE;
            reason = saturationText(sat, roundFailed);
        } else {
            next = State.HEALTHY;
            rule = "healthy";
            reason = roundFailed ? failures + " consecutive failed probes (below " + rules.suspectAfterConsecutiveFailures() + ")"
                    : (module.equals(PASSIVE_MODULE) ? trafficOk(reports.getFirst(), rules) : "probes ok")
                    + (resourcesNormal ? "" : "; " + breachText(breaches));
        }
        if (next == State.SUSPECT && failures >= rules.suspectAfterConsecutiveFailures() && prev == State.SUSPECT) {
            rule = "consecutive-failures";
            reason = failures + " consecutive failed probes" + (resourcesNormal ? ", resources normal" : "; " + breachText(breaches));
        }
        if (rule.equals("held") && next == State.SUSPECT && saturated) {
            rule = Saturation.RULE;
            reason = saturationText(sat, roundFailed);
        }
        if (!missing.isEmpty()) reason = reason + "; missing evidence: " + String.join("; ", missing);
        long since = next == prev && s.verdictSinceMs() > 0 ? s.verdictSinceMs() : now;
        ModuleState nextState = new ModuleState(module, next, since, failures, successes, lastFailure, voteRounds,
                s.stepKey(), s.connections(), s.heap(), s.p99BaselineMs(), s.heapTrend(), s.saturation(), s.teamEvidence(), s.breakerFallbacks());
        VerdictEvidence ev = new VerdictEvidence(rule, fraction, failingKinds, breaches, failures, successes, used, missing,
                saturation);
        return new ModuleDecision(new Verdict(module, next, reason, now), prev, nextState, ev);
    }

    /** Statuses of an application-level probe that got no answer from the module (connection or deadline failures). */
    static final Set<String> NO_ANSWER = Set.of("TIMEOUT", "REFUSED", "ERROR", "UNAVAILABLE", "DEADLINE_EXCEEDED", "CANCELLED",
            "BULKHEAD_FULL", "TLS_HANDSHAKE_FAILED");

    /**
     * True when an HTTP or gRPC health probe failed with the module's own answer (DOWN, HTTP 5xx, NOT_SERVING):
     * the module accepted the connection and said it is unhealthy.
     */
    static boolean applicationAnswered(HealthReport r) {
        return (r.kind().equals("http") || r.kind().equals("grpc")) && !r.ok() && !NO_ANSWER.contains(r.status());
    }

    /**
     * The round's monitoring defects, each as {@code <kind>: <detail>}: failed monitoring reports (the
     * observation is missing) and the warnings of reports that were observed despite a defect.
     */
    static List<String> missingEvidence(List<HealthReport> reports) {
        List<String> out = new ArrayList<>();
        for (HealthReport r : reports) {
            if (r.missingEvidence()) out.add(r.kind() + ": " + (r.detail().isBlank() ? r.status() : r.detail()));
            for (String w : r.warnings()) out.add(r.kind() + ": " + w);
        }
        return out;
    }

    /**
     * A round in which every report of the module was missing evidence: the verdict and the consecutive
     * counters are held (a SUSPECT module must not recover on rounds nobody could observe, and a healthy one
     * must not drift to SUSPECT on a broken scrape).
     */
    private static ModuleDecision noEvidence(String module, List<String> missing, List<Breach> breaches,
                                             List<Breach> saturation, ModuleState s, DecisionInput in) {
        State prev = s.verdict();
        String reason = prev + " held: no module evidence this round"
                + (missing.isEmpty() ? "" : "; missing evidence: " + String.join("; ", missing));
        long since = s.verdictSinceMs() > 0 ? s.verdictSinceMs() : in.nowMs();
        ModuleState next = new ModuleState(module, prev, since, s.consecutiveFailures(), s.consecutiveSuccesses(),
                s.lastFailureAtMs(), s.voteRounds(), s.stepKey(), s.connections(), s.heap(), s.p99BaselineMs(), s.heapTrend(), s.saturation(), s.teamEvidence(), s.breakerFallbacks());
        VerdictEvidence ev = new VerdictEvidence("no-evidence", 0, List.of(), breaches, s.consecutiveFailures(),
                s.consecutiveSuccesses(), List.of(), missing, saturation);
        return new ModuleDecision(new Verdict(module, prev, reason, in.nowMs()), prev, next, ev);
    }

    /** E.g. {@code "saturated for 3 rounds while its probes answer: hostCpuRatio 0.98 > 0.9 (saturation)"}. */
    private static String saturationText(Saturation.SaturatedRound sat, boolean roundFailed) {
        return "saturated for " + sat.next().rounds() + " rounds" + (roundFailed ? "" : " while its probes answer")
                + ": " + breachText(sat.signals());
    }

    private static String breachText(List<Breach> b) {
        return String.join(", ", b.stream().map(Breach::toString).toList());
    }

    private static String abortReason(AbortPolicy policy, List<ModuleDecision> decisions, DecisionInput in, PassiveEvidence passive) {
        Set<String> core = new LinkedHashSet<>(in.coreModules());
        for (AbortCondition c : policy.conditions()) {
            String why = switch (c) {
                case AbortCondition.AnyDamagedCoreModule x -> decisions.stream()
                        .filter(d -> d.verdict().state() == State.DAMAGED && core.contains(d.verdict().module()))
                        .map(d -> "DAMAGED core module " + d.verdict().module() + ": " + d.verdict().reason())
                        .findFirst().orElse("");
                case AbortCondition.AnyDamagedModule x -> decisions.stream()
                        .filter(d -> d.verdict().state() == State.DAMAGED)
                        .map(d -> "DAMAGED module " + d.verdict().module() + ": " + d.verdict().reason())
                        .findFirst().orElse("");
                case AbortCondition.ErrorRateOver x -> errorRateBreach(x, passive, decisions, in.nowMs());
            };
            if (!why.isEmpty()) return why;
        }
        return "";
    }

    /**
     * The {@code errorRateOver} condition's breach, or "" when it holds: the load driver's errors per second, each second
     * counting at least the answers a circuit breaker gave by its fallback in it ({@link BreakerFallbacks}: the largest
     * of any module's, as the report's success rate counts them), since a fallback's 200 stands in for work not done.
     * The reason says when the fallbacks made the breach: {@code error rate over 0.250 for 5 s (counting the answers of
     * circuit breakers' fallbacks)}.
     */
    static String errorRateBreach(AbortCondition.ErrorRateOver x, PassiveEvidence passive, List<ModuleDecision> decisions,
                                  long nowMs) {
        String why = "error rate over %.3f for %d s".formatted(x.errorRate(), x.forSeconds());
        if (passive.everySecondErrorRateAbove(nowMs, x.forSeconds(), x.errorRate())) {
            return why;
        }
        PassiveEvidence counted = passive.withFallbacks(second -> decisions.stream()
                .mapToDouble(d -> d.next().breakerFallbacks().at(second)).max().orElse(0));
        return counted.everySecondErrorRateAbove(nowMs, x.forSeconds(), x.errorRate())
                ? why + " (counting the answers of circuit breakers' fallbacks)" : "";
    }

    /** The verdict list of a decision, in module order. */
    public static List<Verdict> verdicts(Decision d) {
        return d.modules().stream().map(ModuleDecision::verdict).toList();
    }
}
