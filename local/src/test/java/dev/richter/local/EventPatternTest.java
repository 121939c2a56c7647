package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.Json;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.event.ruler.Machine;

/**
 * The template's EventBridge rule patterns, matched with event-ruler (the engine EventBridge uses)
 * against events in the shape the bus delivers and with the details Richter's functions emit.
 */
class EventPatternTest {
    static Machine onCall() throws Exception {
        SamTemplate t = SamTemplate.load(LocalAwsStack.rootFromEnv(), LocalAwsStack.LOCAL_PARAMETER_DEFAULTS);
        String pattern = t.eventRulePatterns().get("OnCallRule");
        Machine m = new Machine();
        m.addRule("OnCallRule", pattern);
        return m;
    }

    static String event(String detailType, Map<String, Object> detail) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("version", "0");
        e.put("id", "1");
        e.put("detail-type", detailType);
        e.put("source", "richter");
        e.put("account", SamTemplate.ACCOUNT);
        e.put("time", "2026-11-30T00:00:00Z");
        e.put("region", SamTemplate.REGION);
        e.put("resources", List.of());
        e.put("detail", detail);
        return Json.write(e);
    }

    @Test
    void onCallIsPagedForAbortsRegressionsAndDamagedModulesOnly() throws Exception {
        Machine m = onCall();
        assertEquals(List.of("OnCallRule"), m.rulesForJSONEvent(event("Run Aborted", Map.of("runId", "r", "reason", "DAMAGED core module"))));
        assertFalse(m.rulesForJSONEvent(event("Check Regressed", Map.of("check", "marker-propagation", "was", "PASS", "now", "FAIL"))).isEmpty());
        assertFalse(m.rulesForJSONEvent(event("Verdict Changed", Map.of("module", "inventory", "from", "SUSPECT", "to", "DAMAGED"))).isEmpty());
        assertTrue(m.rulesForJSONEvent(event("Verdict Changed", Map.of("module", "inventory", "from", "DAMAGED", "to", "HEALTHY"))).isEmpty());
        assertTrue(m.rulesForJSONEvent(event("Run Completed", Map.of("runId", "r", "outcome", "PASSED"))).isEmpty());
        assertTrue(m.rulesForJSONEvent(event("Run Started", Map.of("runId", "r"))).isEmpty());
        String foreign = event("Run Aborted", Map.of("runId", "r")).replace("\"source\":\"richter\"", "\"source\":\"other\"");
        assertTrue(m.rulesForJSONEvent(foreign).isEmpty(), "only Richter's own events");
    }

    @Test
    void aTeamIsNotifiedOfItsRunsProgressAndNothingElse() throws Exception {
        SamTemplate t = SamTemplate.load(LocalAwsStack.rootFromEnv(), LocalAwsStack.LOCAL_PARAMETER_DEFAULTS);
        Machine m = new Machine();
        m.addRule("NotificationRule", t.eventRulePatterns().get("NotificationRule"));
        for (String type : List.of("Run Started", "Step Completed", "Verdict Changed", "Run Aborted", "Run Completed",
                "Run Start Failed")) {
            assertEquals(List.of("NotificationRule"), m.rulesForJSONEvent(event(type, Map.of("runId", "r", "teamId", "t"))), type);
        }
        assertTrue(m.rulesForJSONEvent(event("Check Regressed", Map.of("check", "c"))).isEmpty(), "the nightly check pages on-call only");
        String foreign = event("Run Started", Map.of("runId", "r")).replace("\"source\":\"richter\"", "\"source\":\"other\"");
        assertTrue(m.rulesForJSONEvent(foreign).isEmpty(), "only Richter's own events");
    }
}
