package dev.richter.decider;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.richter.common.Json;
import java.util.Map;

/**
 * The decision rules of DESIGN.md §4 as one immutable value, stored per team (registry item
 * {@code rules#decision}) and swapped whole on reload. Defaults live in {@link #defaults()} only.
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
 *   <tr><td>{@code healthyAfterConsecutiveSuccesses} successful rounds in a row (default 3) after SUSPECT or
 *       DAMAGED, no resource breached</td><td>HEALTHY</td></tr>
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
 * @param suspectAfterConsecutiveFailures  failed rounds in a row for SUSPECT
 * @param damagedAfterConsecutiveFailures  failed rounds in a row that, with a resource breach, make DAMAGED
 * @param healthyAfterConsecutiveSuccesses successful rounds in a row, resources normal, to go back to HEALTHY
 * @param failureResetWindowMs             longest gap between two failed rounds that still counts as consecutive, ms
 * @param damagedVoteFraction              scaled failing weight at or above which the vote says DAMAGED, 0..1
 * @param minVotingKinds                   distinct failing evidence kinds the vote needs
 * @param damagedVoteConsecutiveRounds     rounds in a row the vote must hold
 * @param probeWeights                     vote weight per evidence kind
 * @param passiveWindowSeconds             complete seconds of load-driver windows read per decision (default 2: the
 *                                         fault-injection bench showed 3 s put error-burst detection p99 over 5 s)
 * @param damagedErrorRate                 passive error rate at or above which the {@code load} pseudo-module is DAMAGED
 * @param thresholds                       resource and passive thresholds
 * @param abortPolicy                      when to set the run's abort flag
 */
public record DecisionRules(int suspectAfterConsecutiveFailures, int damagedAfterConsecutiveFailures,
                            int healthyAfterConsecutiveSuccesses, long failureResetWindowMs,
                            double damagedVoteFraction, int minVotingKinds, int damagedVoteConsecutiveRounds,
                            Map<String, Double> probeWeights, int passiveWindowSeconds, double damagedErrorRate,
                            Thresholds thresholds, AbortPolicy abortPolicy) {
    /** Weight of an evidence kind missing from {@link #probeWeights}. */
    public static final double DEFAULT_UNKNOWN_KIND_WEIGHT = 0.5;

    private static final DecisionRules DEFAULTS = new DecisionRules(5, 10, 3, 10_000, 0.75, 2, 1,
            Map.of("http", 0.6, "tcp", 0.4, "grpc", 0.6, "prometheus", 0.4, "passive", 0.6),
            2, 0.5, Thresholds.defaults(), AbortPolicy.defaults());

    public DecisionRules {
        probeWeights = probeWeights == null ? Map.of() : Map.copyOf(probeWeights);
        thresholds = thresholds == null ? Thresholds.defaults() : thresholds;
        abortPolicy = abortPolicy == null ? AbortPolicy.defaults() : abortPolicy;
        if (suspectAfterConsecutiveFailures < 1 || damagedAfterConsecutiveFailures < 1 || healthyAfterConsecutiveSuccesses < 1) {
            throw new IllegalArgumentException("consecutive counts must be >= 1");
        }
        if (damagedVoteFraction <= 0 || damagedVoteFraction > 1) throw new IllegalArgumentException("damagedVoteFraction must be in (0,1]");
        if (damagedVoteConsecutiveRounds < 1) throw new IllegalArgumentException("damagedVoteConsecutiveRounds must be >= 1");
        if (passiveWindowSeconds < 1) throw new IllegalArgumentException("passiveWindowSeconds must be >= 1");
    }

    /** DESIGN.md §4 defaults. */
    public static DecisionRules defaults() {
        return DEFAULTS;
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
        return new DecisionRules(suspectAfterConsecutiveFailures, damagedAfterConsecutiveFailures,
                healthyAfterConsecutiveSuccesses, failureResetWindowMs, damagedVoteFraction, minVotingKinds,
                damagedVoteConsecutiveRounds, probeWeights, passiveWindowSeconds, damagedErrorRate, thresholds, p);
    }

    /** A copy with different thresholds. */
    public DecisionRules withThresholds(Thresholds t) {
        return new DecisionRules(suspectAfterConsecutiveFailures, damagedAfterConsecutiveFailures,
                healthyAfterConsecutiveSuccesses, failureResetWindowMs, damagedVoteFraction, minVotingKinds,
                damagedVoteConsecutiveRounds, probeWeights, passiveWindowSeconds, damagedErrorRate, t, abortPolicy);
    }
}
