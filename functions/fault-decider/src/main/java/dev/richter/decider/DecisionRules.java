package dev.richter.decider;

import static dev.richter.common.ConfigCheck.atLeast;
import static dev.richter.common.ConfigCheck.positiveFraction;
import static dev.richter.common.ConfigCheck.require;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.richter.common.Json;
import java.util.Map;

/**
 * The decision rules of DESIGN.md §4 as one immutable value, stored per team (registry item
 * {@code rules#decision}) and swapped whole on reload.
 *
 * <table>
 *   <caption>Rule matrix</caption>
 *   <tr><th>condition</th><th>verdict</th></tr>
 *   <tr><td>{@code suspectAfterConsecutiveFailures} failed rounds in a row (default 5)</td><td>SUSPECT</td></tr>
 *   <tr><td>{@code damagedAfterConsecutiveFailures} failed rounds in a row (default 10) and ≥ 1 resource
 *       threshold breached</td><td>DAMAGED</td></tr>
 *   <tr><td>weighted vote: weight of failing evidence / weight of all evidence ≥ {@code damagedVoteFraction}
 *       (default 0.75), over at least {@code minVotingKinds} failing kinds (default 2), for
 *       {@code damagedVoteConsecutiveRounds} rounds (default 1)</td><td>DAMAGED</td></tr>
 *   <tr><td>passive pseudo-module {@code load}: error rate ≥ {@code damagedErrorRate} (default 0.5) over the
 *       passive window</td><td>DAMAGED</td></tr>
 *   <tr><td>{@code saturation}: a saturation signal (host or process CPU, pool use or pending threads, thread-pool use,
 *       executor queue, GC time fraction, health-probe latency over its pre-test baseline; {@link Saturation}) past its
 *       {@link Thresholds} limit for {@code saturationConsecutiveRounds} rounds (default 3), even while health answers
 *       UP; never DAMAGED from saturation alone</td><td>SUSPECT</td></tr>
 *   <tr><td>{@code alert-firing}, {@code business-metric}: the team's own alerts and business metrics
 *       ({@link TeamEvidenceRules})</td><td>DAMAGED / SUSPECT</td></tr>
 *   <tr><td>{@code healthyAfterConsecutiveSuccesses} successful rounds in a row (default 3) after SUSPECT or
 *       DAMAGED, no resource breached, no saturation signal (a saturated round is no success)</td><td>HEALTHY</td></tr>
 *   <tr><td>two failed rounds further apart than {@code failureResetWindowMs} (default 10 000 ms)</td>
 *       <td>consecutive-failure counter restarts at 1</td></tr>
 * </table>
 *
 * <p>Only module evidence counts ({@link dev.richter.common.model.HealthReport.Evidence}): a failed monitoring
 * report (a scrape that does not parse, a metrics path answering 404, an unknown gRPC service name) is missing
 * evidence. It neither fails nor passes the round, never votes, and is recorded for the checks and the report; a
 * round with no module evidence at all holds the verdict and the counters.
 *
 * <p>A round fails for a module when any of its module-evidence reports is not ok. Vote evidence per kind
 * ({@code http}, {@code tcp}, {@code grpc}, {@code prometheus}, {@code passive}): a probe fails when not
 * ok; a Prometheus scrape also fails when a resource threshold is breached; passive evidence (the load
 * driver's windows, shared by the run) joins a module's vote only when it fails and one of that module's
 * own probes failed: traffic-level trouble alone never damns a module, and an ok window (run-wide, a
 * second or two behind the probes) never dilutes a module's own failures. A successful TCP connect abstains when an
 * HTTP or gRPC health probe of the module failed with the module's own answer (DOWN, HTTP 5xx, NOT_SERVING): the
 * answer already proves the connect, so counting it again would outvote a health endpoint that says DOWN together
 * with a resource breach (the fault-injection bench's memory leak and pool exhaustion). Weights are scaled over the kinds present
 * (default http 0.6, tcp 0.4, grpc 0.6, prometheus 0.4, passive 0.6; an unknown kind weighs 0.5).
 *
 * <p>Each default is a {@code DEFAULT_*} constant below; {@link #defaults()} holds them all. Build a variant by
 * name, never by position: {@code DecisionRules.builder().suspectAfterConsecutiveFailures(3).build()}, or
 * {@code rules.toBuilder()...build()} over other rules. Stored as JSON with the field names below
 * ({@link #fromJson(String)}). A {@code damagedErrorRate} above 1 is never reached: it switches the passive DAMAGED
 * rule off.
 *
 * @param suspectAfterConsecutiveFailures  failed rounds in a row for SUSPECT, ≥ 1
 *                                         (default {@value #DEFAULT_SUSPECT_AFTER_CONSECUTIVE_FAILURES})
 * @param damagedAfterConsecutiveFailures  failed rounds in a row that, with a resource breach, make DAMAGED, ≥ 1
 *                                         (default {@value #DEFAULT_DAMAGED_AFTER_CONSECUTIVE_FAILURES})
 * @param healthyAfterConsecutiveSuccesses successful rounds in a row, resources normal, to go back to HEALTHY, ≥ 1
 *                                         (default {@value #DEFAULT_HEALTHY_AFTER_CONSECUTIVE_SUCCESSES})
 * @param failureResetWindowMs             longest gap between two failed rounds that still counts as consecutive, ms,
 *                                         ≥ 0 (default {@value #DEFAULT_FAILURE_RESET_WINDOW_MS})
 * @param damagedVoteFraction              scaled failing weight at or above which the vote says DAMAGED, in (0, 1]
 *                                         (default {@value #DEFAULT_DAMAGED_VOTE_FRACTION})
 * @param minVotingKinds                   distinct failing evidence kinds the vote needs, ≥ 0 (0 and 1 alike: a vote
 *                                         that reaches its fraction has a failing kind) (default {@value #DEFAULT_MIN_VOTING_KINDS})
 * @param damagedVoteConsecutiveRounds     rounds in a row the vote must hold, ≥ 1
 *                                         (default {@value #DEFAULT_DAMAGED_VOTE_CONSECUTIVE_ROUNDS})
 * @param probeWeights                     vote weight per evidence kind, each ≥ 0 (default {@link #DEFAULT_PROBE_WEIGHTS};
 *                                         null is no weights, every kind then weighs {@value #DEFAULT_UNKNOWN_KIND_WEIGHT})
 * @param passiveWindowSeconds             complete seconds of load-driver windows read per decision, ≥ 1
 *                                         (default {@value #DEFAULT_PASSIVE_WINDOW_SECONDS})
 * @param damagedErrorRate                 passive error rate at or above which the {@code load} pseudo-module is
 *                                         DAMAGED, ≥ 0 (default {@value #DEFAULT_DAMAGED_ERROR_RATE})
 * @param thresholds                       resource and passive thresholds (null: {@link Thresholds#defaults()})
 * @param abortPolicy                      when to set the run's abort flag (null: {@link AbortPolicy#defaults()})
 * @param teamEvidence                     the rules on the team's own alerts and business metrics (null:
 *                                         {@link TeamEvidenceRules#defaults()})
 */
public record DecisionRules(int suspectAfterConsecutiveFailures, int damagedAfterConsecutiveFailures,
                            int healthyAfterConsecutiveSuccesses, long failureResetWindowMs,
                            double damagedVoteFraction, int minVotingKinds, int damagedVoteConsecutiveRounds,
                            Map<String, Double> probeWeights, int passiveWindowSeconds, double damagedErrorRate,
                            Thresholds thresholds, AbortPolicy abortPolicy, TeamEvidenceRules teamEvidence) {
    /** 5 consecutive failed rounds make a module SUSPECT (DESIGN.md §4). */
    public static final int DEFAULT_SUSPECT_AFTER_CONSECUTIVE_FAILURES = 5;
    /** 10 consecutive failed rounds and a resource breach make a module DAMAGED (DESIGN.md §4). */
    public static final int DEFAULT_DAMAGED_AFTER_CONSECUTIVE_FAILURES = 10;
    /** 3 consecutive successes after damage, resources normal, make a module HEALTHY again (DESIGN.md §4). */
    public static final int DEFAULT_HEALTHY_AFTER_CONSECUTIVE_SUCCESSES = 3;
    /** Two failures further apart than 10 000 ms restart the count (DESIGN.md §4: "longer than the window"). */
    public static final long DEFAULT_FAILURE_RESET_WINDOW_MS = 10_000;
    /** A weighted vote of 3 of 4 makes a module DAMAGED (DESIGN.md §4). */
    public static final double DEFAULT_DAMAGED_VOTE_FRACTION = 0.75;
    /** The vote needs failing evidence of 2 distinct kinds. */
    public static final int DEFAULT_MIN_VOTING_KINDS = 2;
    /** The vote makes DAMAGED in the first round it holds. */
    public static final int DEFAULT_DAMAGED_VOTE_CONSECUTIVE_ROUNDS = 1;
    /** Vote weight per evidence kind (DESIGN.md §4: HTTP 0.6, TCP 0.4): health answers weigh more than connects and scrapes. */
    public static final Map<String, Double> DEFAULT_PROBE_WEIGHTS =
            Map.of("http", 0.6, "tcp", 0.4, "grpc", 0.6, "prometheus", 0.4, "passive", 0.6);
    /** Weight of an evidence kind missing from {@link #probeWeights}. */
    public static final double DEFAULT_UNKNOWN_KIND_WEIGHT = 0.5;
    /** Seconds of load-driver windows per decision: the fault-injection bench showed 3 s put error-burst detection p99 over 5 s. */
    public static final int DEFAULT_PASSIVE_WINDOW_SECONDS = 2;
    /** A passive error rate of 50 % or more makes the {@code load} pseudo-module DAMAGED. */
    public static final double DEFAULT_DAMAGED_ERROR_RATE = 0.5;

    private static final DecisionRules DEFAULTS = new Builder().build();

    /** @throws IllegalArgumentException naming the field and its rule when a value is out of range (see the params) */
    public DecisionRules {
        atLeast("suspectAfterConsecutiveFailures", suspectAfterConsecutiveFailures, 1);
        atLeast("damagedAfterConsecutiveFailures", damagedAfterConsecutiveFailures, 1);
        atLeast("healthyAfterConsecutiveSuccesses", healthyAfterConsecutiveSuccesses, 1);
        atLeast("failureResetWindowMs", failureResetWindowMs, 0);
        positiveFraction("damagedVoteFraction", damagedVoteFraction);
        atLeast("minVotingKinds", minVotingKinds, 0);
        atLeast("damagedVoteConsecutiveRounds", damagedVoteConsecutiveRounds, 1);
        if (probeWeights != null) {
            probeWeights.forEach((kind, w) -> require(w != null && w >= 0, "probeWeights." + kind, ">= 0", w));
        }
        atLeast("passiveWindowSeconds", passiveWindowSeconds, 1);
        atLeast("damagedErrorRate", damagedErrorRate, 0);
        probeWeights = probeWeights == null ? Map.of() : Map.copyOf(probeWeights);
        thresholds = thresholds == null ? Thresholds.defaults() : thresholds;
        abortPolicy = abortPolicy == null ? AbortPolicy.defaults() : abortPolicy;
        teamEvidence = teamEvidence == null ? TeamEvidenceRules.defaults() : teamEvidence;
    }

    /** DESIGN.md §4 defaults: every field its {@code DEFAULT_*} constant, {@link Thresholds#defaults()}, {@link AbortPolicy#defaults()}. */
    public static DecisionRules defaults() {
        return DEFAULTS;
    }

    /** A builder starting from {@link #defaults()}. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these rules. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Vote weight of an evidence kind. */
    public double weight(String kind) {
        return probeWeights.getOrDefault(kind, DEFAULT_UNKNOWN_KIND_WEIGHT);
    }

    /**
     * Reads stored rules: a JSON object that may give only some fields (at any depth); the rest are
     * the defaults. Lists (abort conditions) replace the default list whole.
     *
     * @throws IllegalArgumentException when the JSON is malformed or a value is out of range
     */
    public static DecisionRules fromJson(String json) {
        try {
            ObjectNode base = Json.MAPPER.valueToTree(DEFAULTS);
            JsonNode stored = Json.MAPPER.readTree(json);
            if (stored != null && stored.isObject()) merge(base, (ObjectNode) stored);
            return Json.MAPPER.treeToValue(base, DecisionRules.class);
        } catch (Exception e) {
            throw new IllegalArgumentException("invalid decision rules: " + e.getMessage(), e);
        }
    }

    /** The rules as JSON (every field). */
    public String toJson() {
        return Json.write(this);
    }

    private static void merge(ObjectNode base, ObjectNode over) {
        over.fields().forEachRemaining(e -> {
            JsonNode b = base.get(e.getKey());
            if (b instanceof ObjectNode bo && e.getValue() instanceof ObjectNode oo) {
                merge(bo, oo);
            } else {
                base.set(e.getKey(), e.getValue());
            }
        });
    }

    /** A copy with a different abort policy (a run's own policy from its plan). */
    public DecisionRules withAbortPolicy(AbortPolicy p) {
        return toBuilder().abortPolicy(p).build();
    }

    /** A copy with different thresholds. */
    public DecisionRules withThresholds(Thresholds t) {
        return toBuilder().thresholds(t).build();
    }

    /**
     * Sets rules by name; {@link #build()} validates them all (the record's rules). Not thread-safe; each setter
     * takes the unit of the record component of the same name and returns this builder.
     */
    public static final class Builder {
        private int suspectAfterConsecutiveFailures = DEFAULT_SUSPECT_AFTER_CONSECUTIVE_FAILURES;
        private int damagedAfterConsecutiveFailures = DEFAULT_DAMAGED_AFTER_CONSECUTIVE_FAILURES;
        private int healthyAfterConsecutiveSuccesses = DEFAULT_HEALTHY_AFTER_CONSECUTIVE_SUCCESSES;
        private long failureResetWindowMs = DEFAULT_FAILURE_RESET_WINDOW_MS;
        private double damagedVoteFraction = DEFAULT_DAMAGED_VOTE_FRACTION;
        private int minVotingKinds = DEFAULT_MIN_VOTING_KINDS;
        private int damagedVoteConsecutiveRounds = DEFAULT_DAMAGED_VOTE_CONSECUTIVE_ROUNDS;
        private Map<String, Double> probeWeights = DEFAULT_PROBE_WEIGHTS;
        private int passiveWindowSeconds = DEFAULT_PASSIVE_WINDOW_SECONDS;
        private double damagedErrorRate = DEFAULT_DAMAGED_ERROR_RATE;
        private Thresholds thresholds = Thresholds.defaults();
        private AbortPolicy abortPolicy = AbortPolicy.defaults();
        private TeamEvidenceRules teamEvidence = TeamEvidenceRules.defaults();

        private Builder() {}

        private Builder(DecisionRules r) {
            suspectAfterConsecutiveFailures = r.suspectAfterConsecutiveFailures;
            damagedAfterConsecutiveFailures = r.damagedAfterConsecutiveFailures;
            healthyAfterConsecutiveSuccesses = r.healthyAfterConsecutiveSuccesses;
            failureResetWindowMs = r.failureResetWindowMs;
            damagedVoteFraction = r.damagedVoteFraction;
            minVotingKinds = r.minVotingKinds;
            damagedVoteConsecutiveRounds = r.damagedVoteConsecutiveRounds;
            probeWeights = r.probeWeights;
            passiveWindowSeconds = r.passiveWindowSeconds;
            damagedErrorRate = r.damagedErrorRate;
            thresholds = r.thresholds;
            abortPolicy = r.abortPolicy;
            teamEvidence = r.teamEvidence;
        }

        /** Rounds, ≥ 1. */
        public Builder suspectAfterConsecutiveFailures(int v) {
            suspectAfterConsecutiveFailures = v;
            return this;
        }

        /** Rounds, ≥ 1. */
        public Builder damagedAfterConsecutiveFailures(int v) {
            damagedAfterConsecutiveFailures = v;
            return this;
        }

        /** Rounds, ≥ 1. */
        public Builder healthyAfterConsecutiveSuccesses(int v) {
            healthyAfterConsecutiveSuccesses = v;
            return this;
        }

        /** Milliseconds, ≥ 0. */
        public Builder failureResetWindowMs(long v) {
            failureResetWindowMs = v;
            return this;
        }

        /** Scaled failing weight, in (0, 1]. */
        public Builder damagedVoteFraction(double v) {
            damagedVoteFraction = v;
            return this;
        }

        /** Evidence kinds, ≥ 0. */
        public Builder minVotingKinds(int v) {
            minVotingKinds = v;
            return this;
        }

        /** Rounds, ≥ 1. */
        public Builder damagedVoteConsecutiveRounds(int v) {
            damagedVoteConsecutiveRounds = v;
            return this;
        }

        /** Evidence kind → weight, each ≥ 0; replaces every weight (null: none). */
        public Builder probeWeights(Map<String, Double> v) {
            probeWeights = v;
            return this;
        }

        /** Seconds, ≥ 1. */
        public Builder passiveWindowSeconds(int v) {
            passiveWindowSeconds = v;
            return this;
        }

        /** Error rate, ≥ 0 (above 1: never). */
        public Builder damagedErrorRate(double v) {
            damagedErrorRate = v;
            return this;
        }

        /** Null: {@link Thresholds#defaults()}. */
        public Builder thresholds(Thresholds v) {
            thresholds = v;
            return this;
        }

        /** Null: {@link AbortPolicy#defaults()}. */
        public Builder abortPolicy(AbortPolicy v) {
            abortPolicy = v;
            return this;
        }

        /** Null: {@link TeamEvidenceRules#defaults()}. */
        public Builder teamEvidence(TeamEvidenceRules v) {
            teamEvidence = v;
            return this;
        }

        /** @throws IllegalArgumentException naming the first field out of range and its rule */
        public DecisionRules build() {
            return new DecisionRules(suspectAfterConsecutiveFailures, damagedAfterConsecutiveFailures,
                    healthyAfterConsecutiveSuccesses, failureResetWindowMs, damagedVoteFraction, minVotingKinds,
                    damagedVoteConsecutiveRounds, probeWeights, passiveWindowSeconds, damagedErrorRate, thresholds, abortPolicy,
                    teamEvidence);
        }
    }
}
