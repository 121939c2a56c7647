package dev.richter.common.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class MissingEvidenceTest {
    @Test
    void roundsAreGroupedPerModuleAndDefectWithTheModulesRoundCount() {
        List<MissingEvidence> m = MissingEvidence.summarise(List.of(
                new MissingEvidence.DecisionRound("order", 3000, List.of("prometheus: scrape answered HTTP 404")),
                new MissingEvidence.DecisionRound("order", 1000, List.of("prometheus: scrape answered HTTP 404")),
                new MissingEvidence.DecisionRound("order", 2000, List.of()),
                new MissingEvidence.DecisionRound("inventory", 1000, List.of("grpc: unknown service 'inv'", "grpc: unknown service 'inv'")),
                new MissingEvidence.DecisionRound("inventory", 2000, List.of())));
        assertEquals(List.of(
                new MissingEvidence("inventory", "grpc: unknown service 'inv'", 1, 2, 1000, 1000),
                new MissingEvidence("order", "prometheus: scrape answered HTTP 404", 2, 3, 1000, 3000)), m);
        assertEquals("prometheus: scrape answered HTTP 404 (in 2 of 3 rounds)", m.get(1).describe());
    }

    @Test
    void noDefectsGiveNothing() {
        assertEquals(List.of(), MissingEvidence.summarise(List.of(new MissingEvidence.DecisionRound("order", 1, List.of()))));
    }
}
