package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link LocalLimits}: AWS's numbers by default, lowerable, parsed from {@code RICHTER_LOCAL_LIMITS}. */
class LocalLimitsTest {
    @Test
    void theDefaultsAreAwsValues() {
        LocalLimits aws = LocalLimits.AWS;
        assertEquals(6_291_456, aws.invokePayloadBytes());
        assertEquals(262_144, aws.statePayloadBytes());
        assertEquals(40, aws.inlineMapMaxConcurrency());
        assertEquals(10_000, aws.distributedMapMaxConcurrency());
        assertEquals(25_000, aws.historyEventsPerExecution());
        assertEquals(Map.of(), aws.parameterOverrides());
    }

    @Test
    void parseLowersLimitsAndSetsTemplateParameters() {
        LocalLimits l = LocalLimits.parse(" historyEventsPerExecution=400, inlineMapMaxConcurrency=4,param.LoadDriverTimeoutSeconds=15 ");
        assertEquals(400, l.historyEventsPerExecution());
        assertEquals(4, l.inlineMapMaxConcurrency());
        assertEquals(Map.of("LoadDriverTimeoutSeconds", "15"), l.parameterOverrides());
        assertEquals(LocalLimits.AWS.statePayloadBytes(), l.statePayloadBytes());
        assertEquals(l, LocalLimits.AWS.withHistoryEventsPerExecution(400).withInlineMapMaxConcurrency(4)
                .withParameterOverride("LoadDriverTimeoutSeconds", "15"));
        assertEquals(LocalLimits.AWS, LocalLimits.parse(""));
    }

    @Test
    void badKeysAndValuesAreErrorsNamingTheKey() {
        var unknown = assertThrows(IllegalArgumentException.class, () -> LocalLimits.parse("historyEvents=400"));
        assertTrue(unknown.getMessage().contains("'historyEvents'"), unknown.getMessage());
        var notInt = assertThrows(IllegalArgumentException.class, () -> LocalLimits.parse("statePayloadBytes=big"));
        assertTrue(notInt.getMessage().contains("statePayloadBytes"), notInt.getMessage());
        var above = assertThrows(IllegalArgumentException.class, () -> LocalLimits.parse("inlineMapMaxConcurrency=41"));
        assertTrue(above.getMessage().contains("inlineMapMaxConcurrency") && above.getMessage().contains("40"), above.getMessage());
        var zero = assertThrows(IllegalArgumentException.class, () -> LocalLimits.parse("invokePayloadBytes=0"));
        assertTrue(zero.getMessage().contains("invokePayloadBytes"), zero.getMessage());
        var noValue = assertThrows(IllegalArgumentException.class, () -> LocalLimits.parse("historyEventsPerExecution"));
        assertTrue(noValue.getMessage().contains("historyEventsPerExecution"), noValue.getMessage());
        var twice = assertThrows(IllegalArgumentException.class, () -> LocalLimits.parse("param.A=1,param.A=2"));
        assertTrue(twice.getMessage().contains("param.A"), twice.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LocalLimits.parse("param.=1"));
    }

    @Test
    void theStepFunctionsConfigAndSystemPropertiesCarryEveryLimit() {
        LocalLimits l = LocalLimits.AWS.withStatePayloadBytes(2048).withDistributedMapMaxConcurrency(8);
        assertEquals(Map.of("inlineMapMaxConcurrency", 40, "distributedMapMaxConcurrency", 8,
                "historyEventsPerExecution", 25_000, "statePayloadBytes", 2048), l.stepFunctionsConfig());
        assertEquals(Map.of("RICHTER_HISTORY_EVENT_LIMIT", "25000", "RICHTER_STATE_PAYLOAD_BYTES", "2048",
                "RICHTER_INLINE_MAP_MAX_CONCURRENCY", "40", "RICHTER_DISTRIBUTED_MAP_MAX_CONCURRENCY", "8",
                "RICHTER_INVOKE_PAYLOAD_BYTES", "6291456"), l.systemProperties());
        assertTrue(l.describe().contains("statePayloadBytes=2048 (AWS 262144)"), l.describe());
        assertTrue(l.describe().contains("inlineMapMaxConcurrency=40 (AWS)"), l.describe());
    }
}
