package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * One run per target, on every path: in {@code statemachines/load-test-run.asl.json}, no top-level path from
 * {@code StartAt} reaches the end of the execution (a Succeed or Fail state, or {@code End}) without passing a state
 * that releases the run's leases, whatever succeeds, fails or is caught on the way.
 */
class LoadTestRunAslTest {
    static final Path ASL = LocalAwsStack.rootFromEnv().resolve("statemachines/load-test-run.asl.json");

    @Test
    void everyPathThroughTheRunEndsByReleasingItsLeases() throws Exception {
        JsonNode states = Json.MAPPER.readTree(ASL.toFile()).path("States");
        Set<String> releasing = new HashSet<>();
        states.properties().forEach(e -> {
            if (e.getValue().path("Resource").asText().equals("${ReleaseLeasesFunctionArn}")) {
                releasing.add(e.getKey());
            }
        });
        assertEquals(Set.of("ReleaseLeases", "ReleaseLeasesAfterReportFailed"), releasing);

        // walk every transition (Next, Default, Choices, Catch) from StartAt, never through a releasing state
        Deque<String> todo = new ArrayDeque<>(List.of(Json.MAPPER.readTree(ASL.toFile()).path("StartAt").asText()));
        Set<String> seen = new HashSet<>();
        List<String> escapes = new ArrayList<>();
        while (!todo.isEmpty()) {
            String name = todo.pop();
            if (!seen.add(name) || releasing.contains(name)) {
                continue;
            }
            JsonNode s = states.path(name);
            String type = s.path("Type").asText();
            if (type.equals("Succeed") || type.equals("Fail") || s.path("End").asBoolean(false)) {
                escapes.add(name);
            }
            List<String> next = new ArrayList<>();
            if (s.has("Next")) {
                next.add(s.get("Next").asText());
            }
            if (s.has("Default")) {
                next.add(s.get("Default").asText());
            }
            s.path("Choices").forEach(c -> next.add(c.path("Next").asText()));
            s.path("Catch").forEach(c -> next.add(c.path("Next").asText()));
            todo.addAll(next);
        }
        assertTrue(escapes.isEmpty(), "states that end the run with its leases held: " + escapes);
        assertTrue(seen.contains("Report"), "the walk reached the report");
        assertTrue(states.path("Report").path("Catch").toString().contains("ReleaseLeasesAfterReportFailed"),
                "a failed report still releases");
    }

    /**
     * No load before the gate (issue 46): on every path from {@code StartAt} (each gate's pass and fail branch, every
     * {@code Catch}; a {@code $.current.stage} choice follows the stage the last {@code Select*} state set), the
     * pre-test's load comes only after the static gate passed, and the warm-up's and the formal stage's only after the
     * dynamic checks ran on the pre-test's load and {@code DynamicGate} passed them. Each stage's {@code RunStage} is
     * reached on some path, so the walk is not vacuous.
     */
    @Test
    void noLoadButThePreTestRunsBeforeTheDynamicGatePassed() throws Exception {
        JsonNode root = Json.MAPPER.readTree(ASL.toFile());
        JsonNode states = root.path("States");
        // a walker's position: state, the stage $.current holds, the gates passed so far, the pre-test's load sent
        record At(String state, String stage, boolean staticPassed, boolean preTestRan, boolean dynamicPassed) {}
        Deque<At> todo = new ArrayDeque<>(List.of(new At(root.path("StartAt").asText(), "", false, false, false)));
        Set<At> seen = new HashSet<>();
        Set<String> loaded = new HashSet<>();
        List<String> early = new ArrayList<>();
        while (!todo.isEmpty()) {
            At at = todo.pop();
            if (!seen.add(at)) {
                continue;
            }
            JsonNode s = states.path(at.state());
            String type = s.path("Type").asText();
            String stage = at.stage();
            if (type.equals("Pass") && s.path("ResultPath").asText().equals("$.current")) {
                stage = s.path("Parameters").path("stage").asText();
            }
            if (type.equals("Map") && s.path("ItemsPath").asText().equals("$.current.steps")) {
                loaded.add(stage);
                boolean allowed = stage.equals("pre-test") ? at.staticPassed() : at.dynamicPassed();
                if (!allowed) {
                    early.add(stage + " load at " + at);
                }
            }
            boolean preTestRan = at.preTestRan() || (type.equals("Map") && stage.equals("pre-test"));
            List<At> next = new ArrayList<>();
            String st = stage;
            java.util.function.Function<String, At> to = n -> new At(n, st, at.staticPassed(), preTestRan, at.dynamicPassed());
            if (s.has("Next")) {
                next.add(to.apply(s.get("Next").asText()));
            }
            boolean stageMatched = false;
            for (JsonNode c : s.path("Choices")) {
                if (c.path("Variable").asText().equals("$.current.stage")) {
                    if (c.path("StringEquals").asText().equals(stage)) {
                        stageMatched = true;
                        next.add(to.apply(c.path("Next").asText()));
                    }
                } else {
                    next.add(to.apply(c.path("Next").asText())); // a gate's FAIL branch, or any other choice
                }
            }
            if (s.has("Default") && !stageMatched) {
                String d = s.get("Default").asText();
                // a gate's pass branch: the static gate passes the static checks, the dynamic gate the pre-test's
                next.add(switch (at.state()) {
                    case "StaticGate" -> new At(d, stage, true, preTestRan, at.dynamicPassed());
                    case "DynamicGate" -> new At(d, stage, at.staticPassed(), preTestRan, preTestRan && at.staticPassed());
                    default -> to.apply(d);
                });
            }
            s.path("Catch").forEach(c -> next.add(to.apply(c.path("Next").asText())));
            todo.addAll(next);
        }
        assertEquals(Set.of("pre-test", "warm-up", "formal"), loaded, "every stage's load is reached on some path");
        assertTrue(early.isEmpty(), "load before its gate: " + early);
    }

    /**
     * The stages in run order, following the top-level Pass and Choice states as the run does when every task
     * passes: the static gate precedes any load, the pre-test comes first and the dynamic checks run once, on it; the
     * warm-up (from {@code $.run.warmUp}) runs only after the dynamic gate and goes on to the formal stage, then the
     * report (issue 46: no load before the gate).
     */
    @Test
    void thePreTestAndItsDynamicGateComeBeforeTheWarmUpAndTheFormalStage() throws Exception {
        JsonNode root = Json.MAPPER.readTree(ASL.toFile());
        JsonNode states = root.path("States");
        List<String> path = new ArrayList<>();
        String stage = "";
        String name = root.path("StartAt").asText();
        while (!name.equals("Report") && path.size() < 50) {
            path.add(name.equals("RunStage") ? "RunStage(" + stage + ")" : name);
            JsonNode s = states.path(name);
            if (s.path("Type").asText().equals("Choice")) {
                String next = s.path("Default").asText();
                for (JsonNode c : s.path("Choices")) {
                    // a gate's FAIL branch is not taken: every check passes on this path
                    if (c.path("Variable").asText().equals("$.current.stage") && c.path("StringEquals").asText().equals(stage)) {
                        next = c.path("Next").asText();
                        break;
                    }
                }
                name = next;
                continue;
            }
            if (s.path("Type").asText().equals("Pass") && s.path("ResultPath").asText().equals("$.current")) {
                stage = s.path("Parameters").path("stage").asText();
                assertEquals("$.run." + switch (stage) {
                    case "warm-up" -> "warmUp";
                    case "pre-test" -> "preTest";
                    default -> stage;
                }, s.path("Parameters").path("steps.$").asText(), name);
            }
            name = s.path("Next").asText();
        }
        assertEquals(List.of("Prepare", "StaticChecks", "StaticGate", "SelectPreTest", "RunStage(pre-test)", "AfterStage",
                "DynamicChecks", "DynamicGate", "SelectWarmUp", "RunStage(warm-up)", "AfterStage", "SelectFormal",
                "RunStage(formal)", "AfterStage"), path);
        assertEquals("pre-test", states.path("DynamicChecks").path("Parameters").path("stage").asText());
        assertTrue(root.path("Comment").asText().contains("warm-up stage"), "the Comment names the warm-up");
    }

    /**
     * Fail safe, in both state machines: every monitor task (probe, fault-decider) is caught, unretried, into
     * {@code MonitoringLost}, which sets the abort flag through the run-preparation function, and whose own failure
     * still ends the branch as aborted (the workers' heartbeat watch stops them then).
     */
    @Test
    void aMonitorThatFailsSetsTheAbortFlagInBothStateMachines() throws Exception {
        for (String file : List.of("load-test-run.asl.json", "nightly-check.asl.json")) {
            JsonNode root = Json.MAPPER.readTree(ASL.resolveSibling(file).toFile());
            List<JsonNode> scopes = new ArrayList<>();
            collectScopes(root, scopes);
            int monitorTasks = 0;
            for (JsonNode scope : scopes) {
                JsonNode states = scope.path("States");
                for (var e : (Iterable<java.util.Map.Entry<String, JsonNode>>) states::fields) {
                    String resource = e.getValue().path("Resource").asText();
                    if (!resource.equals("${ProbeFunctionArn}") && !resource.equals("${FaultDeciderFunctionArn}")) {
                        continue;
                    }
                    monitorTasks++;
                    String where = file + " " + e.getKey();
                    assertTrue(e.getValue().path("Retry").isMissingNode(), where + ": a retry leaves the load unwatched");
                    JsonNode c = e.getValue().path("Catch").get(0);
                    assertEquals("[\"States.ALL\"]", c.path("ErrorEquals").toString(), where);
                    JsonNode lostPass = states.path(c.path("Next").asText());
                    assertEquals(e.getKey(), lostPass.path("Parameters").path("state").asText(), where);
                    JsonNode lost = states.path(lostPass.path("Next").asText());
                    assertEquals("${RunPreparationFunctionArn}", lost.path("Resource").asText(), where);
                    assertEquals("monitoring-lost", lost.path("Parameters").path("action").asText(), where);
                    JsonNode unrecorded = states.path(lost.path("Catch").get(0).path("Next").asText());
                    assertTrue(unrecorded.path("Result").path("abortRequested").asBoolean(), where + ": " + unrecorded);
                    assertEquals("Succeed", states.path(lost.path("Next").asText()).path("Type").asText(), where);
                }
            }
            assertEquals(2, monitorTasks, file + ": one probe and one decide task");
        }
    }

    /** Every state list ({@code {StartAt, States}}) of a definition, nested Map and Parallel ones included. */
    private static void collectScopes(JsonNode node, List<JsonNode> out) {
        if (node.has("States") && node.has("StartAt")) {
            out.add(node);
        }
        node.forEach(child -> {
            if (child.isContainerNode()) {
                collectScopes(child, out);
            }
        });
    }
}
