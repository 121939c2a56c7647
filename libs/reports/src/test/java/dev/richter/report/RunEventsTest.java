package dev.richter.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Alert and verdict events from the decider's stored rounds, as the verdicts table holds them. */
class RunEventsTest {
    static Map<String, AttributeValue> round(long atMs, String module, String previous, String verdict, String reason,
                                             String alertsJson) {
        Map<String, AttributeValue> item = new HashMap<>(Map.of(
                "module", AttributeValue.fromS(module), "atMs", AttributeValue.fromN(Long.toString(atMs)),
                "verdict", AttributeValue.fromS(verdict), "previous", AttributeValue.fromS(previous),
                "reason", AttributeValue.fromS(reason), "step", AttributeValue.fromS("formal#1")));
        item.put("evidence", AttributeValue.fromS("{\"rule\":\"x\",\"teamEvidence\":{\"alerts\":" + alertsJson + ",\"metrics\":[]}}"));
        return item;
    }

    @Test
    void anAlertFiresAtItsFirstRoundAndResolvesAtTheFirstRoundWithoutIt() {
        String shedding = "[{\"name\":\"ShopShedding\",\"sinceMs\":1000}]";
        List<RunEvent> events = RunEvents.of(List.of(
                round(2000, "order", "HEALTHY", "HEALTHY", "probes ok", "[]"),
                round(4000, "order", "HEALTHY", "DAMAGED", "alert ShopShedding firing on core module order", shedding),
                round(4000, "inventory", "HEALTHY", "HEALTHY", "probes ok", "[]"),
                round(6000, "order", "DAMAGED", "DAMAGED", "held", shedding),
                round(8000, "order", "DAMAGED", "DAMAGED", "held", "[]")), OptionalLong.of(4100), "DAMAGED core module order");
        assertEquals(List.of(
                new RunEvent(4000, "alert-fired", "order", "formal#1", "ShopShedding", "since 1970-01-01T00:00:01Z"),
                new RunEvent(4000, "verdict-changed", "order", "formal#1", "HEALTHY→DAMAGED",
                        "alert ShopShedding firing on core module order"),
                new RunEvent(4100, "abort", "", "", "abort", "DAMAGED core module order"),
                new RunEvent(8000, "alert-resolved", "order", "formal#1", "ShopShedding", "")), events);
    }

    @Test
    void roundsWithoutEvidenceOrAbortGiveOnlyVerdictChanges() {
        Map<String, AttributeValue> bare = new HashMap<>(round(2000, "order", "HEALTHY", "SUSPECT", "5 consecutive failed probes", "[]"));
        bare.remove("evidence");
        bare.remove("step");
        assertEquals(List.of(new RunEvent(2000, "verdict-changed", "order", "", "HEALTHY→SUSPECT", "5 consecutive failed probes")),
                RunEvents.of(List.of(bare), OptionalLong.empty(), ""));
    }
}
