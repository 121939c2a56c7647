package dev.richter.decider;

import static dev.richter.decider.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.richter.common.model.HealthReport;
import dev.richter.common.model.HealthReport.Evidence;
import dev.richter.common.model.Verdict.State;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Broken monitoring is missing evidence: it never moves the rule matrix, and it is reported. */
class MissingEvidenceDecisionTest {
    final FaultDecider decider = new FaultDecider();
    final Map<String, ModuleState> states = new HashMap<>();
    final DecisionRules rules = DecisionRules.defaults();
    long now = 1_700_000_000_000L;

    Decision round(HealthReport... reports) {
        Decision d = decider.decide(new DecisionInput("run", "formal", 0, List.of("order"), now, List.of(reports)),
                rules, states, PassiveEvidence.none());
        d.modules().forEach(m -> states.put(m.verdict().module(), m.next()));
        now += 2000;
        return d;
    }

    static ModuleDecision order(Decision d) {
        return d.modules().stream().filter(m -> m.verdict().module().equals("order")).findFirst().orElseThrow();
    }

    static HealthReport metrics404() {
        return new HealthReport("order", "prometheus", false, "HTTP_404", List.of(), 2, "scrape answered HTTP 404",
                Map.of(), 0, Evidence.MONITORING, List.of());
    }

    static HealthReport parseError() {
        return new HealthReport("order", "prometheus", false, "PARSE_ERROR", List.of(), 2,
                "line 3: invalid escape sequence '\\A'", Map.of(), 0, Evidence.MONITORING, List.of());
    }

    @Test
    void aHealthyModuleWithABrokenMetricsEndpointStaysHealthyFor100RoundsWithTheDefectNamed() {
        for (int i = 0; i < 100; i++) {
            ModuleDecision d = order(round(http("order", true), tcp("order", true), i % 2 == 0 ? metrics404() : parseError()));
            assertEquals(State.HEALTHY, d.verdict().state(), "round " + i + ": " + d.verdict().reason());
            assertEquals(0, d.evidence().consecutiveFailures());
            assertEquals(List.of(), d.evidence().failingKinds());
            String defect = i % 2 == 0 ? "prometheus: scrape answered HTTP 404" : "prometheus: line 3: invalid escape sequence '\\A'";
            assertEquals(List.of(defect), d.evidence().missingEvidence());
            assertTrue(d.verdict().reason().contains("missing evidence: " + defect), d.verdict().reason());
        }
    }

    @Test
    void theSameScrapeFailureCountedAsModuleEvidenceWouldHaveMadeItSuspect() {
        // The control: a failed scrape of module evidence (e.g. a 5xx) does count, so the test above can fail.
        HealthReport scrape503 = new HealthReport("order", "prometheus", false, "HTTP_503", List.of(), 2,
                "scrape answered HTTP 503", Map.of(), 0);
        State last = null;
        for (int i = 0; i < 5; i++) last = order(round(http("order", true), tcp("order", true), scrape503)).verdict().state();
        assertEquals(State.SUSPECT, last);
    }

    @Test
    void roundsWithOnlyMissingEvidenceHoldTheVerdictAndTheCounters() {
        for (int i = 0; i < 5; i++) round(http("order", false), tcp("order", true));
        assertEquals(State.SUSPECT, states.get("order").verdict());
        for (int i = 0; i < 10; i++) {
            ModuleDecision d = order(round(metrics404()));
            assertEquals(State.SUSPECT, d.verdict().state(), "a SUSPECT module must not recover on unobserved rounds");
            assertEquals("no-evidence", d.evidence().rule());
            assertEquals(0, d.evidence().consecutiveSuccesses());
        }
        assertFalse(order(round(metrics404())).changed());
    }

    @Test
    void aScrapeWithADroppedExemplarStillFeedsTheResourceRulesAndCarriesItsWarning() {
        HealthReport partial = new HealthReport("order", "prometheus", true, "SCRAPED", List.of(), 2, "",
                Map.of("heapUsedRatio", 0.97), 0, Evidence.MODULE,
                List.of("line 3: exemplar dropped: an exemplar needs a label set ('{}' when empty)"));
        ModuleDecision d = order(round(http("order", true), partial));
        assertEquals(1, d.evidence().breaches().size(), "the samples of the partial scrape are used");
        assertEquals(List.of("prometheus: line 3: exemplar dropped: an exemplar needs a label set ('{}' when empty)"),
                d.evidence().missingEvidence());
    }
}
