package dev.richter.decider;

import static dev.richter.decider.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.richter.common.model.HealthReport;
import dev.richter.common.model.Verdict.State;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The decider's cadence and vote details (DESIGN.md §4): the short wait while anything is amiss, and a TCP connect that abstains when
 * the module's own health endpoint answered.
 */
class AlertCadenceTest {
    final FaultDecider decider = new FaultDecider();
    final Map<String, ModuleState> states = new HashMap<>();
    long now = 1_700_000_000_000L;

    Decision round(HealthReport... reports) {
        Decision d = decider.decide(new DecisionInput("run", "formal", 0, List.of("order"), now, List.of(reports)),
                DecisionRules.defaults(), states, PassiveEvidence.none());
        d.modules().forEach(m -> states.put(m.verdict().module(), m.next()));
        now += 1000;
        return d;
    }

    static HealthReport healthDown() {
        return new HealthReport("order", "http", false, "DOWN", List.of("db"), 800, "status DOWN (HTTP 503); failing db",
                Map.of(), 0);
    }

    @Test
    void allWellWaitsTheNormalTwoSecondsAndAnyFailureOrBreachTheAlertSecond() {
        assertEquals(2000, FaultDeciderService.nextWaitMs(round(http("order", true), tcp("order", true), prom("order", 0.5, 0.2))));
        assertEquals(1000, FaultDeciderService.nextWaitMs(round(http("order", false), tcp("order", true), prom("order", 0.5, 0.2))));
        assertEquals(1000, FaultDeciderService.nextWaitMs(round(http("order", true), tcp("order", true), prom("order", 0.97, 0.2))));
        // three successes bring the verdict back; until then the module is on alert
        for (int i = 0; i < 3; i++) round(http("order", true), tcp("order", true), prom("order", 0.5, 0.2));
        assertEquals(2000, FaultDeciderService.nextWaitMs(round(http("order", true), tcp("order", true), prom("order", 0.5, 0.2))));
    }

    @Test
    void aHealthEndpointAnsweringDownWithAResourceBreachIsDamagedAlthoughTheConnectSucceeds() {
        ModuleDecision d = round(healthDown(), tcp("order", true), prom("order", 0.5, 0.99)).modules().getFirst();
        assertEquals(State.DAMAGED, d.verdict().state(), d.verdict().reason());
        assertEquals("vote", d.evidence().rule());
        assertEquals(1.0, d.evidence().voteFraction(), 1e-9);
    }

    @Test
    void aHealthProbeThatGotNoAnswerLeavesTheConnectInTheVote() {
        // TIMEOUT is no answer: the successful connect is evidence again, (0.6 + 0.4) / 1.4 < 0.75.
        ModuleDecision d = round(http("order", false), tcp("order", true), prom("order", 0.5, 0.99)).modules().getFirst();
        assertEquals(State.HEALTHY, d.verdict().state(), d.verdict().reason());
        assertEquals(1.0 / 1.4, d.evidence().voteFraction(), 1e-9);
    }
}
