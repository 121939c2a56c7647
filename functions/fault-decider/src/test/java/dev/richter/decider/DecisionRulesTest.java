package dev.richter.decider;

import static org.junit.jupiter.api.Assertions.*;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The named defaults of {@link DecisionRules} (DESIGN.md §4), its builder, its JSON form, and its refusals. */
class DecisionRulesTest {
    private static Knob<DecisionRules.Builder> knob(String field, Function<DecisionRules.Builder, DecisionRules.Builder> set,
                                                    Object value) {
        return new Knob<>(field, set, value);
    }

    @Test
    void theDefaultsAreTheDocumentedValues() {
        DecisionRules d = DecisionRules.defaults();
        assertEquals(5, d.suspectAfterConsecutiveFailures());
        assertEquals(10, d.damagedAfterConsecutiveFailures());
        assertEquals(3, d.healthyAfterConsecutiveSuccesses());
        assertEquals(10_000, d.failureResetWindowMs());
        assertEquals(0.75, d.damagedVoteFraction());
        assertEquals(2, d.minVotingKinds());
        assertEquals(1, d.damagedVoteConsecutiveRounds());
        assertEquals(Map.of("http", 0.6, "tcp", 0.4, "grpc", 0.6, "prometheus", 0.4, "passive", 0.6), d.probeWeights());
        assertEquals(0.5, d.weight("some-new-kind"));
        assertEquals(2, d.passiveWindowSeconds());
        assertEquals(0.5, d.damagedErrorRate());
        assertEquals(Thresholds.defaults(), d.thresholds());
        assertEquals(AbortPolicy.defaults(), d.abortPolicy());
        assertEquals(new TeamEvidenceRules(3, 6, 15_000, 3), d.teamEvidence());
        assertEquals(d, DecisionRules.builder().build());
        assertEquals(d, d.toBuilder().build());
        assertEquals(d, DecisionRules.fromJson("{}"));
    }

    @Test
    void eachSetterChangesExactlyItsField() {
        Thresholds t = Thresholds.builder().heapUsedMaxRatio(0.8).build();
        AbortPolicy never = new AbortPolicy(List.of());
        Knob.assertEachSetsOnlyItsField(DecisionRules.defaults(), DecisionRules::toBuilder, DecisionRules.Builder::build, List.of(
                knob("suspectAfterConsecutiveFailures", b -> b.suspectAfterConsecutiveFailures(3), 3),
                knob("damagedAfterConsecutiveFailures", b -> b.damagedAfterConsecutiveFailures(6), 6),
                knob("healthyAfterConsecutiveSuccesses", b -> b.healthyAfterConsecutiveSuccesses(4), 4),
                knob("failureResetWindowMs", b -> b.failureResetWindowMs(20_000), 20_000L),
                knob("damagedVoteFraction", b -> b.damagedVoteFraction(0.5), 0.5),
                knob("minVotingKinds", b -> b.minVotingKinds(1), 1),
                knob("damagedVoteConsecutiveRounds", b -> b.damagedVoteConsecutiveRounds(2), 2),
                knob("probeWeights", b -> b.probeWeights(Map.of("http", 1.0)), Map.of("http", 1.0)),
                knob("passiveWindowSeconds", b -> b.passiveWindowSeconds(3), 3),
                knob("damagedErrorRate", b -> b.damagedErrorRate(0.3), 0.3),
                knob("thresholds", b -> b.thresholds(t), t),
                knob("abortPolicy", b -> b.abortPolicy(never), never),
                knob("teamEvidence", b -> b.teamEvidence(new TeamEvidenceRules(2, 4, 0, 1)), new TeamEvidenceRules(2, 4, 0, 1))));
        DecisionRules d = DecisionRules.defaults();
        assertEquals(d.toBuilder().thresholds(t).build(), d.withThresholds(t));
        assertEquals(d.toBuilder().abortPolicy(never).build(), d.withAbortPolicy(never));
    }

    @Test
    void nullsReadAsBefore() {
        DecisionRules r = DecisionRules.builder().probeWeights(null).thresholds(null).abortPolicy(null).build();
        assertEquals(Map.of(), r.probeWeights(), "no weights: every kind weighs the unknown kind's weight");
        assertEquals(Thresholds.defaults(), r.thresholds());
        assertEquals(AbortPolicy.defaults(), r.abortPolicy());
        assertEquals(r, DecisionRules.fromJson("{\"probeWeights\":null,\"thresholds\":null,\"abortPolicy\":null}"));
    }

    @Test
    void eachOutOfRangeValueIsRefusedNamingItsFieldAndRule() {
        refused(b -> b.suspectAfterConsecutiveFailures(0), "suspectAfterConsecutiveFailures must be >= 1, was 0");
        refused(b -> b.damagedAfterConsecutiveFailures(0), "damagedAfterConsecutiveFailures must be >= 1, was 0");
        refused(b -> b.healthyAfterConsecutiveSuccesses(0), "healthyAfterConsecutiveSuccesses must be >= 1, was 0");
        refused(b -> b.failureResetWindowMs(-1), "failureResetWindowMs must be >= 0, was -1");
        refused(b -> b.damagedVoteFraction(0), "damagedVoteFraction must be in (0, 1], was 0");
        refused(b -> b.damagedVoteFraction(1.5), "damagedVoteFraction must be in (0, 1], was 1.5");
        refused(b -> b.minVotingKinds(-1), "minVotingKinds must be >= 0, was -1");
        refused(b -> b.damagedVoteConsecutiveRounds(0), "damagedVoteConsecutiveRounds must be >= 1, was 0");
        refused(b -> b.probeWeights(Map.of("http", -0.5)), "probeWeights.http must be >= 0, was -0.5");
        Map<String, Double> missing = new HashMap<>();
        missing.put("tcp", null);
        refused(b -> b.probeWeights(missing), "probeWeights.tcp must be >= 0, was null");
        refused(b -> b.passiveWindowSeconds(0), "passiveWindowSeconds must be >= 1, was 0");
        refused(b -> b.damagedErrorRate(-0.1), "damagedErrorRate must be >= 0, was -0.1");
    }

    @Test
    void valuesThatSwitchARuleOffAreAccepted() {
        // the fault-injection bench's peer: no vote, no passive DAMAGED (bench/fault-decider/FaultBench.java)
        DecisionRules peer = DecisionRules.fromJson("{\"damagedVoteFraction\":1.0,\"minVotingKinds\":100,\"damagedErrorRate\":2.0}");
        assertEquals(DecisionRules.builder().damagedVoteFraction(1.0).minVotingKinds(100).damagedErrorRate(2.0).build(), peer);
    }

    @Test
    void storedRulesAreReadByFieldNameAndRefusedNamingTheField() {
        DecisionRules r = DecisionRules.fromJson("{\"healthyAfterConsecutiveSuccesses\":4,\"probeWeights\":{\"grpc\":0.9}}");
        Map<String, Double> weights = new HashMap<>(DecisionRules.DEFAULT_PROBE_WEIGHTS);
        weights.put("grpc", 0.9);
        assertEquals(DecisionRules.builder().healthyAfterConsecutiveSuccesses(4).probeWeights(weights).build(), r,
                "a stored weight replaces that kind's default only");
        assertEquals(r, DecisionRules.fromJson(r.toJson()));
        for (String[] c : new String[][] {
                {"{\"damagedVoteFraction\": 2}", "damagedVoteFraction must be in (0, 1], was 2"},
                {"{\"passiveWindowSeconds\": 0}", "passiveWindowSeconds must be >= 1, was 0"},
                {"{\"probeWeights\": {\"http\": null}}", "probeWeights.http must be >= 0, was null"},
                {"{\"thresholds\": {\"trendSamples\": 1}}", "trendSamples must be >= 2, was 1"}}) {
            var e = assertThrows(IllegalArgumentException.class, () -> DecisionRules.fromJson(c[0]), c[0]);
            assertTrue(e.getMessage().startsWith("invalid decision rules: ") && e.getMessage().contains(c[1]), e.getMessage());
        }
    }

    private static void refused(Function<DecisionRules.Builder, DecisionRules.Builder> set, String message) {
        Knob.assertRefused(DecisionRules.builder(), set, DecisionRules.Builder::build, message);
    }
}
