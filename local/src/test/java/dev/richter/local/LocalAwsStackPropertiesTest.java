package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.Env;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The function environment and limits {@link LocalAwsStack} hands over as system properties, and restores. */
class LocalAwsStackPropertiesTest {
    @Test
    void everyFunctionsEnvironmentAndTheLimitsBecomePropertiesExceptWhatTheProcessEnvironmentSets() {
        List<SamTemplate.FunctionDef> fns = List.of(
                new SamTemplate.FunctionDef("A", "a.A", 3, 128, Map.of("SHARED", "1", "A_ONLY", "a", "FROM_ENV", "template")),
                new SamTemplate.FunctionDef("B", "b.B", 3, 128, Map.of("SHARED", "1", "B_ONLY", "b")));
        Map<String, String> props = LocalAwsStack.functionProperties(fns, LocalLimits.AWS.withHistoryEventsPerExecution(400),
                name -> name.equals("FROM_ENV") ? "process" : null);
        assertEquals("1", props.get("SHARED"));
        assertEquals("a", props.get("A_ONLY"));
        assertEquals("b", props.get("B_ONLY"));
        assertFalse(props.containsKey("FROM_ENV"), "the real process environment wins");
        assertEquals("400", props.get("RICHTER_HISTORY_EVENT_LIMIT"));
        assertEquals("6291456", props.get("RICHTER_INVOKE_PAYLOAD_BYTES"));
        assertEquals("false", props.get(dev.richter.loaddriver.LoadDriver.Config.COLLECT_BEFORE_STEP_ENV),
                "one JVM holds every worker: no worker collects before its step");
    }

    @Test
    void twoFunctionsGivingOneNameDifferentValuesFailsNamingBoth() {
        List<SamTemplate.FunctionDef> fns = List.of(
                new SamTemplate.FunctionDef("A", "a.A", 3, 128, Map.of("MODE", "fast")),
                new SamTemplate.FunctionDef("B", "b.B", 3, 128, Map.of("MODE", "slow")));
        var e = assertThrows(IllegalStateException.class, () -> LocalAwsStack.functionProperties(fns, LocalLimits.AWS, n -> null));
        assertTrue(e.getMessage().contains("MODE") && e.getMessage().contains("'fast' for A") && e.getMessage().contains("'slow' for B"),
                e.getMessage());
    }

    /** Per-function JVM flags (the load driver's heap pre-touch) are for Lambda's JVM launcher, not the function's code. */
    @Test
    void jvmLauncherVariablesAreNotHandedOver() {
        List<SamTemplate.FunctionDef> fns = List.of(
                new SamTemplate.FunctionDef("A", "a.A", 3, 128, Map.of("JAVA_TOOL_OPTIONS", "-XX:TieredStopAtLevel=1")),
                new SamTemplate.FunctionDef("B", "b.B", 3, 128, Map.of("JAVA_TOOL_OPTIONS", "-XX:+AlwaysPreTouch")));
        assertFalse(LocalAwsStack.functionProperties(fns, LocalLimits.AWS, n -> null).containsKey("JAVA_TOOL_OPTIONS"));
    }

    @Test
    void closeRestoresEveryPropertyItSet(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("template.yaml"), """
                Parameters:
                  Mode: {Type: String, Default: normal}
                Resources:
                  F:
                    Type: AWS::Serverless::Function
                    Properties:
                      Handler: a.B
                      Environment: {Variables: {RICHTER_TEST_MODE: {Ref: Mode}, RICHTER_TEST_NEW: "x"}}
                """);
        String previousLimit = System.getProperty("RICHTER_STATE_PAYLOAD_BYTES");
        System.setProperty("RICHTER_TEST_MODE", "before");
        try {
            LocalLimits limits = LocalLimits.AWS.withStatePayloadBytes(4096).withParameterOverride("Mode", "quick");
            LocalAwsStack stack = new LocalAwsStack(dir, dir.resolve("work"), limits, line -> {});
            stack.setFunctionProperties(SamTemplate.load(dir, limits.parameterOverrides()));
            assertEquals("quick", Env.get("RICHTER_TEST_MODE").orElseThrow());
            assertEquals("x", Env.get("RICHTER_TEST_NEW").orElseThrow());
            assertEquals(4096, Env.intValue("RICHTER_STATE_PAYLOAD_BYTES", 0));
            stack.close();
            assertEquals("before", System.getProperty("RICHTER_TEST_MODE"));
            assertNull(System.getProperty("RICHTER_TEST_NEW"));
            assertEquals(previousLimit, System.getProperty("RICHTER_STATE_PAYLOAD_BYTES"));
        } finally {
            System.clearProperty("RICHTER_TEST_MODE");
        }
    }

    @Test
    void theStackArmsTheFaultsItIsGivenAndLogsEachFiredOneToItsFaultsFile(@TempDir Path dir) throws Exception {
        java.util.List<String> log = new java.util.concurrent.CopyOnWriteArrayList<>();
        LocalAwsStack stack = new LocalAwsStack(dir, dir.resolve("work"), LocalLimits.AWS, LocalFaults.parse("lambda.ProbeFunction=error"),
                log::add);
        assertEquals(dir.resolve("work/faults.jsonl"), stack.faultsFile());
        assertEquals(LocalFaults.parse("lambda.ProbeFunction=error"), stack.faults().current());
        stack.faults().fire(stack.faults().select(LocalFaults.Component.LAMBDA, "ProbeFunction", "Invoke").orElseThrow(), "Invoke");
        assertEquals(1, Files.readAllLines(stack.faultsFile()).size());
        assertEquals(Map.of("lambda.ProbeFunction", 1L), stack.faults().fired());
        stack.faults().clear();
        assertTrue(stack.faults().current().isEmpty());
        assertEquals(LocalFaults.NONE, new LocalAwsStack(dir, dir, LocalLimits.AWS, LocalFaults.NONE, log::add).faults().current());
    }

    @Test
    void aRuleOnTheCustomBusListensWhereTheFunctionsPublishWhenTheEnvironmentNamesTheBus() throws Exception {
        SamTemplate t = SamTemplate.load(LocalAwsStack.rootFromEnv(), LocalAwsStack.LOCAL_PARAMETER_DEFAULTS);
        var rules = LocalAwsStack.rulesOnTheFunctionsBus(t.eventRules(), "richter-local");
        var byId = rules.stream().collect(java.util.stream.Collectors.toMap(SamTemplate.EventRule::logicalId,
                SamTemplate.EventRule::eventBusName));
        assertEquals("richter-local", byId.get("NotificationRule"));
        assertEquals("default", byId.get("ExecutionEndedRule"), "Step Functions' events stay on default");
        assertEquals(t.eventRules(), LocalAwsStack.rulesOnTheFunctionsBus(t.eventRules(), null));
    }
}
